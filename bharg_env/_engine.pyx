# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, auto_pickle=False
"""Bharg's compiled engine: the game of :mod:`bharg_env.rules` in C.

The protocol and the reasons are in :mod:`setgames.engine`. The rules layer
stays the reference and ``tests/bharg/test_engine.py`` holds this module to it
step by step.

The game is a C struct (:file:`_engine.pxd`) stepped by ``nogil`` functions
defined once here: the deal, the legal mask and list, ``bh_apply`` (draw,
take, discard, the win check, the turn limit, a reshuffle, the end of a round
with its scoring, rewards and, in match play, the next deal) and the
observation, and the ``history`` mode's rows of a step's events
(``bh_history_push``). :class:`Engine` holds one struct for the AEC env, and
:class:`bharg_env._batch.Batch` an array of them, stepped in one call without
the GIL (the issue #17 protocol, :mod:`setgames.batch`).

Where each piece comes from (nothing about the game is derived here):

- the win check is :func:`setgames.kernels.bharg.all_bound_code` and the
  scoring :func:`setgames.kernels.bharg.evaluate` (the scalar path), on C
  copies of that kernel's own tables;
- every shuffle (the deals, the reshuffles) draws from numpy's
  ``PCG64([seed, draws])`` as the rules layer does, seeded in C
  (``setgames/batch/_rng.pxd``), so a game of the batch is the AEC env's;
- action ids and observation offsets are read from :mod:`bharg_env.rules`.
"""

from libc.stdint cimport uint64_t
from libc.stdlib cimport malloc
from libc.string cimport memcpy, memset

cimport numpy as cnp

from setgames._history cimport sg_event, sg_history_add, sg_history_block, sg_history_reset, sg_history_words
from setgames.batch._rng cimport (sg_interval, sg_pcg64, sg_pcg64_next32_v, sg_pcg64_next64,
                                  sg_pcg64_seed_seq, sg_shuffle_schar)

cnp.import_array()

from bharg_env import history as _history
from bharg_env import rules as _rules
from setgames.cards import NUM_DECKTET as _NUM_DECKTET
from setgames.engine import rebuild as _from_json_state
from setgames.kernels import bharg as _kernel

__all__ = ["Engine"]

# ----------------------------------------------------------------- constants
cdef enum:
    NCARDS = BH_NCARDS
    MAXPILE = BH_MAXPILE
    OBS_ROOM = 320   # observation scratch: the size plus room for 8-byte spills
    MAX_COVERS = 128  # pattern-level sets (the kernel has 74; two 64-bit words of fit bits)

cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil
    int __builtin_ctzll(unsigned long long) nogil

assert _NUM_DECKTET == NCARDS
cdef int DRAW_DECK = _rules.DRAW_DECK
cdef int DISCARD0 = _rules.DISCARD0
cdef int NUM_ACES = _rules.NUM_ACES
cdef int PH_DRAW = int(_rules.Phase.DRAW)
cdef int PH_DISCARD = int(_rules.Phase.DISCARD)
cdef int PH_OVER = int(_rules.Phase.OVER)
cdef int NUM_ACTIONS = _rules.make_layout().n
assert _rules.TAKE_DISCARD == DRAW_DECK + 1 and NUM_ACTIONS == DISCARD0 + NCARDS == BH_MAX_ACTIONS
assert PH_DRAW == 0 and PH_DISCARD == 1  # the phase feature is one-hot [draw, discard]
assert _rules._SEED_BOUND == 2**63  # the round-1 seed is one 64-bit draw shifted down (bh_new_game)

# The history rows' kind codes and the cap of their args, from the reference (bharg_env.history).
assert BH_HIST_LEN == _history.HISTORY_LENGTH and sg_history_words(BH_HIST_LEN, 3) == BH_HWORDS
cdef int HK_DEAL = _history._CODE["deal"]
cdef int HK_ACE = _history._CODE["ace_pile"]
cdef int HK_START = _history._CODE["start_discard"]
cdef int HK_DRAW = _history._CODE["draw"]
cdef int HK_TAKE = _history._CODE["take"]
cdef int HK_DISCARD = _history._CODE["discard"]
cdef int HK_RESHUFFLE = _history._CODE["reshuffle"]
cdef int HK_WIN = _history._CODE["win"]
cdef int HK_LIMIT = _history._CODE["turn_limit"]
cdef long long ARG_CAP = _history.ARG_CAP

# The rules layer's end reasons, by BState.reason.
REASONS = ("", "all bound", "target reached", "turn limit")

# Observation offsets, from the rules layer's ObsSpec.
_SL = _rules.OBS_SPEC.slices
cdef int O_HAND = _SL["hand"].start
cdef int O_ACE_TOP = _SL["ace_top"].start
cdef int O_ACE_PILE = _SL["ace_pile"].start
cdef int O_DTOP = _SL["discard_top"].start
cdef int O_DPILE = _SL["discard_pile"].start
cdef int O_OSIZE = _SL["opp_hand_size"].start
cdef int O_OKNOWN = _SL["opp_known"].start
cdef int O_DECK = _SL["deck_size"].start
cdef int O_PHASE = _SL["phase"].start
cdef int O_TO_ACT = _SL["to_act"].start
cdef int O_SCORES = _SL["scores"].start
cdef int O_TURNS = _SL["turns_left"].start
cdef int OBS_SIZE = _rules.OBS_SPEC.size
assert OBS_SIZE + 8 <= OBS_ROOM
# bh_observe writes the features in this order, the card-mask ones 8 bytes at a
# time (each spilling up to 3 bytes into the next feature, which is written
# after): it relies on this layout, checked here.
_WIDTHS = {"hand": NCARDS, "ace_top": 6, "ace_pile": 6, "discard_top": NCARDS, "discard_pile": NCARDS,
           "opp_hand_size": 2, "opp_known": 2 * NCARDS, "deck_size": 1, "phase": 2, "to_act": 3,
           "scores": 3, "turns_left": 1}
assert list(_SL) == list(_WIDTHS) and _SL["hand"].start == 0, "Bharg's observation layout changed"
assert all(_SL[k].stop - _SL[k].start == w for k, w in _WIDTHS.items()), "Bharg's observation layout changed"
assert all(_SL[a].stop == _SL[b].start for a, b in zip(list(_SL), list(_SL)[1:])), "a gap in the layout"

# The win check: setgames.kernels.bharg's tables, copied to C.
cdef uint64_t CARD_CODE[NCARDS]
cdef uint64_t NONANCHOR[7]
cdef uint64_t EVEN = _kernel._EVEN
cdef uint64_t GUARD = _kernel._GUARD
cdef uint64_t HMULT0 = _kernel._HASH_MULTS[0]
cdef uint64_t HMULT1 = _kernel._HASH_MULTS[1]
cdef int HSHIFT = 64 - _kernel._HASH_BITS
cdef int HSIZE = 1 << _kernel._HASH_BITS
cdef uint64_t *CK_KEY0
cdef uint64_t *CK_KEY1
cdef int *CK_ROW0
cdef int *CK_ROW1
cdef uint64_t *REQ_E   # [row * REQ_W + k]: requirement k of a row, even pattern fields
cdef uint64_t *REQ_O   # ... odd pattern fields (shifted down by 2)
cdef int REQ_W
# bits of a byte -> those 8 bits as 0/1 bytes (little-endian: byte i = bit i)
cdef uint64_t EXPAND[256]

# The scoring: the tables of the kernel's scalar evaluate().
cdef uint64_t CV[6][256]         # pattern code of a byte's cards | their value << CODE_BITS
cdef uint64_t FIT_LO[5][1024]    # fit masks of the pattern-level sets 0..63 ...
cdef uint64_t FIT_HI[5][1024]    # ... and 64..127
cdef int VTAB[6][256]
cdef uint64_t WORSE[6][256]
cdef uint64_t COVER_CARDS[MAX_COVERS]
cdef int COVER_SIZE[MAX_COVERS]
cdef uint64_t ANCHOR[7]
cdef uint64_t EXCUSE_BIT = _kernel._EXCUSE_BIT
cdef uint64_t LOW_BITS = _kernel._LOW_BITS
cdef int CODE_BITS = _kernel._CODE_BITS
cdef uint64_t CODE_MASK = _kernel._CODE_MASK
cdef int MAX_HAND = _kernel.MAX_HAND
assert _kernel._FIT_CHUNK == 10 and len(_kernel._FITTAB) == 5 and CODE_BITS <= 50
assert len(_kernel._COVER_CARDS) <= MAX_COVERS and len(_kernel.ANCHOR_MASKS) == 7


cdef void _init_tables() except *:
    """Copy the kernel's win-check and scoring tables to C (once, at import; never freed)."""
    global CK_KEY0, CK_KEY1, CK_ROW0, CK_ROW1, REQ_E, REQ_O, REQ_W
    cdef int i, k, rows, j
    for i in range(NCARDS):
        CARD_CODE[i] = _kernel.CARD_CODES[i]
    for i in range(7):
        NONANCHOR[i] = _kernel._NONANCHOR_FIELDS[i]
        ANCHOR[i] = _kernel.ANCHOR_MASKS[i]
    keys = _kernel._CK_KEY.tolist()
    slots = _kernel._CK_ROW.tolist()
    assert len(keys) == 2 and len(keys[0]) == HSIZE
    CK_KEY0 = <uint64_t *> malloc(HSIZE * sizeof(uint64_t))
    CK_KEY1 = <uint64_t *> malloc(HSIZE * sizeof(uint64_t))
    CK_ROW0 = <int *> malloc(HSIZE * sizeof(int))
    CK_ROW1 = <int *> malloc(HSIZE * sizeof(int))
    if CK_KEY0 is NULL or CK_KEY1 is NULL or CK_ROW0 is NULL or CK_ROW1 is NULL:
        raise MemoryError("bharg_env._engine: the win-check tables")
    for i in range(HSIZE):
        CK_KEY0[i] = keys[0][i]
        CK_KEY1[i] = keys[1][i]
        CK_ROW0[i] = slots[0][i]
        CK_ROW1[i] = slots[1][i]
    req = _kernel._REQ_SPLIT  # (2, width, rows)
    REQ_W = req.shape[1]
    rows = req.shape[2]
    even = req[0].T.tolist()
    odd = req[1].T.tolist()
    REQ_E = <uint64_t *> malloc(rows * REQ_W * sizeof(uint64_t))
    REQ_O = <uint64_t *> malloc(rows * REQ_W * sizeof(uint64_t))
    if REQ_E is NULL or REQ_O is NULL:
        raise MemoryError("bharg_env._engine: the win-check tables")
    for i in range(rows):
        for k in range(REQ_W):
            REQ_E[i * REQ_W + k] = even[i][k]
            REQ_O[i * REQ_W + k] = odd[i][k]
    for i in range(256):
        EXPAND[i] = 0
        for k in range(8):
            if i >> k & 1:
                EXPAND[i] |= (<uint64_t> 1) << (8 * k)
    for j in range(6):
        for i in range(256):
            CV[j][i] = _kernel._CVTAB[j][i]
            VTAB[j][i] = _kernel._VTAB[j][i]
            WORSE[j][i] = _kernel._WORSE[j][i]
    for j in range(5):
        for i in range(1024):
            f = _kernel._FITTAB[j][i]
            FIT_LO[j][i] = f & 0xFFFFFFFFFFFFFFFF
            FIT_HI[j][i] = f >> 64
    for i in range(len(_kernel._COVER_CARDS)):
        COVER_CARDS[i] = _kernel._COVER_CARDS[i]
        COVER_SIZE[i] = _kernel._COVER_SIZE[i]


_init_tables()


# ----------------------------------------------------------------- kernels in C
cdef inline int popcount(uint64_t m) noexcept nogil:
    return __builtin_popcountll(m)


cdef bint bh_all_bound_code(uint64_t code, int ace_top) noexcept nogil:
    """:func:`setgames.kernels.bharg.all_bound_code`, on the C copy of its tables."""
    cdef int a = ace_top + 1
    cdef uint64_t ncode = code & NONANCHOR[a]
    if ncode == 0:
        return True
    cdef uint64_t key = (<uint64_t> a) << 50 | ncode
    cdef uint64_t s = (key * HMULT0) >> HSHIFT
    cdef int row
    if CK_KEY0[s] == key:
        row = CK_ROW0[s]
    else:
        s = (key * HMULT1) >> HSHIFT
        if CK_KEY1[s] != key:
            return False
        row = CK_ROW1[s]
    cdef uint64_t have = code ^ ncode
    cdef uint64_t he = (have & EVEN) | GUARD
    cdef uint64_t ho = ((have >> 2) & EVEN) | GUARD
    cdef int k
    cdef int base = row * REQ_W
    for k in range(REQ_W):
        if ((he - REQ_E[base + k]) & GUARD) == GUARD and ((ho - REQ_O[base + k]) & GUARD) == GUARD:
            return True
    return False


cdef inline int _value(uint64_t m) noexcept nogil:
    return (VTAB[0][m & 255] + VTAB[1][m >> 8 & 255] + VTAB[2][m >> 16 & 255] + VTAB[3][m >> 24 & 255]
            + VTAB[4][m >> 32 & 255] + VTAB[5][m >> 40 & 255])


cdef inline uint64_t _worse(uint64_t m) noexcept nogil:
    return (WORSE[0][m & 255] | WORSE[1][m >> 8 & 255] | WORSE[2][m >> 16 & 255] | WORSE[3][m >> 24 & 255]
            | WORSE[4][m >> 32 & 255] | WORSE[5][m >> 40 & 255])


cdef bint bh_evaluate(uint64_t hand, int ace_top, int *bound, int *unbound) noexcept nogil:
    """:func:`setgames.kernels.bharg.evaluate` of a valid ``hand`` facing ``ace_top``
    (-1: none): returns ``all_bound`` and writes ``bound`` and ``unbound_value``
    (the kernel's scalar path, step for step, on the C copy of its tables)."""
    cdef int a = ace_top + 1
    cdef uint64_t cv = (CV[0][hand & 255] + CV[1][hand >> 8 & 255] + CV[2][hand >> 16 & 255]
                        + CV[3][hand >> 24 & 255] + CV[4][hand >> 32 & 255] + CV[5][hand >> 40 & 255])
    cdef uint64_t code = cv & CODE_MASK
    cdef uint64_t flo = (FIT_LO[0][code & 1023] & FIT_LO[1][code >> 10 & 1023] & FIT_LO[2][code >> 20 & 1023]
                         & FIT_LO[3][code >> 30 & 1023] & FIT_LO[4][code >> 40 & 1023])
    cdef uint64_t fhi = (FIT_HI[0][code & 1023] & FIT_HI[1][code >> 10 & 1023] & FIT_HI[2][code >> 20 & 1023]
                         & FIT_HI[3][code >> 30 & 1023] & FIT_HI[4][code >> 40 & 1023])
    cdef uint64_t need, low, g, ci, cj, ck, u, x, b, h1, h2, h3, d
    cdef int need_v, need_n, base, n_sets = 0, i, j, k, best_n = 0, best_v = 0, n, v
    cdef int ni, nj, nk, vi, vj, vk, si, sj, sk
    cdef uint64_t set_c[MAX_COVERS]
    cdef int set_n[MAX_COVERS]
    cdef int set_v[MAX_COVERS]
    if a:
        need = hand & ~ANCHOR[a] & ~EXCUSE_BIT
        need_v = _value(need)
    else:
        need = hand & ~EXCUSE_BIT
        need_v = <int> (cv >> CODE_BITS)  # the Excuse is worth 0
    need_n = popcount(need)
    base = popcount(hand) - need_n
    if (flo == 0 and fhi == 0) or need == 0:
        bound[0] = base
        unbound[0] = need_v
        return need == 0
    # the fitting sets, by ascending index (the kernel's low-bit-first order)
    while flo:
        set_c[n_sets] = COVER_CARDS[__builtin_ctzll(flo)]
        set_n[n_sets] = COVER_SIZE[__builtin_ctzll(flo)]
        n_sets += 1
        flo &= flo - 1
    while fhi:
        set_c[n_sets] = COVER_CARDS[64 + __builtin_ctzll(fhi)]
        set_n[n_sets] = COVER_SIZE[64 + __builtin_ctzll(fhi)]
        n_sets += 1
        fhi &= fhi - 1
    if not ((code >> 1) & LOW_BITS):
        # No pattern held twice: what disjoint sets bind (cards, value) adds up.
        for i in range(n_sets):
            g = hand & set_c[i] & need
            set_n[i] = popcount(g)
            set_v[i] = _value(g)
        for i in range(n_sets):
            ci, ni, vi = set_c[i], set_n[i], set_v[i]
            if ni > best_n:
                best_n = ni
            if vi > best_v:
                best_v = vi
            for j in range(i + 1, n_sets):
                cj, nj, vj = set_c[j], set_n[j], set_v[j]
                if ci & cj:
                    continue
                if ni + nj > best_n:
                    best_n = ni + nj
                if vi + vj > best_v:
                    best_v = vi + vj
                for k in range(j + 1, n_sets):
                    ck, nk, vk = set_c[k], set_n[k], set_v[k]
                    if (ci | cj) & ck:
                        continue
                    if ni + nj + nk > best_n:
                        best_n = ni + nj + nk
                    if vi + vj + vk > best_v:
                        best_v = vi + vj + vk
        bound[0] = base + best_n
        unbound[0] = need_v - best_v
        return best_n == need_n
    # Layers: h1 holds each pattern's highest-valued card, h2 the second, h3 the third.
    d = _worse(hand)
    h1 = hand & ~d
    h2 = hand & d
    h3 = 0
    if code & (code >> 1) & LOW_BITS:
        d = _worse(h2)
        h3 = h2 & d
        h2 &= ~d
    for i in range(n_sets):
        ci, si = set_c[i], set_n[i]
        g = h1 & ci & need
        n = popcount(g)
        if n > best_n:
            if n == need_n:
                bound[0] = base + n
                unbound[0] = 0
                return True
            best_n = n
        v = _value(g)
        if v > best_v:
            best_v = v
        for j in range(i, n_sets):
            cj, sj = set_c[j], set_n[j]
            if si + sj > MAX_HAND:
                continue
            u = ci | cj
            x = ci & cj
            b = (h1 & u) | (h2 & x)
            if popcount(b) != si + sj:
                continue
            g = b & need
            n = popcount(g)
            if n > best_n:
                if n == need_n:
                    bound[0] = base + n
                    unbound[0] = 0
                    return True
                best_n = n
            v = _value(g)
            if v > best_v:
                best_v = v
            if si + sj + 3 > MAX_HAND:
                continue
            for k in range(j, n_sets):
                ck, sk = set_c[k], set_n[k]
                if si + sj + sk > MAX_HAND:
                    continue
                b = (h1 & (u | ck)) | (h2 & (x | (u & ck))) | (h3 & x & ck)
                if popcount(b) != si + sj + sk:
                    continue
                g = b & need
                n = popcount(g)
                if n > best_n:
                    if n == need_n:
                        bound[0] = base + n
                        unbound[0] = 0
                        return True
                    best_n = n
                v = _value(g)
                if v > best_v:
                    best_v = v
    bound[0] = base + best_n
    unbound[0] = need_v - best_v
    return False


def evaluate(uint64_t hand, int ace_top=-1):
    """``(bound, all_bound, unbound_value)`` of ``hand`` by the C :c:func:`bh_evaluate`
    (for tests: it must equal :func:`setgames.kernels.bharg.evaluate`)."""
    cdef int bound, unbound
    cdef bint ab = bh_evaluate(hand, ace_top, &bound, &unbound)
    return bound, bool(ab), unbound


cdef inline void put_bits(char *out, uint64_t m, int nbytes) noexcept nogil:
    """Write the low ``8 * nbytes`` bits of ``m`` as 0/1 bytes (8 at a time)."""
    cdef int j
    cdef uint64_t w
    for j in range(nbytes):
        w = EXPAND[(m >> (8 * j)) & 255]
        memcpy(out + 8 * j, &w, 8)


# ----------------------------------------------------------------- the game in C
cdef void bh_config(BConfig *cfg, object game) except *:
    """Fill ``cfg`` from a :class:`~bharg_env.rules.BhargGame`'s config."""
    cdef int i
    c = game.config
    cfg.n = game.num_players
    cfg.hand_size = game.hand_size
    cfg.target = -1 if c.target_score is None else c.target_score
    cfg.reward_win = c.reward == "win"
    cfg.max_turns = c.max_turns
    cfg.ndeck = len(game.deck_cards)
    assert cfg.ndeck <= NCARDS and cfg.n in (2, 3)
    for i in range(cfg.ndeck):
        cfg.deck_cards[i] = game.deck_cards[i]


cdef inline void _event(BEvents *ev, int kind, long long a, long long b, long long c) noexcept nogil:
    cdef long long *r
    if ev is not NULL:
        r = ev.rec[ev.n]
        r[0] = kind
        r[1] = a
        r[2] = b
        r[3] = c
        ev.n += 1


cdef inline void _shuffle_from(BState *s, signed char *x, int n) noexcept nogil:
    """``x[:n] = x[:n][fast_generator((seed, draws)).permutation(n)]``; ``draws += 1``
    (the rules layer's ``_rng(state).permutation``: numpy's shuffle of ``arange(n)``)."""
    cdef sg_pcg64 r
    cdef uint64_t ints[2]
    cdef signed char perm[MAXPILE]
    cdef signed char tmp[MAXPILE]
    cdef int i, j
    cdef signed char t
    ints[0] = s.seed
    ints[1] = <uint64_t> s.draws
    sg_pcg64_seed_seq(&r, ints, 2)
    s.draws += 1
    for i in range(n):
        perm[i] = <signed char> i
        tmp[i] = x[i]
    for i in range(n - 1, 0, -1):
        j = sg_interval(sg_pcg64_next32_v, &r, i)
        t = perm[i]
        perm[i] = perm[j]
        perm[j] = t
    for i in range(n):
        x[i] = tmp[perm[i]]


cdef inline void _recode(BState *s, int n) noexcept nogil:
    cdef int p, c
    cdef uint64_t h
    for p in range(n):
        s.codes[p] = 0
        h = s.hands[p]
        while h:
            c = __builtin_ctzll(h)
            s.codes[p] += CARD_CODE[c]
            h &= h - 1


cdef void _deal(BState *s, const BConfig *cfg, BEvents *ev) noexcept nogil:
    """The rules layer's ``_deal``: round ``s.round``'s hands, the Ace Pile and the discard."""
    cdef int n = cfg.n, first = (s.round - 1) % cfg.n, i, k, c
    memcpy(s.deck, cfg.deck_cards, cfg.ndeck)
    _shuffle_from(s, s.deck, cfg.ndeck)
    s.deck_len = cfg.ndeck
    for k in range(3):
        s.hands[k] = 0
        s.known[k] = 0
    for i in range(cfg.hand_size):
        for k in range(n):
            s.deck_len -= 1
            s.hands[(first + k) % n] |= (<uint64_t> 1) << s.deck[s.deck_len]
    s.aces_len = 0
    s.ace_under = 0
    s.disc_len = 0
    _event(ev, BH_E_DEAL, s.round, first, 0)
    while True:
        s.deck_len -= 1
        c = s.deck[s.deck_len]
        if c < NUM_ACES:
            if s.aces_len:
                s.ace_under |= (<uint64_t> 1) << s.aces[s.aces_len - 1]
            s.aces[s.aces_len] = <signed char> c
            s.aces_len += 1
            _event(ev, BH_E_ACE_PILE, c, 0, 0)
        else:
            s.discard[0] = <signed char> c
            s.disc_len = 1
            s.disc_mask = (<uint64_t> 1) << c
            _event(ev, BH_E_START, c, 0, 0)
            break
    s.seat = first
    s.phase = PH_DRAW
    s.turn = 0
    _recode(s, n)


cdef void bh_new_game(BState *s, const BConfig *cfg, sg_pcg64 *rng, BEvents *ev) noexcept nogil:
    """``game.new_state(rng)`` for the generator ``rng`` (``rng_from_seed(g)`` for the AEC
    env's game of seed ``g``): the seed of every shuffle is ``rng.integers(2**63)``, numpy's
    64-bit Lemire draw, which for a bound of 2**63 never rejects and is one draw shifted down.
    ``ev`` (or NULL) collects the deal's public events."""
    bh_new_game_seeded(s, cfg, sg_pcg64_next64(rng) >> 1, ev)


cdef void bh_redeal(BState *s, const BConfig *cfg, int seat, sg_pcg64 *rng) noexcept nogil:
    """``game.determinize(state, seat, Generator(rng))`` in place: the cards ``seat`` has not
    seen (the deck and the opponents' cards not known to come from the discard pile) in
    ascending id order, shuffled with ``permutation``'s swaps, dealt to the opponents in seat
    order and the rest to the deck; then the seed of later shuffles, ``integers(2**63)``."""
    cdef uint64_t unseen = 0, h
    cdef signed char order[BH_MAXPILE]
    cdef int i, p, k, m = 0, used = 0
    for i in range(s.deck_len):
        unseen |= 1ULL << s.deck[i]
    for p in range(cfg.n):
        if p != seat:
            unseen |= s.hands[p] & ~s.known[p]
    while unseen:
        order[m] = __builtin_ctzll(unseen)
        m += 1
        unseen &= unseen - 1
    sg_shuffle_schar(rng, order, m)
    for p in range(cfg.n):
        if p != seat:
            h = s.known[p]
            k = __builtin_popcountll(s.hands[p]) - __builtin_popcountll(s.known[p])
            for i in range(k):
                h |= 1ULL << order[used + i]
            used += k
            s.hands[p] = h
    memcpy(s.deck, order + used, m - used)
    s.seed = sg_pcg64_next64(rng) >> 1
    _recode(s, cfg.n)


cdef void bh_new_game_seeded(BState *s, const BConfig *cfg, uint64_t seed, BEvents *ev) noexcept nogil:
    """The new game whose shuffles are seeded by ``seed`` (the draw ``new_state`` makes):
    the one home of it (:func:`bh_new_game` and :meth:`Engine.deal`); ``ev`` (or NULL)
    collects the deal's public events."""
    cdef int p
    memset(s, 0, sizeof(BState))
    if ev is not NULL:
        ev.n = 0
    s.seed = seed
    s.draws = 0
    s.round = 1
    s.winner = -1
    s.reason = BH_R_NONE
    for p in range(cfg.n):
        s.scores[p] = 0
        s.rewards[p] = 0
        s.round_points[p] = 0
    _deal(s, cfg, ev)


cdef bint bh_can_draw(const BState *s) noexcept nogil:
    """True when the deck, or the reshuffle it would trigger, has a card."""
    return s.deck_len > 0 or s.disc_len > 1 or s.aces_len > 1


cdef bint bh_is_legal(const BState *s, int action) noexcept nogil:
    """True when ``action`` (any int) is legal in ``s``."""
    if s.phase == PH_DISCARD:
        return DISCARD0 <= action < NUM_ACTIONS and (s.hands[s.seat] >> (action - DISCARD0)) & 1
    if s.phase == PH_DRAW:
        if action == DRAW_DECK:
            return bh_can_draw(s)
        return action == DRAW_DECK + 1 and s.disc_len > 0
    return False


cdef int bh_legal(const BState *s, int *out) noexcept nogil:
    """The legal action ids, ascending, into ``out``; returns their number (0 once over)."""
    cdef uint64_t h
    cdef int m = 0
    if s.phase == PH_DISCARD:
        h = s.hands[s.seat]
        while h:
            out[m] = DISCARD0 + __builtin_ctzll(h)
            m += 1
            h &= h - 1
    elif s.phase == PH_DRAW:
        if bh_can_draw(s):
            out[m] = DRAW_DECK
            m += 1
        if s.disc_len:
            out[m] = DRAW_DECK + 1
            m += 1
    return m


cdef void bh_fill_mask(const BState *s, char *b) noexcept nogil:
    """1 at the legal actions of ``s`` in the (zeroed) ``num_actions`` bytes at ``b``."""
    cdef uint64_t h
    if s.phase == PH_DISCARD:
        h = s.hands[s.seat]
        while h:
            b[DISCARD0 + __builtin_ctzll(h)] = 1
            h &= h - 1
    elif s.phase == PH_DRAW:
        if bh_can_draw(s):
            b[DRAW_DECK] = 1
        if s.disc_len:
            b[DRAW_DECK + 1] = 1


cdef void _reshuffle(BState *s, BEvents *ev) noexcept nogil:
    """``BhargGame._reshuffle``: all but the tops of the discard pile and the Ace Pile,
    ascending, in the order ``fast_generator((seed, draws))`` permutes them."""
    cdef uint64_t m = s.ace_under
    cdef int k = 0
    if s.disc_len:
        m |= s.disc_mask ^ ((<uint64_t> 1) << s.discard[s.disc_len - 1])
    while m:
        s.deck[k] = <signed char> __builtin_ctzll(m)
        k += 1
        m &= m - 1
    _shuffle_from(s, s.deck, k)
    s.deck_len = k
    if s.disc_len:
        s.discard[0] = s.discard[s.disc_len - 1]
        s.disc_len = 1
        s.disc_mask = (<uint64_t> 1) << s.discard[0]
    if s.aces_len:
        s.aces[0] = s.aces[s.aces_len - 1]
        s.aces_len = 1
    s.ace_under = 0
    _event(ev, BH_E_RESHUFFLE, k, 0, 0)


cdef int _end_round(BState *s, const BConfig *cfg, int winner, double *rewards, BEvents *ev) noexcept nogil:
    """``BhargGame._end_round``: the losers concede their unbound value to the winner;
    rewards by the reward mode; the match ends or the next round is dealt."""
    cdef int n = cfg.n, p, bound, unbound
    cdef int ace = s.aces[s.aces_len - 1] if s.aces_len else -1
    cdef long long lost[3]
    cdef long long points = 0
    cdef bint match_over
    for p in range(n):
        lost[p] = 0
        if p != winner:
            bh_evaluate(s.hands[p], ace, &bound, &unbound)
            lost[p] = unbound
            points += unbound
    for p in range(n):
        s.round_points[p] = points if p == winner else -lost[p]
    s.scores[winner] += points
    _event(ev, BH_E_WIN, s.round, winner, points)
    match_over = cfg.target < 0 or s.scores[winner] >= cfg.target
    if not cfg.reward_win or match_over:
        for p in range(n):
            if cfg.reward_win:
                rewards[p] = 1.0 if p == winner else -1.0
            else:
                rewards[p] = <double> s.round_points[p]
            s.rewards[p] += rewards[p]
    if match_over:
        s.phase = PH_OVER
        s.winner = winner
        s.reason = BH_R_ALL_BOUND if cfg.target < 0 else BH_R_TARGET
    else:
        s.round += 1
        _deal(s, cfg, ev)
    return BH_REWARD if (not cfg.reward_win or match_over) else BH_NONE


cdef int bh_apply(BState *s, const BConfig *cfg, int action, double *rewards, BEvents *ev) noexcept nogil:
    """Play the legal ``action`` (checked by the caller: :c:func:`bh_is_legal`), as the rules
    layer's ``apply``; returns BH_REWARD with the step's per-seat rewards in ``rewards`` when
    it returns them, else BH_NONE. ``ev`` (or NULL) collects the step's public events."""
    cdef int seat = s.seat, card, p
    cdef uint64_t bit
    if ev is not NULL:
        ev.n = 0
    if s.phase == PH_DRAW:
        if action == DRAW_DECK:
            if s.deck_len == 0:
                _reshuffle(s, ev)
            s.deck_len -= 1
            card = s.deck[s.deck_len]
            _event(ev, BH_E_DRAW, seat, 0, 0)
        else:
            s.disc_len -= 1
            card = s.discard[s.disc_len]
            bit = (<uint64_t> 1) << card
            s.disc_mask ^= bit
            s.known[seat] |= bit
            _event(ev, BH_E_TAKE, seat, card, 0)
        s.hands[seat] |= (<uint64_t> 1) << card
        s.codes[seat] += CARD_CODE[card]
        s.phase = PH_DISCARD
        return BH_NONE
    card = action - DISCARD0
    bit = (<uint64_t> 1) << card
    s.hands[seat] ^= bit
    s.known[seat] &= ~bit
    if card < NUM_ACES:
        if s.aces_len:
            s.ace_under |= (<uint64_t> 1) << s.aces[s.aces_len - 1]
        s.aces[s.aces_len] = <signed char> card
        s.aces_len += 1
    else:
        s.discard[s.disc_len] = <signed char> card
        s.disc_len += 1
        s.disc_mask |= bit
    _event(ev, BH_E_DISCARD, seat, card, 0)
    s.codes[seat] -= CARD_CODE[card]
    if bh_all_bound_code(s.codes[seat], s.aces[s.aces_len - 1] if s.aces_len else -1):
        return _end_round(s, cfg, seat, rewards, ev)
    s.turn += 1
    if s.turn >= cfg.max_turns:
        s.phase = PH_OVER
        s.truncated = True
        s.reason = BH_R_TURN_LIMIT
        for p in range(cfg.n):
            s.round_points[p] = 0
            rewards[p] = 0
        _event(ev, BH_E_TURN_LIMIT, s.round, 0, 0)
        return BH_REWARD
    s.seat = seat + 1 if seat + 1 < cfg.n else 0
    s.phase = PH_DRAW
    return BH_NONE


cdef inline long long _cap(long long x) noexcept nogil:
    return x if x < ARG_CAP else ARG_CAP


cdef void bh_history_push(unsigned int *h, int n, const BEvents *ev) noexcept nogil:
    """The history rows of the events ``ev`` holds, pushed to the ring ``h`` of ``BH_HIST_LEN`` rows:
    the rows :func:`bharg_env.history.history_rows` makes of the same events (the one place the
    C paths make them; a deck draw's card is hidden, so its row has none)."""
    cdef int i, kind
    cdef const long long *r
    cdef unsigned int row
    for i in range(ev.n):
        r = ev.rec[i]
        kind = <int> r[0]
        if kind == BH_E_DRAW:
            row = sg_event(HK_DRAW, <int> r[1], -1, 0)
        elif kind == BH_E_TAKE:
            row = sg_event(HK_TAKE, <int> r[1], <int> r[2], 0)
        elif kind == BH_E_DISCARD:
            row = sg_event(HK_DISCARD, <int> r[1], <int> r[2], 0)
        elif kind == BH_E_RESHUFFLE:
            row = sg_event(HK_RESHUFFLE, -1, -1, <int> _cap(r[1]))
        elif kind == BH_E_TURN_LIMIT:
            row = sg_event(HK_LIMIT, -1, -1, <int> _cap(r[1]))
        elif kind == BH_E_WIN:
            row = sg_event(HK_WIN, <int> r[2], -1, <int> _cap(r[3]))
        elif kind == BH_E_DEAL:
            row = sg_event(HK_DEAL, <int> r[2], -1, <int> _cap(r[1]))
        elif kind == BH_E_ACE_PILE:
            row = sg_event(HK_ACE, -1, <int> r[1], 0)
        else:
            row = sg_event(HK_START, -1, <int> r[1], 0)
        sg_history_add(h, BH_HIST_LEN, n, row)


cdef void bh_observe(const BState *s, const BConfig *cfg, int seat, char *out) noexcept nogil:
    """``game.observe(state, seat)`` (a seat 0..n-1) into the ``obs_size`` bytes at ``out``."""
    cdef char buf[OBS_ROOM]
    cdef int n = cfg.n
    cdef int o1 = seat + 1 if seat + 1 < n else seat + 1 - n
    cdef int o2 = seat + 2 if seat + 2 < n else seat + 2 - n
    cdef int top, j, r
    cdef long long x
    cdef uint64_t under
    # Bit fields in layout order: each 8-byte write may spill into the next field.
    put_bits(buf + O_HAND, s.hands[seat], 6)
    put_bits(buf + O_ACE_TOP, 0, 2)
    if s.aces_len:
        buf[O_ACE_TOP + s.aces[s.aces_len - 1]] = 1
        put_bits(buf + O_ACE_PILE, s.ace_under, 1)
    put_bits(buf + O_DTOP, 0, 6)
    under = s.disc_mask
    if s.disc_len:
        top = s.discard[s.disc_len - 1]
        buf[O_DTOP + top] = 1
        under ^= (<uint64_t> 1) << top
    put_bits(buf + O_DPILE, under, 6)
    put_bits(buf + O_OKNOWN, s.known[o1], 6)
    if n == 3:
        put_bits(buf + O_OKNOWN + NCARDS, s.known[o2], 6)
    else:
        put_bits(buf + O_OKNOWN + NCARDS, 0, 6)
    buf[O_OSIZE] = popcount(s.hands[o1])
    buf[O_OSIZE + 1] = popcount(s.hands[o2]) if n == 3 else 0
    memset(buf + O_DECK, 0, OBS_SIZE - O_DECK)
    buf[O_DECK] = s.deck_len
    if s.phase != PH_OVER:
        buf[O_PHASE + s.phase] = 1
        r = s.seat - seat
        if r < 0:
            r += n
        buf[O_TO_ACT + r] = 1
    if cfg.target >= 0:
        for j in range(n):
            x = s.scores[(seat + j) % n]
            buf[O_SCORES + j] = x if x < cfg.target else cfg.target
    x = cfg.max_turns - s.turn
    buf[O_TURNS] = x if x < 127 else 127
    memcpy(out, buf, OBS_SIZE)


cdef int bh_n_actions() noexcept nogil:
    """The number of action ids."""
    return NUM_ACTIONS


cdef int bh_obs_size() noexcept nogil:
    """The observation's length."""
    return OBS_SIZE


# ----------------------------------------------------------------- the single-game engine
# The public events of a step, shared tuples as in the rules layer (equal either way).
_EV_DRAW = [("draw", s) for s in range(3)]
_EV_TAKE = [("take", s, c) for s in range(3) for c in range(NCARDS)]
_EV_DISCARD = [("discard", s, c) for s in range(3) for c in range(NCARDS)]
_REASON_CODE = {r: i for i, r in enumerate(REASONS)}

cdef cnp.npy_intp OBS_DIMS[1]
cdef cnp.npy_intp MASK_DIMS[1]
OBS_DIMS[0] = OBS_SIZE
MASK_DIMS[0] = NUM_ACTIONS


cdef inline object _new_int8(cnp.npy_intp *dims):
    """A new writable int8 array of shape ``dims`` (numpy's C constructor: a third of
    what np.frombuffer over a new bytearray costs, which is more than the rest of observe)."""
    return cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT8, 0)


cdef void _append_events(list events, const BEvents *ev) except *:
    """The rules layer's event tuples of the C records in ``ev``, appended to ``events``."""
    cdef int i, kind
    cdef const long long *r
    for i in range(ev.n):
        r = ev.rec[i]
        kind = <int> r[0]
        if kind == BH_E_DRAW:
            events.append(_EV_DRAW[r[1]])
        elif kind == BH_E_TAKE:
            events.append(_EV_TAKE[r[1] * NCARDS + r[2]])
        elif kind == BH_E_DISCARD:
            events.append(_EV_DISCARD[r[1] * NCARDS + r[2]])
        elif kind == BH_E_RESHUFFLE:
            events.append(("reshuffle", r[1]))
        elif kind == BH_E_TURN_LIMIT:
            events.append(("turn_limit", r[1]))
        elif kind == BH_E_WIN:
            events.append(("win", r[1], r[2], r[3]))
        elif kind == BH_E_DEAL:
            events.append(("deal", r[1], r[2]))
        elif kind == BH_E_ACE_PILE:
            events.append(("ace_pile", r[1]))
        else:
            events.append(("start_discard", r[1]))


cdef class Engine:
    """Bharg under one :class:`~bharg_env.rules.BhargGame`'s config, stepped in C.

    ``load`` copies a rules-layer state in; ``apply``, ``mask``, ``observe``,
    ``legal_actions`` and ``current_seat`` then run on the C state (the
    functions the batch steps too); ``to_json`` and ``outcome`` give the rules
    layer's dicts back. In the ``history`` mode it keeps one ring of rows, rebuilt
    from the record by ``load`` (:func:`bharg_env.history.history_rows`), cleared
    and filled by ``deal``, pushed to by ``apply`` (:c:func:`bh_history_push`).
    """

    def __init__(self, game):
        """An engine for ``game`` (a :class:`~bharg_env.rules.BhargGame`); no state until ``load``."""
        self.game = game
        bh_config(&self.cfg, game)
        self.zero_rewards = (0.0,) * self.cfg.n
        memset(&self.st, 0, sizeof(BState))
        self.st.phase = PH_OVER
        self.events = []
        self.reason = ""
        self.obs_block = NULL
        self.obs_size = OBS_SIZE
        self.history = game.config.obs == "history"
        sg_history_reset(self.hist, BH_HIST_LEN, self.cfg.n)
        if self.history:
            self.obs_size = game.obs_spec.size
            assert self.obs_size == OBS_SIZE + 4 * BH_HIST_LEN + 1
        if game.config.obs == "structure":  # the block's module imports this one: installed, not cimported
            from bharg_env import _structure
            _structure.install(self)

    # ------------------------------------------------------------- state in / out
    def load(self, state):
        """Copy the rules-layer ``state`` in (it is neither kept nor changed).

        Raises:
            ValueError: a state the rules could not produce (``game.validate``),
                refused before anything is copied (the C below trusts its ids).
        """
        self.game.validate(state)
        cdef BState *s = &self.st
        cdef int p, i, c
        n = self.cfg.n
        if len(state.hands) != n:
            raise ValueError(f"a state of {len(state.hands)} players loaded into a {n}-player engine")
        if max(len(state.deck), len(state.discard), len(state.aces)) > MAXPILE:
            raise ValueError(f"a pile of the state holds more than the {MAXPILE} cards an engine pile can")
        memset(s, 0, sizeof(BState))
        # The validator lets round_points be empty (states written before the field was
        # filled): zeros then, never a read past the list (the bounds checks are off here).
        points = state.round_points or [0] * n
        for p in range(n):
            s.hands[p] = state.hands[p]
            s.known[p] = state.known[p]
            s.scores[p] = state.scores[p]
            s.rewards[p] = state.rewards[p]
            s.round_points[p] = points[p]
        _recode(s, n)
        s.deck_len = len(state.deck)
        for i in range(s.deck_len):
            s.deck[i] = state.deck[i]
        s.disc_len = len(state.discard)
        for i in range(s.disc_len):
            c = state.discard[i]
            s.discard[i] = c
            s.disc_mask |= (<uint64_t> 1) << c
        s.aces_len = len(state.aces)
        for i in range(s.aces_len):
            c = state.aces[i]
            s.aces[i] = c
            if i < s.aces_len - 1:
                s.ace_under |= (<uint64_t> 1) << c
        s.seat = state.seat
        s.phase = int(state.phase)
        s.turn = state.turn
        s.round = state.round
        s.seed = state.seed
        s.draws = state.draws
        s.winner = state.winner
        s.truncated = state.truncated
        s.reason = _REASON_CODE.get(state.reason, BH_R_NONE)
        self.reason = state.reason
        self.events = list(state.events)
        if self.history:  # the rows of the state's record, as the rules layer's observe makes them
            sg_history_reset(self.hist, BH_HIST_LEN, self.cfg.n)
            for kind, seat, card, arg in _history.history_rows(self.events):
                sg_history_add(self.hist, BH_HIST_LEN, self.cfg.n, sg_event(kind, seat, card, arg))

    def deal(self, rng):
        """Deal a new game from the numpy ``Generator`` ``rng``: the state
        ``load(game.new_state(rng))`` gives, from the same draw (``new_state``'s
        ``rng.integers(2**63)``, the seed of every shuffle, which run in C), without
        building and validating a rules-layer state (the optional engine method envs
        reset with)."""
        seed = int(rng.integers(_rules._SEED_BOUND))
        bh_new_game_seeded(&self.st, &self.cfg, <uint64_t> seed, &self.ev)
        self.reason = ""
        self.events = []
        _append_events(self.events, &self.ev)
        if self.history:
            sg_history_reset(self.hist, BH_HIST_LEN, self.cfg.n)
            bh_history_push(self.hist, self.cfg.n, &self.ev)

    cdef list _round_points(self):
        return [self.st.round_points[p] for p in range(self.cfg.n)]

    cdef object _state(self):
        """A rules-layer state of the engine's (a copy of its events list)."""
        cdef BState *s = &self.st
        n = self.cfg.n
        return _rules.BhargState(
            [s.hands[p] for p in range(n)], [s.known[p] for p in range(n)],
            [s.deck[i] for i in range(s.deck_len)], [s.discard[i] for i in range(s.disc_len)],
            [s.aces[i] for i in range(s.aces_len)], s.disc_mask, s.seat, s.phase,
            s.turn, s.round, [s.scores[p] for p in range(n)], [s.rewards[p] for p in range(n)],
            s.seed, s.draws, s.winner, self.reason, bool(s.truncated), self._round_points(),
            list(self.events))

    def to_json(self):
        """``game.to_json`` of the engine's state."""
        cdef BState *s = &self.st
        n = self.cfg.n
        return {
            "hands": [s.hands[p] for p in range(n)], "known": [s.known[p] for p in range(n)],
            "deck": [s.deck[i] for i in range(s.deck_len)],
            "discard": [s.discard[i] for i in range(s.disc_len)],
            "aces": [s.aces[i] for i in range(s.aces_len)], "seat": s.seat,
            "phase": s.phase, "turn": s.turn, "round": s.round,
            "scores": [s.scores[p] for p in range(n)], "rewards": [s.rewards[p] for p in range(n)],
            "seed": s.seed, "draws": s.draws, "winner": s.winner, "reason": self.reason,
            "truncated": bool(s.truncated), "round_points": self._round_points(),
            "events": [list(e) for e in self.events],
        }

    def __reduce__(self):
        """Copy and pickle through the rules layer's JSON (:func:`setgames.engine.rebuild`)."""
        return _from_json_state, (type(self), type(self.game), self.game.config_dict(), self.to_json())

    def outcome(self):
        """``game.outcome`` of the engine's state."""
        n = self.cfg.n
        return {
            "winner": self.st.winner,
            "reason": self.reason,
            "truncated": bool(self.st.truncated),
            "round": self.st.round,
            "scores": [self.st.scores[p] for p in range(n)],
            "round_points": self._round_points(),
            "returns": [self.st.rewards[p] for p in range(n)],
        }

    def is_truncated(self):
        """True when the turn limit ended the game."""
        return bool(self.st.truncated)

    # ------------------------------------------------------------- queries
    def current_seat(self):
        """Seat to act, -1 once over."""
        return -1 if self.st.phase == PH_OVER else self.st.seat

    def legal_actions(self):
        """Sorted legal action ids (empty once over)."""
        cdef int out[BH_MAX_ACTIONS]
        cdef int m = bh_legal(&self.st, out), k
        return [out[k] for k in range(m)]

    def mask(self):
        """A new writable int8 array of ``num_actions``, 1 at the legal actions."""
        out = _new_int8(MASK_DIMS)
        cdef char *b = <char *> cnp.PyArray_DATA(out)
        memset(b, 0, NUM_ACTIONS)
        bh_fill_mask(&self.st, b)
        return out

    def observe(self, int seat):
        """``seat``'s observation: a new writable int8 array equal to ``game.observe``."""
        if seat < 0 or seat >= self.cfg.n:
            raise ValueError(f"seat {seat} is not a seat of a {self.cfg.n}-player game")
        cdef cnp.npy_intp dims[1]
        if self.obs_block is NULL and not self.history:
            arr = _new_int8(OBS_DIMS)
            bh_observe(&self.st, &self.cfg, seat, <char *> cnp.PyArray_DATA(arr))
            return arr
        dims[0] = self.obs_size
        arr = _new_int8(dims)
        bh_observe(&self.st, &self.cfg, seat, <char *> cnp.PyArray_DATA(arr))
        if self.history:
            sg_history_block(self.hist, BH_HIST_LEN, seat,
                             <signed char *> cnp.PyArray_DATA(arr) + OBS_SIZE)
            return arr
        self.obs_block(&self.st, &self.cfg, seat, <char *> cnp.PyArray_DATA(arr) + OBS_SIZE)
        return arr

    def action_features(self, int seat):
        """``game.action_features(state, seat)`` from the C state: a new int8 array
        ``(num_actions, game.action_spec.size)`` (:mod:`bharg_env._structure`, which imports
        this module: imported here, not cimported)."""
        if seat < 0 or seat >= self.cfg.n:
            raise ValueError(f"seat {seat} is not a seat of a {self.cfg.n}-player game")
        from bharg_env import _structure
        return _structure.action_features(self, seat)

    # ------------------------------------------------------------- play
    def apply(self, int action):
        """Play a legal ``action``; returns the per-seat rewards on a step that returns
        them (a round or the game ended), else None, as ``game.apply``. An illegal
        action raises ValueError (the env checks first; this keeps the C state sound)."""
        cdef double rewards[3]
        cdef int status, i
        if not bh_is_legal(&self.st, action):
            raise ValueError(f"action {action} is not legal here; legal actions: {self.legal_actions()}")
        status = bh_apply(&self.st, &self.cfg, action, rewards, &self.ev)
        _append_events(self.events, &self.ev)
        if self.history:
            bh_history_push(self.hist, self.cfg.n, &self.ev)
        if self.st.phase == PH_OVER:
            self.reason = REASONS[self.st.reason]
        if status == BH_NONE:
            return None
        if self.st.truncated:
            return self.zero_rewards
        return tuple([rewards[i] for i in range(self.cfg.n)])
