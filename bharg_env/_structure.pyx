# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Bharg's ``structure`` observation block in C, without the GIL: the bytes
:func:`bharg_env.structure.structure_block` (the reference; ``tests/bharg/test_structure.py``
compares them on random positions of every config) writes after the cards vector.

One implementation serves the compiled engine (:func:`install` hands it
:c:func:`bh_structure`; the engine cannot cimport this module, which cimports it) and the
batch's observation writer. Every figure is a call of the engine's C binding kernel
(:c:func:`bh_evaluate`) or of the compiled greedy bot's outs count and unseen cards (the
same facts the bot weighs, not its choice).

Speed: how many cards a hand binds depends on the suit patterns it holds, not on which card
of a pattern (bharg_env/README.md, rules choice 11: sets are made of suits; the Ace Pile
binds by suit), so the unseen cards are walked one pattern at a time; and one pass over the
kernel's pattern-level sets (74 of them) against the patterns the hand holds says which
cards are in some set of the hand (a card in none binds only by the Ace Pile's suit, or as
the Excuse: what it adds or takes away needs no evaluation) and which cards a drawn card of
each pattern makes a set with (its outs), with no table lookup per pattern.
"""

from libc.stdint cimport uint32_t, uint64_t
from libc.string cimport memset

from bharg_env._engine cimport BH_MAX_ACTIONS, BH_NCARDS, BConfig, BState, Engine, bh_evaluate, bh_legal
from bharg_env._greedy cimport bh_ways, bh_unseen

from bharg_env.rules import ACTION_SPEC, DISCARD0, NUM_ACES, OBS_SPEC, STRUCTURE_OBS_SPEC, TAKE_DISCARD, Phase
from setgames.cards import BHARG_VALUES, DECKTET_SUIT_MASKS, EXCUSE_ID
from setgames.kernels import bharg as _kernel
from setgames.kernels.bharg import PATTERNS as _PATTERNS

cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_popcountll(unsigned long long) nogil
    int __builtin_ctz(unsigned int) nogil

cdef int BLOCK_START = OBS_SPEC.size
_SL = {k: v.start - OBS_SPEC.size for k, v in STRUCTURE_OBS_SPEC.slices.items() if v.start >= OBS_SPEC.size}
cdef int O_NEED = _SL["card_need"]
cdef int O_TRASH = _SL["card_trash"]
cdef int O_IN_SET = _SL["card_in_set"]
cdef int O_OUTS = _SL["card_outs"]
cdef int O_FEEDS = _SL["card_feeds"]
cdef int O_BOUND = _SL["bound"]
cdef int O_ALL = _SL["all_bound"]
cdef int O_UNBOUND = _SL["unbound_value"]
cdef int O_WAYS = _SL["ways"]
cdef int O_UNSEEN = _SL["unseen"]
cdef int O_TOP = _SL["top_gain"]
cdef int O_OPP_B = _SL["opp_bound"]
cdef int O_OPP_U = _SL["opp_unbound_value"]
cdef int BLOCK_SIZE = STRUCTURE_OBS_SPEC.size - OBS_SPEC.size
assert list(_SL) == ["card_need", "card_trash", "card_in_set", "card_outs", "card_feeds", "bound", "all_bound",
                     "unbound_value", "ways", "unseen", "top_gain", "opp_bound", "opp_unbound_value"], \
    "Bharg's structure layout changed"

_AF = {k: v.start for k, v in ACTION_SPEC.slices.items()}
assert list(_AF) == ["kind", "card", "ace_change", "bound_after", "all_bound_after", "unbound_after",
                     "ways_after", "card_value", "card_feeds"], "Bharg's action feature layout changed"
cdef int AF = ACTION_SPEC.size
cdef int A_KIND = _AF["kind"]
cdef int A_CARD = _AF["card"]
cdef int A_ACE = _AF["ace_change"]
cdef int A_BOUND = _AF["bound_after"]
cdef int A_ALL = _AF["all_bound_after"]
cdef int A_UNBOUND = _AF["unbound_after"]
cdef int A_WAYS = _AF["ways_after"]
cdef int A_VALUE = _AF["card_value"]
cdef int A_FEEDS = _AF["card_feeds"]
cdef int C_DISCARD0 = DISCARD0
cdef int C_TAKE = TAKE_DISCARD
cdef int C_NUM_ACES = NUM_ACES
cdef int PH_OVER = int(Phase.OVER)

cdef int NPAT = len(_PATTERNS)
cdef int VALUE[BH_NCARDS]
cdef int PATTERN[BH_NCARDS]  # the card's suit pattern (index in the kernel's PATTERNS); -1: the Excuse
cdef uint64_t PATTERN_CARDS[32]  # per pattern, its cards
for _c in range(BH_NCARDS):
    VALUE[_c] = BHARG_VALUES[_c]
    PATTERN[_c] = _PATTERNS.index(DECKTET_SUIT_MASKS[_c]) if DECKTET_SUIT_MASKS[_c] else -1
for _p in range(32):
    PATTERN_CARDS[_p] = 0
for _c in range(BH_NCARDS):
    if PATTERN[_c] >= 0:
        PATTERN_CARDS[PATTERN[_c]] |= (<uint64_t> 1) << _c


# The kernel's pattern-level set tables (setgames.kernels.bharg: _FITTAB, _COVER_CARDS), for a
# cheap test of whether a card is in any set of a hand: a card in none binds only by the Ace
# Pile's suit (or as the Excuse), so what it adds or takes away needs no evaluation.
_COVERS = _kernel._pattern_covers()
assert len(_COVERS) <= 128 and _kernel._FIT_CHUNK == 10
cdef uint64_t FIT_LO[5][1024]    # per 10-bit chunk of a pattern code: the sets 0..63 it allows
cdef uint64_t FIT_HI[5][1024]    # ... and 64..127
cdef uint64_t COVER_CARDS[128]   # per pattern-level set: every card of its patterns
cdef uint64_t WITH_LO[32]        # per pattern: the pattern-level sets using it, 0..63 ...
cdef uint64_t WITH_HI[32]        # ... and 64..127
cdef uint64_t CARD_CODE[BH_NCARDS]
cdef uint32_t COVER_PATTERNS[128]  # per pattern-level set: its patterns, a bit each
cdef int NCOVERS = len(_COVERS)
for _i, _cov in enumerate(_COVERS):
    COVER_PATTERNS[_i] = sum(1 << _p for _p in _cov)
cdef uint64_t ANCHOR[7]          # per Ace Pile state (0: none, 1 + suit): the cards it binds
for _i in range(7):
    ANCHOR[_i] = _kernel.ANCHOR_MASKS[_i]
cdef int EXCUSE = EXCUSE_ID
for _j in range(5):
    for _i in range(1024):
        FIT_LO[_j][_i] = _kernel._FITTAB[_j][_i] & 0xFFFFFFFFFFFFFFFF
        FIT_HI[_j][_i] = _kernel._FITTAB[_j][_i] >> 64
for _i in range(128):
    COVER_CARDS[_i] = _kernel._COVER_CARDS[_i] if _i < len(_COVERS) else 0
for _p in range(32):
    WITH_LO[_p] = sum(1 << _i for _i, _cov in enumerate(_COVERS) if _p in _cov and _i < 64)
    WITH_HI[_p] = sum(1 << (_i - 64) for _i, _cov in enumerate(_COVERS) if _p in _cov and _i >= 64)
for _c in range(BH_NCARDS):
    CARD_CODE[_c] = _kernel.CARD_CODES[_c]


cdef inline void _fit(uint64_t code, uint64_t *lo, uint64_t *hi) noexcept nogil:
    """The pattern-level sets whose patterns the hand of pattern code ``code`` all holds."""
    lo[0] = (FIT_LO[0][code & 1023] & FIT_LO[1][code >> 10 & 1023] & FIT_LO[2][code >> 20 & 1023]
             & FIT_LO[3][code >> 30 & 1023] & FIT_LO[4][code >> 40 & 1023])
    hi[0] = (FIT_HI[0][code & 1023] & FIT_HI[1][code >> 10 & 1023] & FIT_HI[2][code >> 20 & 1023]
             & FIT_HI[3][code >> 30 & 1023] & FIT_HI[4][code >> 40 & 1023])


cdef inline uint64_t _in_sets(uint64_t lo, uint64_t hi) noexcept nogil:
    """The cards of the patterns of the sets ``lo``/``hi`` (a hand's cards in some set: ``& hand``)."""
    cdef uint64_t m = 0
    while lo:
        m |= COVER_CARDS[__builtin_ctzll(lo)]
        lo &= lo - 1
    while hi:
        m |= COVER_CARDS[64 + __builtin_ctzll(hi)]
        hi &= hi - 1
    return m


cdef inline uint32_t _sets_with_one_more(uint64_t hand, uint64_t *inset, uint64_t *partners) noexcept nogil:
    """What one more card would make of ``hand``'s sets, from the patterns it holds: sets about
    patterns, and a pattern-level set is in the hand (or in the hand and a card of pattern
    ``q``) exactly when the hand holds each of its patterns (each but ``q``). Returns the
    patterns whose cards would be in some set of ``hand`` plus one of them; sets ``inset``
    to the hand's cards in some set of its own, and ``partners[q]`` to the hand's cards a
    card of pattern ``q`` would make a set with (zeroed here for the patterns returned)."""
    cdef uint32_t held = 0, miss, pats, out = 0
    cdef uint64_t h = hand, cards
    cdef int i, q, c
    while h:
        c = __builtin_ctzll(h)
        h &= h - 1
        if PATTERN[c] >= 0:
            held |= (<uint32_t> 1) << PATTERN[c]
    inset[0] = 0
    for i in range(NCOVERS):
        pats = COVER_PATTERNS[i]
        miss = pats & ~held
        if miss & (miss - 1):
            continue  # two or more patterns missing: one more card makes no such set
        cards = COVER_CARDS[i] & hand
        if miss:
            q = __builtin_ctz(miss)
            if not (out >> q & 1):
                partners[q] = 0
                out |= miss
            partners[q] |= cards
            continue
        inset[0] |= cards
        while pats:  # a card of any of its patterns replaces the hand's: a set with the others
            q = __builtin_ctz(pats)
            pats &= pats - 1
            if not (out >> q & 1):
                partners[q] = 0
                out |= (<uint32_t> 1) << q
            partners[q] |= cards & ~PATTERN_CARDS[q]
    return out


cdef inline uint64_t _code(uint64_t hand) noexcept nogil:
    cdef uint64_t code = 0
    while hand:
        code += CARD_CODE[__builtin_ctzll(hand)]
        hand &= hand - 1
    return code


cdef inline int _bound(uint64_t hand, int ace) noexcept nogil:
    cdef int b, u
    bh_evaluate(hand, ace, &b, &u)
    return b


cdef void bh_structure(const BState *s, const BConfig *cfg, int seat, char *out) noexcept nogil:
    """The structure block of ``seat``'s view of ``s`` into the ``BLOCK_SIZE`` bytes at ``out``."""
    cdef int n = cfg.n, ace = s.aces[s.aces_len - 1] if s.aces_len else -1
    cdef uint64_t hand = s.hands[seat], unseen = bh_unseen(s, cfg, seat), h, bit, k, rest, partners
    cdef uint64_t code_k, lo, hi, inset, always
    cdef uint64_t partner[32]
    cdef uint32_t with_one
    cdef int base_b, base_u, b, u, c, p, j, o, bu, cnt, ways = 0, x
    cdef bint ab
    memset(out, 0, BLOCK_SIZE)
    ab = bh_evaluate(hand, ace, &base_b, &base_u)
    # bound whatever the arrangement: the Ace Pile's suit, the Excuse
    always = (hand & ANCHOR[ace + 1]) | (hand & ((<uint64_t> 1) << EXCUSE))
    with_one = _sets_with_one_more(hand, &inset, partner)
    h = hand
    while h:
        c = __builtin_ctzll(h)
        bit = (<uint64_t> 1) << c
        h ^= bit
        if inset & bit:
            bh_evaluate(hand ^ bit, ace, &b, &u)
            out[O_IN_SET + c] = 1
        else:  # in no set: the arrangements without it are the hand's own
            b = base_b - (always & bit != 0)
            u = base_u if always & bit else base_u - VALUE[c]
        out[O_NEED + c] = base_b - b
        out[O_TRASH + c] = VALUE[c] > 0 and u == base_u - VALUE[c]
    # the unseen cards a pattern at a time: the cards each makes a set with, and the ways to bind
    for p in range(NPAT):
        rest = unseen & PATTERN_CARDS[p]
        if not rest:
            continue
        if not (with_one >> p & 1):
            continue  # u in no set: B(H + u) = B(H) + [u bound by the Ace], no way to bind, no out
        x = __builtin_ctzll(rest)
        cnt = __builtin_popcountll(rest)
        partners = partner[p]
        while partners:
            out[O_OUTS + __builtin_ctzll(partners)] += cnt
            partners &= partners - 1
        bu = _bound(hand | (<uint64_t> 1) << x, ace)
        if bu > base_b + 1:
            ways += cnt
    # each opponent's known cards: what they bind, and which of my cards would bind more of them
    for j in range(n - 1):
        o = seat + 1 + j
        if o >= n:
            o -= n
        k = s.known[o]
        if not k:
            continue
        bh_evaluate(k, ace, &b, &u)
        out[O_OPP_B + j] = b
        out[O_OPP_U + j] = u
        code_k = _code(k)
        h = hand
        while h:
            c = __builtin_ctzll(h)
            bit = (<uint64_t> 1) << c
            h ^= bit
            if PATTERN[c] < 0:
                continue  # the Excuse binds only itself
            _fit(code_k + CARD_CODE[c], &lo, &hi)
            if (lo & WITH_LO[PATTERN[c]] or hi & WITH_HI[PATTERN[c]]) and _bound(k | bit, ace) >= b + 2:
                out[O_FEEDS + c] += 1
    out[O_BOUND] = base_b
    out[O_ALL] = ab
    out[O_UNBOUND] = base_u
    out[O_WAYS] = ways
    out[O_UNSEEN] = __builtin_popcountll(unseen)
    if s.disc_len:
        x = s.discard[s.disc_len - 1]
        if PATTERN[x] >= 0 and with_one >> PATTERN[x] & 1:
            out[O_TOP] = _bound(hand | (<uint64_t> 1) << x, ace) - base_b
        else:  # the top would be in no set: it binds only itself (the Excuse, or by the Ace Pile's suit)
            out[O_TOP] = x == EXCUSE or (ANCHOR[ace + 1] >> x) & 1


cdef void bh_action_features(const BState *s, const BConfig *cfg, int seat, char *out) noexcept nogil:
    """:func:`bharg_env.structure.action_features` into the ``BH_MAX_ACTIONS x AF`` bytes at
    ``out`` (row-major; zero rows for actions not legal to ``seat``)."""
    cdef int legal[BH_MAX_ACTIONS]
    cdef int n = cfg.n, ace = s.aces[s.aces_len - 1] if s.aces_len else -1, m, i, a, card, top, b, u, j, o
    cdef int known_b[2]
    cdef uint64_t hand = s.hands[seat], unseen, h, k
    cdef uint64_t known[2]
    cdef char *row
    memset(out, 0, BH_MAX_ACTIONS * AF)
    if s.phase == PH_OVER or s.seat != seat:
        return
    unseen = bh_unseen(s, cfg, seat)
    for j in range(2):
        known[j] = 0
        known_b[j] = 0
    for j in range(n - 1):
        o = seat + 1 + j
        if o >= n:
            o -= n
        known[j] = s.known[o]
        if known[j]:
            known_b[j] = _bound(known[j], ace)
    m = bh_legal(s, legal)
    for i in range(m):
        a = legal[i]
        row = out + a * AF
        top = ace
        if a < C_DISCARD0:
            card = -1 if a < C_TAKE else s.discard[s.disc_len - 1]
            h = hand if card < 0 else hand | (<uint64_t> 1) << card
            row[A_KIND + a] = 1
        else:
            card = a - C_DISCARD0
            h = hand & ~((<uint64_t> 1) << card)
            if card < C_NUM_ACES:
                top = card
                row[A_ACE] = 1
            row[A_KIND + 2] = 1
            for j in range(n - 1):
                k = known[j]
                if k and _bound(k | (<uint64_t> 1) << card, ace) >= known_b[j] + 2:
                    row[A_FEEDS] += 1
        if card >= 0:
            row[A_CARD + card] = 1
            row[A_VALUE] = VALUE[card]
        row[A_ALL] = bh_evaluate(h, top, &b, &u)
        row[A_BOUND] = b
        row[A_UNBOUND] = u
        row[A_WAYS] = bh_ways(h, top, unseen)


def install(Engine engine):
    """Make ``engine``'s ``observe`` write the structure block after the cards vector."""
    engine.obs_block = bh_structure
    engine.obs_size = BLOCK_START + BLOCK_SIZE


def structure_block(Engine engine, int seat):
    """The block alone in ``engine``'s position, as a new int8 array (for tests)."""
    import numpy as np
    arr = np.zeros(BLOCK_SIZE, np.int8)
    cdef signed char[::1] view = arr
    bh_structure(&engine.st, &engine.cfg, seat, <char *> &view[0])
    return arr


def action_features(Engine engine, int seat):
    """The compiled :func:`bharg_env.structure.action_features` in ``engine``'s position:
    a new int8 array ``(num_actions, ACTION_SPEC.size)``."""
    import numpy as np
    arr = np.zeros((BH_MAX_ACTIONS, AF), np.int8)
    cdef signed char[:, ::1] view = arr
    bh_action_features(&engine.st, &engine.cfg, seat, <char *> &view[0, 0])
    return arr
