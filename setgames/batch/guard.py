"""The public face every game's compiled batch wears: checked options, one caller at a
time, and a batch that survives ``fork``.

Each game's ``_batch.pyx`` holds a compiled core (``BatchCore``: the C state and
the per-slot work, methods with a leading ``_``) and exports
``class Batch(GuardedBatch, BatchCore)``. This mixin is the only door to the core:

- **Options** are checked as :mod:`setgames.checks` checks ``raw_env``'s: a
  one-line ``ValueError`` naming the option and the value, nothing built.
  ``num_envs`` and ``num_threads`` are integers (not floats, not bools), seeds
  are integers ``0..2**63-1`` (``seed=True`` and ``2**63`` are refused, never
  reduced), and :attr:`num_threads` reports the threads the step really uses.
- **One caller at a time.** Every public method takes the batch's lock without
  waiting; a second thread calling into a batch that is busy gets a one-line
  ``RuntimeError`` ("in use by another thread") and nothing is touched. The C
  state is never entered by two threads, so no interleaving can corrupt it.
  (The batch's own thread pool is unaffected: the call that holds the lock
  splits its slots over the pool's workers without the GIL.) Reading the
  arrays (``b.obs``, ``b.mask``, ...) takes no lock; they are read-only views
  of memory that only the batch writes and no caller can resize or free
  (``setgames/batch/_buffers.pxd``).
- **Fork.** A child forked while the pool's workers sleep or spin makes a new
  pool on its first call (the parent's threads do not exist there; the C
  side never touches their locks, ``setgames/batch/_pool.pxd``), and may step
  or drop the batch. A child forked while another thread was inside a call
  holds a batch that call may have left half-written: every call but
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

import os
import threading
from typing import Any

import numpy as np

from setgames.batch.modes import DEFAULT_AUTORESET, autoreset_mode
from setgames.checks import check_choice, check_int, check_real, check_seed, short_repr

__all__ = ["ILLEGAL_ACTION_MODES", "MAX_ENVS", "MAX_ILLEGAL_REWARD", "MAX_THREADS", "SHORT_DEAL_MODES",
           "GreedyFeaturesDoor",
           "GuardedBatch", "as_actions"]

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
    >>> as_actions(np.array([1.0, 2.0]), 2)
    Traceback (most recent call last):
    ValueError: actions must be integers of shape (2,) (an integer ndarray or a list of ints), got float64 (2,)
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


class GuardedBatch:
    """The checked, thread- and fork-safe front of a game's compiled ``BatchCore`` (see the
    module doc; the protocol is :mod:`setgames.batch`'s)."""

    def __init__(self, game: Any, num_envs: Any, seed: Any = None, num_threads: Any = 1, opponents: Any = None,
                 learner_seat: Any = 0, autoreset: Any = DEFAULT_AUTORESET, illegal_action: str = "raise",
                 illegal_reward: Any = -1.0, short_deals: str = "skip"):
        from setgames.batch import LEARNER_SEAT_MODES, OPPONENTS

        num_envs = check_int("num_envs", num_envs, 1, MAX_ENVS)
        num_threads = check_int("num_threads", num_threads, 1, MAX_THREADS)
        if seed is not None:
            seed = check_seed(seed)
        if opponents not in OPPONENTS:
            raise ValueError(f"opponents {short_repr(opponents)} is not one of {OPPONENTS}")
        players = game.num_players
        if isinstance(learner_seat, str):
            check_choice("learner_seat", learner_seat, LEARNER_SEAT_MODES)
        else:
            learner_seat = check_int("learner_seat", learner_seat, 0, players - 1)
        autoreset = autoreset_mode(autoreset)
        illegal_action = check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        illegal_reward = check_real("illegal_reward", illegal_reward, -MAX_ILLEGAL_REWARD, MAX_ILLEGAL_REWARD)
        short_deals = check_choice("short_deals", short_deals, SHORT_DEAL_MODES)
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self._dealt = False
        self._torn = False
        self._setup(game, num_envs, seed, num_threads, opponents, learner_seat, autoreset, illegal_action,
                    illegal_reward, short_deals)

    # ---------------------------------------------------------------- the door
    def _enter(self, name: str) -> None:
        """Take the batch for one call of ``name`` (see the module doc) or refuse in one line."""
        if self._pid != os.getpid():
            self._forked()
        if not self._lock.acquire(blocking=False):
            raise RuntimeError(f"{name}(): this batch is in use by another thread (a batch serves one "
                               f"call at a time: give each thread its own batch)")
        if name != "reset":
            if self._torn:
                self._lock.release()
                raise RuntimeError(f"{name}(): this process was forked while another thread was inside "
                                   f"the batch, which may be half-written: call reset() first")
            if not self._dealt:
                self._lock.release()
                raise ValueError(f"{name}() before reset()")

    def _forked(self) -> None:
        """First call in a forked child: a new pool and lock; torn if a call was in flight."""
        self._pid = os.getpid()
        if self._lock.locked():  # held by a thread of the parent, gone here: mid-call at the fork
            self._torn = True
        self._lock = threading.Lock()
        self._renew_pool()

    # ------------------------------------------------------------ the protocol
    def reset(self, seed: Any = None, mask: Any = None) -> None:
        """Deal a new game in every slot (or in the slots where the bool array ``mask`` is True).

        ``seed`` (an integer ``0..2**63-1``) re-seeds those slots: slot ``i``'s next game is the
        game of seed ``seed + i`` (mod 2**63); without it each slot deals its next game (index
        + 1), the first time from the master seed given at construction or fresh entropy.
        Rewards, terminations and the skipped-deal counts' last-step marks of the reset slots
        are zeroed. After a fork that caught the batch mid-call, only a reset of every slot
        is accepted.
        """
        self._enter("reset")
        try:
            if seed is not None:
                seed = check_seed(seed)
            if self._torn and mask is not None and not np.all(mask):
                raise RuntimeError("reset(mask=...): this batch was caught mid-call by a fork; reset "
                                   "every slot (mask=None) first")
            self._reset(seed, mask)
            self._dealt = True
            self._torn = False
        finally:
            self._lock.release()

    def step(self, actions: Any) -> None:
        """Play ``actions[i]`` in slot ``i`` (the seat to act's, or the learner's, move), then the
        opponents, game ends and autoresets; the arrays are updated in place.

        ``actions``: an integer ndarray or a list of ints, shape ``(num_envs,)``. Slots that take
        no action (dealing at this step under ``"next_step"``) ignore theirs.

        Raises:
            ValueError: a wrong shape or type, an action out of range or illegal in its slot
                (under ``illegal_action="raise"``: naming the slot, the action and the legal ids),
                or, with autoreset disabled, a slot whose game is over; no slot moves.
        """
        self._enter("step")
        try:
            actions = as_actions(actions, self.num_envs)
            if self.autoreset == "disabled":
                over = self._over_slots()
                if over.size:
                    raise ValueError(f"step(): the game of slot(s) {short_repr(over.tolist(), 60)} is over and "
                                     f"autoreset is disabled: reset them first (reset(mask=...)); no slot moved")
            self._step(actions)
        finally:
            self._lock.release()

    def sample(self, rng: Any = None, out: Any = None) -> np.ndarray:
        """A uniform random legal action in every slot, drawn in C (see the game's ``BatchCore._sample``)."""
        self._enter("sample")
        try:
            return self._sample(rng, out)
        finally:
            self._lock.release()

    def legal_actions(self, slot: Any) -> list[int]:
        """The legal action ids of slot ``slot``'s game now, ascending (empty once over)."""
        self._enter("legal_actions")
        try:
            return self._legal_actions(check_int("slot", slot, 0, self.num_envs - 1))
        finally:
            self._lock.release()

    def state(self, slot: Any) -> Any:
        """A rules-layer copy of slot ``slot``'s current position (for pictures and analysis:
        the cards, zones, seat and phase; the event log, which the batch does not keep, is empty)."""
        self._enter("state")
        try:
            return self._state(check_int("slot", slot, 0, self.num_envs - 1))
        finally:
            self._lock.release()

    def greedy_actions(self, out: Any = None) -> np.ndarray:
        """The compiled greedy bot's move for the seat to act in every slot (see ``BatchCore._greedy_actions``)."""
        self._enter("greedy_actions")
        try:
            return self._greedy_actions(out)
        finally:
            self._lock.release()

    def greedy_returns(self, out: Any = None, slots: Any = None, redeals: Any = 0) -> np.ndarray:
        """Every legal action's return under greedy play to the end (see ``BatchCore._greedy_returns``)."""
        self._enter("greedy_returns")
        try:
            return self._greedy_returns(out, slots, redeals)
        finally:
            self._lock.release()


class GreedyFeaturesDoor:
    """The guarded ``greedy_features()`` of a batch whose game has greedy features (Tet Hsi, Bharg)."""

    def greedy_features(self, out: Any = None) -> np.ndarray:
        """What the greedy bot weighs for each move of the seat to act in every slot (see
        ``BatchCore._greedy_features``)."""
        self._enter("greedy_features")  # type: ignore[attr-defined]
        try:
            return self._greedy_features(out)  # type: ignore[attr-defined]
        finally:
            self._lock.release()  # type: ignore[attr-defined]
