# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The greedy Bharg bot in C: :class:`bharg_env.greedy.GreedyBhargBot`'s move, without the GIL.

The same decisions as the Python bot (the reference; ``tests/bharg/test_greedy_c.py``
compares them in every position of thousands of games), on the engine's C state
(:file:`_engine.pxd`) and its C copy of :func:`setgames.kernels.bharg.evaluate`:
take the discard top when the hand it makes, after its best discard, ranks above
the hand held; else draw; discard the card leaving the best-ranked hand (all
bound, then the lowest unbound value, then the most bound cards), ties broken by
the ways to bind, then the lower value, then the lower id. The bot is
deterministic (it draws nothing). Batches use it for ``opponents="greedy"``.
"""

from libc.stdint cimport uint64_t
from libc.string cimport memset

from bharg_env._engine cimport BH_MAX_ACTIONS, BH_NCARDS, BConfig, BState, Engine, bh_evaluate, bh_legal

from bharg_env import greedy as _py
from bharg_env.rules import Phase
from setgames.cards import BHARG_VALUES, DECKTET_SUIT_MASKS
from setgames.kernels.bharg import PATTERNS as _PATTERNS

cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil

cdef int DRAW_DECK = _py.DRAW_DECK
cdef int TAKE_DISCARD = _py.TAKE_DISCARD
cdef int DISCARD0 = _py.DISCARD0
cdef int NUM_ACES = _py._NUM_ACES
cdef int DRAW_PHASE = _py._DRAW_PHASE
cdef int OVER_PHASE = int(Phase.OVER)
cdef int VALUE[BH_NCARDS]
cdef int PATTERN[BH_NCARDS]  # the card's suit pattern (index in the kernel's PATTERNS); -1: the Excuse
for _c in range(BH_NCARDS):
    VALUE[_c] = BHARG_VALUES[_c]
    PATTERN[_c] = _PATTERNS.index(DECKTET_SUIT_MASKS[_c]) if DECKTET_SUIT_MASKS[_c] else -1


cdef inline int _key(uint64_t hand, int ace) noexcept nogil:
    """:func:`bharg_env.greedy.hand_key` as one int ordered the same way
    (all bound, then minus the unbound value, then the bound count)."""
    cdef int bound, unbound
    cdef bint ab = bh_evaluate(hand, ace, &bound, &unbound)
    return (<int> ab) << 20 | (1023 - unbound) << 8 | bound


cdef inline int _ways(uint64_t hand, int ace, uint64_t unseen) noexcept nogil:
    """:func:`bharg_env.structure.ways_to_bind`. How many cards a hand binds depends on the suit
    patterns it holds, not on which card of a pattern (sets are made of suits; the Ace Pile
    binds by suit), so one evaluation serves every unseen card of a pattern; the Excuse
    (always bound, in no set) binds exactly itself and never counts."""
    cdef int base, bound, unbound, n = 0, c, pat
    cdef signed char binds[32]
    memset(binds, -1, sizeof(binds))
    bh_evaluate(hand, ace, &base, &unbound)
    while unseen:
        c = __builtin_ctzll(unseen)
        unseen &= unseen - 1
        pat = PATTERN[c]
        if pat < 0:
            continue
        if binds[pat] < 0:
            bh_evaluate(hand | (<uint64_t> 1) << c, ace, &bound, &unbound)
            binds[pat] = bound > base + 1
        n += binds[pat]
    return n


cdef int _best_discard(uint64_t hand, int ace, uint64_t unseen, bint ways, int *key) noexcept nogil:
    """``_best_discard``: the card to discard from ``hand``, its rank in ``key``; ``ways``
    False skips the ways-to-bind tie-break (the Python bot's ``unseen=None``)."""
    cdef int keys[BH_NCARDS]
    cdef int cards[BH_NCARDS]
    cdef int m = 0, i, c, top = -1, n_tied = 0, best = -1, a, w
    cdef long long k2, best2 = -1
    cdef uint64_t h = hand
    while h:
        c = __builtin_ctzll(h)
        cards[m] = c
        keys[m] = _key(hand & ~((<uint64_t> 1) << c), c if c < NUM_ACES else ace)
        if keys[m] > top:
            top = keys[m]
        m += 1
        h &= h - 1
    key[0] = top
    for i in range(m):
        if keys[i] == top:
            n_tied += 1
    if n_tied == 1 or not ways:
        # max over (-value, card): the lowest value, then the highest id
        for i in range(m):
            if keys[i] == top and (best < 0 or -VALUE[cards[i]] > -VALUE[best]
                                   or (VALUE[cards[i]] == VALUE[best] and cards[i] > best)):
                best = cards[i]
        return best
    for i in range(m):
        if keys[i] != top:
            continue
        c = cards[i]
        a = c if c < NUM_ACES else ace
        w = _ways(hand & ~((<uint64_t> 1) << c), a, unseen)
        # (ways, -value, -card) as one int ordered the same way
        k2 = (<long long> w) << 24 | (<long long> (255 - VALUE[c])) << 8 | (63 - c)
        if k2 > best2:
            best2 = k2
            best = c
    return best


cdef inline uint64_t _unseen(const BState *s, const BConfig *cfg, int seat) noexcept nogil:
    """:func:`bharg_env.structure.unseen_cards`: the deck and the opponents' cards not known."""
    cdef uint64_t seen = s.hands[seat] | s.disc_mask, all_cards = 0
    cdef int i
    for i in range(s.aces_len):
        seen |= (<uint64_t> 1) << s.aces[i]
    for i in range(cfg.n):
        if i != seat:
            seen |= s.known[i]
    for i in range(cfg.ndeck):
        all_cards |= (<uint64_t> 1) << cfg.deck_cards[i]
    return all_cards & ~seen


cdef int bh_ways(uint64_t hand, int ace, uint64_t unseen) noexcept nogil:
    """:func:`bharg_env.structure.ways_to_bind`, for the other compiled modules (the structure
    observation counts the same outs)."""
    return _ways(hand, ace, unseen)


cdef uint64_t bh_unseen(const BState *s, const BConfig *cfg, int seat) noexcept nogil:
    """:func:`bharg_env.structure.unseen_cards`, for the other compiled modules."""
    return _unseen(s, cfg, seat)


cdef int bh_greedy(const BState *s, const BConfig *cfg) noexcept nogil:
    """The greedy bot's action for the seat to act in ``s`` (a game not over)."""
    cdef int legal[BH_MAX_ACTIONS]
    cdef int seat = s.seat, ace = s.aces[s.aces_len - 1] if s.aces_len else -1, key, card
    cdef uint64_t hand = s.hands[seat]
    if bh_legal(s, legal) == 1:
        return legal[0]
    if s.phase == DRAW_PHASE:
        _best_discard(hand | (<uint64_t> 1) << s.discard[s.disc_len - 1], ace, 0, False, &key)
        return TAKE_DISCARD if key > _key(hand, ace) else DRAW_DECK
    card = _best_discard(hand, ace, _unseen(s, cfg, seat), True, &key)
    return DISCARD0 + card


cdef int NF = len(_py.FEATURES)
assert NF == 5  # the rows bh_greedy_features writes


cdef void bh_greedy_features(const BState *s, const BConfig *cfg, float *out) noexcept nogil:
    """:func:`bharg_env.greedy.greedy_features` for the seat to act, into ``out``
    (``BH_MAX_ACTIONS x 5`` floats, row-major; zeros once the game is over)."""
    cdef int legal[BH_MAX_ACTIONS]
    cdef int seat = s.seat, ace = s.aces[s.aces_len - 1] if s.aces_len else -1
    cdef int m, k, a, c, key, top, bound, unbound
    cdef bint ab
    cdef uint64_t hand = s.hands[seat], h, unseen
    cdef float *row
    memset(out, 0, BH_MAX_ACTIONS * NF * sizeof(float))
    if s.phase == OVER_PHASE:
        return
    m = bh_legal(s, legal)
    if s.phase == DRAW_PHASE:
        for k in range(m):
            a = legal[k]
            row = out + a * NF
            if a == DRAW_DECK:
                ab = bh_evaluate(hand, ace, &bound, &unbound)
            else:
                _best_discard(hand | (<uint64_t> 1) << s.discard[s.disc_len - 1], ace, 0, False, &key)
                ab, unbound, bound = key >> 20, 1023 - (key >> 8 & 0xFFF), key & 0xFF
            row[0], row[1], row[2] = ab, unbound / 10.0, bound / 8.0
        return
    unseen = _unseen(s, cfg, seat)
    for k in range(m):
        a = legal[k]
        c = a - DISCARD0
        row = out + a * NF
        h = hand & ~((<uint64_t> 1) << c)
        top = c if c < NUM_ACES else ace
        ab = bh_evaluate(h, top, &bound, &unbound)
        row[0], row[1], row[2] = ab, unbound / 10.0, bound / 8.0
        row[3], row[4] = VALUE[c] / 10.0, _ways(h, top, unseen) / 10.0


def greedy_features(Engine engine):
    """The compiled :func:`bharg_env.greedy.greedy_features` in ``engine``'s position, shape
    ``(num_actions, 5)`` (the engine route of :func:`bharg_env.greedy.greedy_features_engine`)."""
    import numpy as np
    out = np.zeros((BH_MAX_ACTIONS, NF), np.float32)
    cdef float[:, ::1] view = out
    bh_greedy_features(&engine.st, &engine.cfg, &view[0, 0])
    return out


def greedy_action(Engine engine):
    """The compiled greedy action in ``engine``'s position (a game not over), for tests."""
    if engine.st.phase == OVER_PHASE:
        raise ValueError("the game is over")
    return bh_greedy(&engine.st, &engine.cfg)
