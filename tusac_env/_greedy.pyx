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
engine's; this module holds only the player's preferences: the meld values of
:mod:`tusac_env.greedy_prefs`, the Python bot's own table, copied here when
this module loads (no other import is needed first). :func:`play_greedy`
plays it for every seat to the end of the game (or a step limit) without
leaving C but for the game end's scoring.
"""

from libc.stdio cimport fprintf, stderr
from libc.stdlib cimport abort
from libc.string cimport memcpy

from tusac_env._engine cimport (NT, Engine, TSState, ts_legal, ts_meld_kind, ts_meld_rest, ts_meld_trash,
                               ts_outs_sum, ts_unseen, ts_worst)

from tusac_env.greedy_prefs import MELD_VALUE
from tusac_env.layout import DISCARD0 as _PY_DISCARD0
from tusac_env.layout import HIT as _PY_HIT
from tusac_env.melds import MELDS
from tusac_env.state import PUBLIC_KINDS, Phase

__all__ = ["greedy_action", "outs_sum", "play_greedy"]

cdef int DISCARD0 = _PY_DISCARD0
cdef int HIT = _PY_HIT
cdef int PH_DISCARD = int(Phase.DISCARD)
cdef int PH_OVER = int(Phase.OVER)
cdef int KIND_VALUE[16]  # public kind index -> the greedy bot's meld preference
cdef bint KIND_VALUES_SET = False  # True once _fill_kind_values() has run (at this module's load)


cdef extern from *:
    int __builtin_ctz(unsigned int) nogil
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_clzll(unsigned long long) nogil


def _fill_kind_values():
    """Copy :data:`tusac_env.greedy_prefs.MELD_VALUE` into ``KIND_VALUE`` (once, at load)."""
    global KIND_VALUES_SET
    # A meld kind without a value would be played with some other preference than the
    # Python bot's (which raises on it): refuse to load instead. Not an ImportError, which
    # tusac_env.greedy takes for a build without a C compiler.
    missing = sorted({kind for options in MELDS for _, kind, _ in options} - MELD_VALUE.keys())
    if missing:
        raise RuntimeError(f"tusac_env._greedy: no meld value for {missing} (tusac_env/greedy_prefs.py)")
    if len(PUBLIC_KINDS) > 16:
        raise RuntimeError("tusac_env._greedy: more set kinds than KIND_VALUE holds")
    for i, name in enumerate(PUBLIC_KINDS):
        KIND_VALUE[i] = MELD_VALUE.get(name, 0)  # quan and khui: never a meld the bot chooses
    KIND_VALUES_SET = True


_fill_kind_values()


cdef void _unset_abort() noexcept nogil:
    # ts_greedy runs without the GIL inside the batch's step, where it cannot raise; a bot
    # without its preferences would play another game silently, so stop the process.
    fprintf(stderr, b"tusac_env._greedy: ts_greedy called before the meld values were set\n")
    abort()


def outs_sum(Engine engine, counts, unseen):
    """The engine's sum of outs over a block (as :func:`setgames.kernels.tusac.outs`, summed)."""
    cdef unsigned char r[NT]
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
    cdef unsigned char rest[NT]
    cdef int unseen[NT]
    if not KIND_VALUES_SET:
        _unset_abort()
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
            memcpy(rest, e.seats[cur].private, NT)
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
        raise RuntimeError("tusac_env._greedy: the meld values are unset (the module did not finish loading)")
    if engine.st.phase == PH_OVER:
        raise ValueError("the game is over: no action to choose")
    return ts_greedy(&engine.st)


def play_greedy(Engine engine, int limit):
    """Play the greedy bot for every seat until the game ends or ``limit`` steps;
    the per-seat returns (a tuple) when it ended, else None."""
    cdef int steps = 0
    if not KIND_VALUES_SET:
        raise RuntimeError("tusac_env._greedy: the meld values are unset (the module did not finish loading)")
    while engine.st.phase != PH_OVER and steps < limit:
        engine._step(ts_greedy(&engine.st))
        steps += 1
    if engine.st.phase == PH_OVER:
        return tuple(engine.returns)
    return None
