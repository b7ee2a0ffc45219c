# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The greedy Tu Sac player compiled on the engine's C state (ISMCTS's rollouts).

The same choices as :class:`setgames.bots.greedy_tusac.GreedyTuSacBot` (the
reference: ``tests/setgames/bots/test_tusac_greedy_engine.py`` plays both on the
same positions and compares every move), read from a
:class:`tusac_env._engine.Engine`'s arrays instead of a rules-layer state:

- discard: a worst card (the engine's hint), among several the one whose
  removal leaves the most outs;
- meld or not: the legal meld leaving the least trash, then the most valuable
  set, then the most outs; none, hit or pass.

:func:`play_greedy` plays it for every seat to the end of the game (or a step
limit) without leaving C but for the game end's scoring. The kind values and
the outs are the Python bot's and kernel's (tables copied at import, outs as
:func:`setgames.kernels.tusac.outs`, checked against it in the tests).
"""

from libc.string cimport memcpy

from tusac_env._engine cimport NCODE, NCOMP, NMELD, NT, Engine

from tusac_env import melds as _melds
from tusac_env.layout import DISCARD0 as _PY_DISCARD0
from tusac_env.layout import HIT as _PY_HIT
from tusac_env.state import PUBLIC_KINDS, Phase

__all__ = ["greedy_action", "outs_sum", "play_greedy", "set_kind_values"]

cdef int DISCARD0 = _PY_DISCARD0
cdef int HIT = _PY_HIT
cdef int PH_DISCARD = int(Phase.DISCARD)
cdef int PH_OVER = int(Phase.OVER)

cdef int COMP_OF[NT]
cdef int COMP_TRASH[NCOMP][NCODE]
cdef int MI_PLACE[NT][NMELD]
cdef int MI_NUSED[NT][NMELD]
cdef int MI_USED[NT][NMELD][3]
cdef int MI_KIND[NT][NMELD]
cdef int TRIO_Y[NT]
cdef int TRIO_Z[NT]
cdef int HELD[4]
cdef int KIND_VALUE[16]  # public kind index -> the greedy bot's meld preference
cdef bint KIND_VALUES_SET = False
HELD[0] = 0
HELD[1] = 1
HELD[2] = 1
HELD[3] = 0  # 3 is a Khap: it completes nothing


def _fill_tables():
    cdef int t, k, code, a, idx, j
    for t in range(NT):
        COMP_OF[t] = _melds.COMP_OF[t]
        TRIO_Y[t] = -1
        TRIO_Z[t] = -1
        if t % 7 != 6:
            trio = (0, 1, 2) if t % 7 < 3 else (3, 4, 5)
            y, z = [7 * (t // 7) + q for q in trio if q != t % 7]
            TRIO_Y[t] = y
            TRIO_Z[t] = z
    for k in range(NCOMP):
        for code in range(NCODE):
            COMP_TRASH[k][code] = _melds.COMP_TRASH[k][code] if code < len(_melds.COMP_TRASH[k]) else 0
    for a in range(NT):
        for idx in range(NMELD):
            MI_NUSED[a][idx] = -1
        for idx, info in _melds.MELD_BY_INDEX[a].items():
            MI_NUSED[a][idx] = len(info.used)
            for j in range(len(info.used)):
                MI_USED[a][idx][j] = info.used[j]
            MI_PLACE[a][idx] = info.place_sum
            MI_KIND[a][idx] = info.kind_index


_fill_tables()


def set_kind_values(values):
    """The greedy bot's meld preference per set kind (``{kind name: value}``, 1 when absent)."""
    global KIND_VALUES_SET
    for i, name in enumerate(PUBLIC_KINDS):
        KIND_VALUE[i] = int(values.get(name, 1))
    KIND_VALUES_SET = True


cdef inline int popcount32(unsigned int m) noexcept nogil:
    return __builtin_popcount(m)


cdef extern from *:
    int __builtin_popcount(unsigned int) nogil
    int __builtin_ctz(unsigned int) nogil
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_clzll(unsigned long long) nogil


cdef int _outs_sum(int *rest, int *unseen) noexcept nogil:
    """Sum over the held non-Khap types of ``rest`` of their outs (as :func:`setgames.kernels.tusac.outs`)."""
    cdef int t, y, z, c, total = 0, held = 0, every = 0, missing = 0
    cdef int h[4]
    for t in range(NT):
        y = TRIO_Y[t]
        if y < 0 or not HELD[rest[t]]:
            continue
        z = TRIO_Z[t]
        total += unseen[t]
        if HELD[rest[z]]:
            total += unseen[y]
        if HELD[rest[y]]:
            total += unseen[z]
    for c in range(4):
        h[c] = HELD[rest[7 * c + 6]]
        held += h[c]
        every += unseen[7 * c + 6]
        if not h[c]:
            missing += unseen[7 * c + 6]
    for c in range(4):
        if h[c]:
            if held >= 3:
                total += every
            elif held == 2:
                total += unseen[7 * c + 6] + missing
            else:
                total += unseen[7 * c + 6]
    return total


def outs_sum(counts, unseen):
    """Sum of :func:`setgames.kernels.tusac.outs` over a block (Khaps = types held 3 times)."""
    cdef int r[NT]
    cdef int u[NT]
    cdef int t
    for t in range(NT):
        r[t] = counts[t]
        u[t] = unseen[t]
    return _outs_sum(r, u)


cdef int _greedy(Engine e) except -1:
    """The greedy bot's action for the engine's current seat."""
    cdef int cur = e.current, t, best, key, best_key, a, k, code, idx, j, trash, kv
    cdef int best_trash, best_kv
    cdef unsigned long long legal = e._legal()
    cdef unsigned long long melds
    cdef unsigned int worst
    cdef int rest[NT]
    cdef int unseen[NT]
    if legal & (legal - 1) == 0:
        return __builtin_ctzll(legal)
    for t in range(NT):
        unseen[t] = 4 - e.private[cur][t] - e.exposed[t]
    if e.active >= 0:
        unseen[e.active] -= 1
    if e.phase == PH_DISCARD:
        worst = e._worst()
        if worst == 0:
            worst = <unsigned int>(legal >> DISCARD0)
        if worst & (worst - 1) == 0:
            return DISCARD0 + __builtin_ctz(worst)
        best = -1
        best_key = -1
        while worst:
            t = __builtin_ctz(worst)
            worst &= worst - 1
            memcpy(rest, e.private[cur], NT * sizeof(int))
            rest[t] -= 1
            key = _outs_sum(rest, unseen)
            if key > best_key:
                best_key = key
                best = t
        return DISCARD0 + best
    melds = legal & ((1ULL << HIT) - 1)
    if melds == 0:
        return 63 - __builtin_clzll(legal)  # hit or pass: the last legal action
    a = e.active
    k = COMP_OF[a]
    code = e.codes[cur][k]
    best = -1
    best_trash = best_kv = best_key = 0
    while melds:
        idx = __builtin_ctzll(melds)
        melds &= melds - 1
        trash = e.trash[cur] + COMP_TRASH[k][code - MI_PLACE[a][idx]] - COMP_TRASH[k][code]
        kv = KIND_VALUE[MI_KIND[a][idx]]
        memcpy(rest, e.private[cur], NT * sizeof(int))
        for j in range(MI_NUSED[a][idx]):
            rest[MI_USED[a][idx][j]] -= 1
        key = _outs_sum(rest, unseen)
        if (best < 0 or trash < best_trash or (trash == best_trash and (
                kv > best_kv or (kv == best_kv and key > best_key)))):
            best, best_trash, best_kv, best_key = idx, trash, kv, key
    return best


def greedy_action(Engine engine):
    """The greedy bot's action for the engine's current seat (the game must not be over)."""
    if not KIND_VALUES_SET:
        raise RuntimeError("set_kind_values() first (setgames.bots.greedy_tusac does it on import)")
    if engine.phase == PH_OVER:
        raise ValueError("the game is over: no action to choose")
    return _greedy(engine)


def play_greedy(Engine engine, int limit):
    """Play the greedy bot for every seat until the game ends or ``limit`` steps;
    the per-seat returns (a tuple) when it ended, else None."""
    cdef int steps = 0
    if not KIND_VALUES_SET:
        raise RuntimeError("set_kind_values() first (setgames.bots.greedy_tusac does it on import)")
    while engine.phase != PH_OVER and steps < limit:
        engine._apply(_greedy(engine))
        steps += 1
    if engine.phase == PH_OVER:
        return tuple(engine.returns)
    return None
