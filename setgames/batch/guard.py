"""The rules of the door every game's compiled batch has: checked options, one caller at a
time, and a batch that survives ``fork``.

Each game's ``_batch.pyx`` defines ``cdef class Batch(GuardedCore)``
(:mod:`setgames.batch._guard`): the base class's public methods are the only door
to the game's C state and per-slot work (the ``cdef`` methods the game fills in).
This module holds the door's Python parts (the option and action checks):

- **Options** are checked as :mod:`setgames.checks` checks ``raw_env``'s: a
  one-line ``ValueError`` naming the option and the value, nothing built.
  ``num_envs`` and ``num_threads`` are integers (not floats, not bools), seeds
  are integers ``0..2**63-1`` (``seed=True`` and ``2**63`` are refused, never
  reduced), and :attr:`num_threads` reports the threads the step really uses.
- **One caller at a time.** Every public method marks the batch busy for the
  call (a test-and-set under the GIL, no waiting); a second thread calling into
  a busy batch gets a one-line ``RuntimeError`` ("in use by another thread")
  and nothing is touched. The C state is never entered by two threads, so no
  interleaving can corrupt it. (The batch's own thread pool is unaffected: the
  call that holds the batch splits its slots over the pool's workers without
  the GIL.) Reading the arrays (``b.obs``, ``b.mask``, ...) needs no turn; they
  are read-only arrays on memory that only the batch writes and no caller can
  resize or free (``setgames/batch/_buffers.pxd``).
- **Fork.** A child forked while the pool's workers sleep or spin makes a new
  pool on its first call (the parent's threads do not exist there; the C
  side never touches their locks: a ``pthread_atfork`` handler counts the
  forks, ``setgames/batch/_pool.pxd``), and may step or drop the batch. A
  child forked while another thread was inside a call holds a batch that call
  may have left half-written: every call but
  :meth:`reset` (of all slots) then raises a one-line ``RuntimeError`` saying
  so, and ``reset()`` deals fresh games in every slot.
- **Before the first deal** every call but ``reset`` is refused (a batch built
  with a seed has not dealt yet either).
- **Actions**: ``step`` takes an integer ndarray or a list of ints of shape
  ``(num_envs,)``; floats, bools and anything else are refused in one line.
- **Autoreset disabled**: stepping while a slot's game is over is an error, as
  in Gymnasium's own vector envs: reset those slots first (``reset(mask=...)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from setgames.batch.modes import autoreset_mode
from setgames.checks import check_choice, check_int, check_real, check_seed, short_repr

__all__ = [
    "ILLEGAL_ACTION_MODES",
    "MAX_ENVS",
    "MAX_ILLEGAL_REWARD",
    "MAX_THREADS",
    "SEARCH_PREFIX",
    "SHORT_DEAL_MODES",
    "as_actions",
    "check_batch_options",
]

MAX_ENVS = 2**24          # 16.7M slots: beyond any machine's memory for a batch of card games
MAX_THREADS = 1024        # a request beyond this is a mistake (the pool itself caps at 65)
MAX_ILLEGAL_REWARD = 1e6
ILLEGAL_ACTION_MODES = ("raise", "terminate")
SHORT_DEAL_MODES = ("skip", "play")


def as_actions(actions: Any, n: int) -> np.ndarray:
    """``step``'s actions as an integer ndarray of shape ``(n,)``: an integer ndarray as it
    is, a list (or tuple) of Python or numpy ints converted; anything else refused in one
    line (floats are never rounded to an action).

    >>> as_actions([1, 2], 2).dtype.kind
    'i'
    >>> as_actions(np.array([1.0, 2.0]), 2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: actions must be integers of shape (2,) (...), got float64 (2,)
    """
    if type(actions) is not np.ndarray:
        if not isinstance(actions, (list, tuple)) or not all(
                isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in actions):
            raise ValueError(f"actions must be integers of shape ({n},) (an integer ndarray or a list of "
                             f"ints), got {short_repr(actions)}")
        actions = np.asarray(actions, dtype=np.int64) if actions else np.zeros(0, np.int64)
    if actions.dtype.kind not in "iu" or actions.shape != (n,):
        raise ValueError(f"actions must be integers of shape ({n},) (an integer ndarray or a list of "
                         f"ints), got {actions.dtype} {actions.shape}")
    return actions


def check_batch_options(game: Any, num_envs: Any, seed: Any, num_threads: Any, opponents: Any,
                        learner_seat: Any, autoreset: Any, illegal_action: Any, illegal_reward: Any,
                        short_deals: Any) -> tuple:
    """A batch's options checked (see the module doc) and normalised, in the constructor's order
    after ``game``: ``(num_envs, seed, num_threads, opponents, learner_seat, autoreset,
    illegal_action, illegal_reward, short_deals)``.

    Raises:
        ValueError: one line naming the first bad option and its value.
    """
    from setgames.batch import LEARNER_SEAT_MODES, OPPONENTS

    num_envs = check_int("num_envs", num_envs, 1, MAX_ENVS)
    num_threads = check_int("num_threads", num_threads, 1, MAX_THREADS)
    if seed is not None:
        seed = check_seed(seed)
    check_opponents(opponents, OPPONENTS)
    if isinstance(learner_seat, str):
        check_choice("learner_seat", learner_seat, LEARNER_SEAT_MODES)
    else:
        learner_seat = check_int("learner_seat", learner_seat, 0, game.num_players - 1)
    return (num_envs, seed, num_threads, opponents, learner_seat, autoreset_mode(autoreset),
            check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES),
            check_real("illegal_reward", illegal_reward, -MAX_ILLEGAL_REWARD, MAX_ILLEGAL_REWARD),
            check_choice("short_deals", short_deals, SHORT_DEAL_MODES))


SEARCH_PREFIX = "search:"


def check_opponents(opponents: Any, named: tuple) -> None:
    """Refuse opponents that are neither one of ``named`` (the batch's :data:`OPPONENTS`, or a
    view's, which has no self-play) nor a search spec (:func:`search_opponents`), in one line."""
    if isinstance(opponents, str) and opponents.startswith(SEARCH_PREFIX):
        search_opponents(opponents)
    elif opponents not in named:
        choices = ", ".join(repr(o) for o in named)
        raise ValueError(f"opponents {short_repr(opponents)} is not one of {choices} or "
                         f"'search:iters=N[,z=Z]'")


def search_opponents(text: str) -> tuple[int, float]:
    """``"search:iters=N[,z=Z]"`` (the batch's in-C search opponents) as ``(iters, z)``.

    Only an iteration budget: a batch's games are the same on any machine, which a time
    budget would break. ``z`` defaults to the search bot's.

    >>> search_opponents("search:iters=64")
    (64, 1.0)
    """
    from setgames.search.budget import DEFAULT_Z, check_budget, check_z

    options = {}
    for item in filter(None, text[len(SEARCH_PREFIX):].split(",")):
        key, eq, value = item.partition("=")
        if not eq or key.strip() not in ("iters", "z"):
            raise ValueError(f"opponents {short_repr(text)}: write search:iters=N[,z=Z] (an iteration "
                             f"budget: a batch's games must not depend on the machine's speed)")
        try:
            options[key.strip()] = float(value) if key.strip() == "z" else int(value)
        except ValueError:
            raise ValueError(f"opponents {short_repr(text)}: {key.strip()} must be a number") from None
    if "iters" not in options:
        raise ValueError(f"opponents {short_repr(text)}: search opponents need iters=N")
    try:
        iters, _ = check_budget(options["iters"], None)
        return iters, check_z(options.get("z", DEFAULT_Z))
    except ValueError as exc:
        raise ValueError(f"opponents {short_repr(text)}: {exc}") from None
