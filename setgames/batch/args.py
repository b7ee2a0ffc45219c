"""The argument checks every game's batch makes (``<game>_env/_batch.pyx``), in one place.

They run once a call, in Python, before the batch's C code: the per-slot work
(the legality of every slot's action, the step itself) stays in C.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from setgames.batch import AUTORESET_MODES, LEARNER_SEAT_MODES, OPPONENTS

__all__ = ["check_actions", "check_mask", "check_options", "check_out", "check_seed", "check_values_out",
           "illegal_action"]


def check_seed(seed: Any) -> None:
    """A master seed is a non-negative int (Python or numpy) or None."""
    if seed is not None and not (isinstance(seed, (int, np.integer)) and seed >= 0):
        raise ValueError(f"seed {seed!r} must be a non-negative int or None")


def check_options(num_envs: int, num_threads: int, opponents: Any, autoreset: Any, learner_seat: Any,
                  seed: Any, num_players: int) -> None:
    """The constructor's options (the :mod:`setgames.batch` protocol's)."""
    if num_envs < 1:
        raise ValueError(f"num_envs {num_envs!r} must be at least 1")
    if num_threads < 1:
        raise ValueError(f"num_threads {num_threads!r} must be at least 1")
    if opponents not in OPPONENTS:
        raise ValueError(f"opponents {opponents!r} is not one of {OPPONENTS}")
    if autoreset not in AUTORESET_MODES:
        raise ValueError(f"autoreset {autoreset!r} is not one of {AUTORESET_MODES}")
    if not (learner_seat in LEARNER_SEAT_MODES if isinstance(learner_seat, str)
            else type(learner_seat) is int and 0 <= learner_seat < num_players):
        raise ValueError(f"learner_seat {learner_seat!r} is not a seat 0..{num_players - 1} or one of "
                         f"{LEARNER_SEAT_MODES}")
    check_seed(seed)


def check_mask(mask: Any, n: int) -> np.ndarray | None:
    """``reset``'s slot mask: None, or a bool array of shape ``(n,)``."""
    if mask is None:
        return None
    mask = np.asarray(mask)
    if mask.shape != (n,) or mask.dtype != np.bool_:
        raise ValueError(f"mask must be a bool array of shape ({n},), got {mask.dtype} {mask.shape}")
    return mask


def check_actions(actions: Any, n: int) -> None:
    """``step``'s actions: an integer ndarray of shape ``(n,)`` (range and legality are the C's)."""
    if type(actions) is not np.ndarray:
        raise ValueError(f"actions must be a numpy integer array of shape ({n},), "
                         f"not {type(actions).__name__}")
    if actions.shape != (n,) or actions.dtype.kind not in "iu":
        raise ValueError(f"actions must be an integer array of shape ({n},), got "
                         f"{actions.dtype} {actions.shape}")


def illegal_action(slot: int, action: int, legal: list[int], labels: Sequence[str]) -> ValueError:
    """The refusal of slot ``slot``'s ``action``: it names the slot, the action and the legal ids."""
    what = (f"({labels[action]}) is not legal" if 0 <= action < len(labels)
            else f"is out of range 0..{len(labels) - 1}")
    return ValueError(f"slot {slot}: action {action} {what}; legal: {legal} (no slot moved)")


def check_out(out: Any, n: int) -> np.ndarray:
    """``sample``'s output array: a new int64 array, or ``out`` if it is a writable contiguous one."""
    if out is None:
        return np.empty(n, np.int64)
    if type(out) is not np.ndarray or out.dtype != np.int64 or out.shape != (n,) \
            or not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError(f"out must be a writable contiguous int64 array of shape ({n},)")
    return out


def check_values_out(out: Any, n: int, num_actions: int) -> np.ndarray:
    """``greedy_returns``'s output array: a new zeroed float32 ``(n, num_actions)`` array, or
    ``out`` if it is a writable C-contiguous one of that shape."""
    if out is None:
        return np.zeros((n, num_actions), np.float32)
    if type(out) is not np.ndarray or out.dtype != np.float32 or out.shape != (n, num_actions) \
            or not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError(f"out must be a writable C-contiguous float32 array of shape ({n}, {num_actions})")
    return out


MAX_REDEALS = 4096  # a bound that catches a seed or a step count passed by mistake


def check_redeals(redeals: Any) -> int:
    """``greedy_returns``'s ``redeals``: an int from 0 (the true state) to :data:`MAX_REDEALS`."""
    if isinstance(redeals, bool) or not isinstance(redeals, (int, np.integer)) \
            or not 0 <= redeals <= MAX_REDEALS:
        raise ValueError(f"redeals must be an int from 0 to {MAX_REDEALS}, got {redeals!r}")
    return int(redeals)
