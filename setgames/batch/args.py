"""The argument checks every game's batch core makes (``<game>_env/_batch.pyx``), in one place
(the options, seeds and actions: :mod:`setgames.batch.guard`).

They run once a call, in Python, before the batch's C code: the per-slot work
(the legality of every slot's action, the step itself) stays in C.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["check_mask", "check_out", "check_redeals", "check_values_out", "illegal_action"]


def check_mask(mask: Any, n: int) -> np.ndarray | None:
    """``reset``'s slot mask: None, or a bool array of shape ``(n,)``."""
    if mask is None:
        return None
    mask = np.asarray(mask)
    if mask.shape != (n,) or mask.dtype != np.bool_:
        raise ValueError(f"mask must be a bool array of shape ({n},), got {mask.dtype} {mask.shape}")
    return mask


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
