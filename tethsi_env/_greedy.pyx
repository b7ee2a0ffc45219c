# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The Tet Hsi greedy bot compiled: the same move as the Python ``GreedyTetHsiBot`` in every position.

The Python bot (the reference, with the reasons of each rule in its module
docstring) values a hand as the number of live cards completing each of its
pairs. This is the same arithmetic on card bitmasks, in integers (the Python
bot's floats hold only integers and the 3-point penalty: the comparisons come
out the same), without the GIL, so that the batched engine
(:mod:`tethsi_env._batch`) plays opponents inside its step. Exact ties at the
discard, which the Python bot breaks with ``rng.integers(2)``, draw the same
number from the generator given here (a numpy ``Generator``'s bit generator,
or a game's opponent stream in the batch), so a twin generator keeps the two
bots in step. ``tests/tethsi/test_greedy.py`` compares them at every position
of thousands of games.
"""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.string cimport memset
from numpy.random cimport bitgen_t

from setgames.batch._rng cimport sg_bitgen_next32, sg_lemire, sg_next32_fn
from setgames.cards import NUM_STANDARD
from setgames.kernels.tethsi import PAIRS_BY_CARD
from tethsi_env._engine cimport Engine, TState, th_legal, th_over

from tethsi_env import greedy as _py
from tethsi_env.layout import NOTHING, PAIR_OF_ACTION, PLAY_START, SET_START, TAKE, Phase

ctypedef unsigned long long u64

cdef extern from *:
    int popcount64 "__builtin_popcountll"(u64 x) nogil
    int ctz64 "__builtin_ctzll"(u64 x) nogil

cdef enum:
    NC = 36
    MAXA = 1024

assert NUM_STANDARD == NC
cdef u64 ALL = (1ULL << NC) - 1
cdef long SET_WEIGHT = 1000  # the Python bot's _SET_WEIGHT
cdef long FEED_PENALTY = 3   # the Python bot's _FEED_PENALTY
cdef long NEG = -(1L << 60)  # below any value (the Python bot's -1e18)
cdef int G_TAKE = TAKE
cdef int G_NOTHING = NOTHING
cdef int G_SET_START = SET_START
cdef int G_PLAY_START = PLAY_START
cdef int G_DISCARD = Phase.DISCARD
cdef int G_CHOOSE = Phase.CHOOSE
cdef u64 COMPLETE[NC][NC]    # [x][y]: cards z with {x, y, z} a Set
cdef signed char GX[MAXA]     # the pair (x, y) of a set action
cdef signed char GY[MAXA]


def _fill_tables():
    cdef int x, y, z, a
    for x in range(NC):
        for y in range(NC):
            COMPLETE[x][y] = 0
    for z in range(NC):
        for _m, x, y in PAIRS_BY_CARD[z]:
            COMPLETE[x][y] |= 1ULL << z
            COMPLETE[y][x] |= 1ULL << z
    for a in range(SET_START, PLAY_START):
        x, y = PAIR_OF_ACTION[a]
        GX[a] = x
        GY[a] = y
    # the Python bot's set test reads pairs in ascending card order; the layout's sets are x < y
    assert all(GX[a] < GY[a] for a in range(SET_START, PLAY_START))


_fill_tables()


cdef inline long _hand_value(u64 hand, u64 live) noexcept nogil:
    """Sum over the pairs of ``hand`` of how many ``live`` cards complete them."""
    cdef long total = 0
    cdef u64 rest
    cdef int x
    while hand:
        x = ctz64(hand)
        hand &= hand - 1
        rest = hand
        while rest:
            total += popcount64(COMPLETE[x][ctz64(rest)] & live)
            rest &= rest - 1
    return total


cdef inline long _contribution(int card, u64 hand, u64 live) noexcept nogil:
    """Live completions of the pairs ``card`` forms with the other cards of ``hand``."""
    cdef long total = 0
    hand &= ~(1ULL << card)
    while hand:
        total += popcount64(COMPLETE[card][ctz64(hand)] & live)
        hand &= hand - 1
    return total


cdef inline u64 _fed(u64 opp_front) noexcept nogil:
    """The cards that complete a pair of the opponent's front."""
    cdef u64 out = 0, rest
    cdef int x
    while opp_front:
        x = ctz64(opp_front)
        opp_front &= opp_front - 1
        rest = opp_front
        while rest:
            out |= COMPLETE[x][ctz64(rest)]
            rest &= rest - 1
    return out


cdef inline long _best_play(u64 hand, u64 live, u64 fed, int *card) noexcept nogil:
    """Value of the hand after the best card to play (the lowest card among equals), that card.

    The value of ``hand`` without ``c`` is the value of ``hand`` less ``c``'s
    contribution: the pairs without ``c`` stay as they were."""
    cdef long base = _hand_value(hand, live), best = NEG, v
    cdef u64 rest = hand
    cdef int c
    card[0] = -1
    while rest:
        c = ctz64(rest)
        rest &= rest - 1
        v = base - _contribution(c, hand, live)
        if (fed >> c) & 1:
            v -= FEED_PENALTY
        if v > best:
            best = v
            card[0] = c
    return best


cdef inline long _choose_value(u64 hand, u64 live, u64 fed, int r) noexcept nogil:
    """Value of the best choice with remaining card ``r``: set, take or nothing."""
    cdef long best = NEG, v
    cdef u64 h = hand, rest
    cdef int x, y, c
    cdef bint any_set = False
    while h:
        x = ctz64(h)
        h &= h - 1
        rest = h
        while rest:
            y = ctz64(rest)
            rest &= rest - 1
            if (COMPLETE[x][y] >> r) & 1:
                any_set = True
                v = _hand_value(hand & ~((1ULL << x) | (1ULL << y)), live)
                if v > best:
                    best = v
    if any_set:
        return SET_WEIGHT + best
    v = _best_play(hand | (1ULL << r), live & ~(1ULL << r), fed, &c)
    best = _hand_value(hand, live)
    return v if v > best else best


cdef int th_greedy(const TState *s, sg_next32_fn next32, void *rng) noexcept nogil:
    """The greedy action of the seat to act in the running game ``s``; an exact tie at the
    discard draws ``integers(2)`` from ``rng`` through ``next32``."""
    cdef int seat = s.seat, opp = seat ^ 1, n, i, a, best_a, c, r
    cdef int legal[MAXA]
    cdef u64 hand = s.concealed[seat] | s.front[seat]
    cdef u64 dead = hand | s.discard | s.set_cards[0] | s.set_cards[1] | s.front[opp]
    cdef u64 live = ALL & ~dead
    cdef u64 fed = _fed(s.front[opp])
    cdef long v1, v2, best, v
    n = th_legal(s, legal)
    if s.phase == G_DISCARD:
        v1 = _choose_value(hand, live, fed, legal[1])  # discarding the first leaves the second
        v2 = _choose_value(hand, live, fed, legal[0])
        if v1 == v2:
            return legal[sg_lemire(next32, rng, 2)]
        return legal[0] if v1 > v2 else legal[1]
    if s.phase == G_CHOOSE:
        best = NEG
        best_a = -1
        for i in range(2, n):  # the set actions, ascending: the lowest id wins a tie
            a = legal[i]
            v = _hand_value(hand & ~((1ULL << GX[a]) | (1ULL << GY[a])), live)
            if v > best:
                best = v
                best_a = a
        if best_a >= 0:
            return best_a
        r = s.remaining
        v = _best_play(hand | (1ULL << r), live & ~(1ULL << r), fed, &c)
        return G_TAKE if v > _hand_value(hand, live) else G_NOTHING
    _best_play(hand, live, fed, &c)
    return G_PLAY_START + c


cdef int NF = len(_py.FEATURES)
cdef int NROWS = _py.FEATURE_ROWS
assert NF == 6 and NROWS == 2 * NC + 2  # the table th_greedy_features writes


cdef inline double _opponent_use(int card, u64 opp_front, u64 live, double share) noexcept nogil:
    """:func:`tethsi_env.greedy.opponent_use`, in the same order of operations (the same double)."""
    cdef u64 rest = live & ~(1ULL << card), f = opp_front, g, r
    cdef long certain = 0, one_live = 0, two_live = 0
    cdef int x, y
    while f:
        x = ctz64(f)
        f &= f - 1
        g = f
        while g:
            y = ctz64(g)
            g &= g - 1
            certain += (COMPLETE[x][y] >> card) & 1
        one_live += popcount64(COMPLETE[card][x] & rest)
    r = rest
    while r:
        y = ctz64(r)
        r &= r - 1
        two_live += popcount64(COMPLETE[card][y] & rest)
    return certain + share * one_live + share * share * (two_live // 2)


cdef inline void _opponent_columns(float *out, const int *rows, const int *cards, int n, u64 opp_front,
                                   u64 live, double share) noexcept nogil:
    """The Python ``_opponent_columns``: ``opponent_use`` and its rank among the ``n`` rows."""
    cdef double use[NC]
    cdef int i, j, lower
    for i in range(n):
        use[i] = _opponent_use(cards[i], opp_front, live, share) if cards[i] >= 0 else 0.0
    for i in range(n):
        lower = 0
        for j in range(n):
            lower += use[j] < use[i]
        out[rows[i] * NF + 3] = use[i] / 4.0
        out[rows[i] * NF + 4] = lower / <double> (n - 1 if n > 1 else 1)


cdef void th_greedy_features(const TState *s, float *out) noexcept nogil:
    """:func:`tethsi_env.greedy.greedy_features` for the seat to act, into ``out``
    (``FEATURE_ROWS x 6`` floats, row-major; zeros once the game is over)."""
    cdef int seat = s.seat, opp = seat ^ 1, n, k, a, c, r
    cdef int legal[MAXA]
    cdef u64 hand = s.concealed[seat] | s.front[seat]
    cdef u64 dead = hand | s.discard | s.set_cards[0] | s.set_cards[1] | s.front[opp]
    cdef u64 live = ALL & ~dead
    cdef u64 fed = _fed(s.front[opp]), rest
    cdef long v, base, values[2]
    cdef int rows[NC], cards[NC]
    cdef bint made
    cdef int n_live = popcount64(live)
    cdef double share = popcount64(s.concealed[opp]) / <double> (n_live if n_live > 1 else 1)
    memset(out, 0, NROWS * NF * sizeof(float))
    if th_over(s):
        return
    if s.phase == G_DISCARD:
        n = th_legal(s, legal)
        values[0] = _choose_value(hand, live, fed, legal[1])
        values[1] = _choose_value(hand, live, fed, legal[0])
        for k in range(2):
            a = legal[k]
            v = values[k]
            made = v >= SET_WEIGHT
            out[a * NF + 5] = values[0] == values[1]
            out[a * NF] = made
            out[a * NF + 1] = (v - SET_WEIGHT * made) / 10.0
            rows[k] = a
            cards[k] = a
        _opponent_columns(out, rows, cards, 2, s.front[opp], live, share)
        return
    if s.phase == G_CHOOSE:
        r = s.remaining
        out[NC * NF + 1] = _best_play(hand | (1ULL << r), live & ~(1ULL << r), fed, &c) / 10.0
        out[(NC + 1) * NF + 1] = _hand_value(hand, live) / 10.0
        rows[0] = NC
        cards[0] = -1
        rows[1] = NC + 1
        cards[1] = r
        _opponent_columns(out, rows, cards, 2, s.front[opp], live, share)
        return
    base = _hand_value(hand, live)
    rest = hand
    n = 0
    while rest:
        c = ctz64(rest)
        rest &= rest - 1
        out[(NC + 2 + c) * NF + 1] = (base - _contribution(c, hand, live)) / 10.0
        out[(NC + 2 + c) * NF + 2] = (fed >> c) & 1
        rows[n] = NC + 2 + c
        cards[n] = c
        n += 1
    _opponent_columns(out, rows, cards, n, s.front[opp], live, share)


def greedy_features(Engine engine):
    """The compiled :func:`tethsi_env.greedy.greedy_features` in ``engine``'s position, shape
    ``(FEATURE_ROWS, 6)`` (the engine route of :func:`tethsi_env.greedy.greedy_features_engine`)."""
    import numpy as np
    out = np.zeros((NROWS, NF), np.float32)
    cdef float[:, ::1] view = out
    th_greedy_features(&engine.st, &view[0, 0])
    return out


def greedy_action(Engine engine, rng):
    """The compiled greedy action for the seat to act in ``engine``'s game; exact ties at the
    discard draw ``rng.integers(2)`` from the numpy ``Generator`` ``rng`` (in C, moving it
    as numpy would).

    Raises:
        ValueError: the game is over.
    """
    cdef bitgen_t *bg
    if engine.current_seat() < 0:
        raise ValueError("the game is over: no seat to act")
    bg = <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
    with rng.bit_generator.lock:
        return th_greedy(&engine.st, sg_bitgen_next32, bg)
