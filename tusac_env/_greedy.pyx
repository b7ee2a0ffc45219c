# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The greedy Tu Sac player compiled on the engine's C state (ISMCTS's rollouts).

The same choices as :class:`tusac_env.greedy.GreedyTuSacBot` (the
reference: ``tests/tusac/test_greedy_engine.py`` plays both on the
same positions and compares every move), read from a
:class:`tusac_env._engine.Engine` (declared in ``tusac_env/_engine.pxd``)
instead of a rules-layer state (:c:func:`ts_greedy` runs on the engine's C
struct without the GIL, for the batched engine's opponents too):

- discard: a worst card (the engine's hint), among several the one whose
  removal leaves the most outs;
- meld or not: the legal meld leaving the least trash, then the most valuable
  set, then the most outs; none, hit or pass.

The rules quantities (trash after a meld, outs, the worst cards) are the
engine's; this module holds only the player's preferences (the kind values are
the Python bot's, handed over by :func:`set_kind_values`). :func:`play_greedy`
plays it for every seat to the end of the game (or a step limit) without
leaving C but for the game end's scoring.
"""

from libc.string cimport memcpy

from tusac_env._engine cimport (NT, Engine, TSState, ts_legal, ts_meld_kind, ts_meld_rest, ts_meld_trash,
                               ts_outs_sum, ts_unseen, ts_worst)

from tusac_env.layout import DISCARD0 as _PY_DISCARD0
from tusac_env.layout import HIT as _PY_HIT
from tusac_env.state import PUBLIC_KINDS, Phase

__all__ = ["greedy_action", "outs_sum", "play_greedy", "set_kind_values"]

cdef int DISCARD0 = _PY_DISCARD0
cdef int HIT = _PY_HIT
cdef int PH_DISCARD = int(Phase.DISCARD)
cdef int PH_OVER = int(Phase.OVER)
cdef int KIND_VALUE[16]  # public kind index -> the greedy bot's meld preference
cdef bint KIND_VALUES_SET = False


cdef extern from *:
    int __builtin_ctz(unsigned int) nogil
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_clzll(unsigned long long) nogil


def set_kind_values(values):
    """The greedy bot's meld preference per set kind (``{kind name: value}``, 1 when absent)."""
    global KIND_VALUES_SET
    for i, name in enumerate(PUBLIC_KINDS):
        KIND_VALUE[i] = int(values.get(name, 1))
    KIND_VALUES_SET = True


def outs_sum(Engine engine, counts, unseen):
    """The engine's sum of outs over a block (as :func:`setgames.kernels.tusac.outs`, summed)."""
    cdef int r[NT]
    cdef int u[NT]
    cdef int t
    for t in range(NT):
        r[t] = counts[t]
        u[t] = unseen[t]
    return ts_outs_sum(&engine.st, r, u)


cdef int ts_greedy(TSState *e) noexcept nogil:
    """The greedy bot's action for the current seat of ``e`` (a game not over)."""
    cdef int cur = e.current, t, best, key, best_key, idx, trash, kv, best_trash, best_kv
    cdef unsigned long long legal = ts_legal(e)
    cdef unsigned long long melds
    cdef unsigned int worst
    cdef int rest[NT]
    cdef int unseen[NT]
    if legal & (legal - 1) == 0:
        return __builtin_ctzll(legal)
    ts_unseen(e, cur, unseen)
    if e.phase == PH_DISCARD:
        worst = ts_worst(e)
        if worst == 0:
            worst = <unsigned int>(legal >> DISCARD0)
        if worst & (worst - 1) == 0:
            return DISCARD0 + __builtin_ctz(worst)
        best = -1
        best_key = -1
        while worst:  # ascending types; the first of equal keys stays (as the Python bot)
            t = __builtin_ctz(worst)
            worst &= worst - 1
            memcpy(rest, e.private[cur], NT * sizeof(int))
            rest[t] -= 1
            key = ts_outs_sum(e, rest, unseen)
            if key > best_key:
                best_key = key
                best = t
        return DISCARD0 + best
    melds = legal & ((1ULL << HIT) - 1)
    if melds == 0:
        return 63 - __builtin_clzll(legal)  # hit or pass: the last legal action
    best = -1
    best_trash = best_kv = best_key = 0
    while melds:  # ascending ids: the lowest id wins a tie, as the Python bot's -idx key
        idx = __builtin_ctzll(melds)
        melds &= melds - 1
        trash = ts_meld_trash(e, cur, idx)
        kv = KIND_VALUE[ts_meld_kind(e, idx)]
        ts_meld_rest(e, cur, idx, rest)
        key = ts_outs_sum(e, rest, unseen)
        if (best < 0 or trash < best_trash or (trash == best_trash and (
                kv > best_kv or (kv == best_kv and key > best_key)))):
            best, best_trash, best_kv, best_key = idx, trash, kv, key
    return best


def greedy_action(Engine engine):
    """The greedy bot's action for the engine's current seat (the game must not be over)."""
    if not KIND_VALUES_SET:
        raise RuntimeError("set_kind_values() first (tusac_env.greedy does it on import)")
    if engine.st.phase == PH_OVER:
        raise ValueError("the game is over: no action to choose")
    return ts_greedy(&engine.st)


def play_greedy(Engine engine, int limit):
    """Play the greedy bot for every seat until the game ends or ``limit`` steps;
    the per-seat returns (a tuple) when it ended, else None."""
    cdef int steps = 0
    if not KIND_VALUES_SET:
        raise RuntimeError("set_kind_values() first (tusac_env.greedy does it on import)")
    while engine.st.phase != PH_OVER and steps < limit:
        engine._step(ts_greedy(&engine.st))
        steps += 1
    if engine.st.phase == PH_OVER:
        return tuple(engine.returns)
    return None
