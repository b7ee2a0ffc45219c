# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Tet Hsi compiled engine: the per-step hot path of :mod:`tethsi_env.rules` in C.

The protocol is :mod:`setgames.engine`'s; the rules layer stays the reference
and ``tests/tethsi/test_engine.py`` holds this module to it step by step.

The game is a C struct (:file:`_engine.pxd`) stepped by ``nogil`` functions
(deal, legal mask and list, apply, observe, returns) that this module defines
once: :class:`Engine` holds one struct for the AEC env, and
:class:`tethsi_env._batch.Batch` an array of them, stepped in one call
without the GIL (the issue #17 protocol, :mod:`setgames.batch`).

The state lives in C: card zones as 64-bit masks (bit ``i`` = card ``i``, as
the rules layer's Python ints), the draw pile as an id array (top card last),
the Sets put aside as small arrays. The public event record is kept as
compact C records and turned into the rules layer's tuples only when asked
for (:meth:`Engine.to_json`). The observation is built from the C state on
each :meth:`Engine.observe` with a byte-expansion table (a few dozen 8-byte
stores), not kept up to date by ``apply``. Masks and observations are numpy
arrays made through numpy's C API. ``apply`` tests legality itself (the env
relies on it) with the same walk that lists the legal actions.

Every table and constant comes from the Python modules that define the game
(:mod:`tethsi_env.layout`, :mod:`setgames.kernels.tethsi`, :mod:`tethsi_env.rules`);
``to_json``, ``outcome`` and ``is_truncated`` build a rules-layer state and ask
the game, so those have one home too.
"""

from libc.string cimport memcpy, memset

cimport numpy as cnp

from setgames.batch._rng cimport sg_lemire, sg_pcg64, sg_pcg64_next32_v, sg_shuffle_schar
from setgames._history cimport sg_event, sg_history_add, sg_history_block, sg_history_reset, sg_history_words

cnp.import_array()

from setgames.cards import NUM_STANDARD
from setgames.kernels.tethsi import KIND_BY_MASK, KIND_NAMES, PAIRS_BY_CARD
from setgames.engine import rebuild as _from_json_state
from tethsi_env import history as _hist_py
from tethsi_env import rules as _rules
from tethsi_env import structure as _structure
from tethsi_env.layout import (ACTION_ARG, ACTION_KIND, HAND_SIZE, LAYOUT, NOTHING, OBS_SPEC, PAIR_ACTION,
                               PLAY_START, SET_FIRST_MASK, SET_PARTNERS_ABOVE, TAKE, ActionKind, Phase)

cdef extern from *:
    int popcount64 "__builtin_popcountll"(u64 x) nogil
    int ctz64 "__builtin_ctzll"(u64 x) nogil
    int clz64 "__builtin_clzll"(u64 x) nogil

# --------------------------------------------------------------------------- sizes and constants
cdef enum:
    NCARDS = TH_NCARDS
    MAX_ACTIONS = TH_MAX_ACTIONS
    MAX_SETS = TH_MAX_SETS
    # C event records kept before they are flushed to the Python list; smaller than a
    # long game's record (up to ~80 events) so that tests reach the flush.
    EVENT_CAP = 64

assert NUM_STANDARD == NCARDS
EVENT_CAPACITY = EVENT_CAP  # for the tests
assert EVENT_CAP == 64  # the size of Engine.ev in _engine.pxd
assert LAYOUT.n <= MAX_ACTIONS

cdef int N_ACTIONS = LAYOUT.n
cdef int OBS_N = OBS_SPEC.size
cdef int A_TAKE = TAKE
cdef int A_NOTHING = NOTHING
cdef int A_PLAY_START = PLAY_START

cdef int PH_DISCARD = Phase.DISCARD
cdef int PH_CHOOSE = Phase.CHOOSE
cdef int PH_PLAY = Phase.PLAY
cdef int PH_OVER = Phase.OVER

cdef int K_DISCARD = ActionKind.DISCARD
cdef int K_TAKE = ActionKind.TAKE
cdef int K_NOTHING = ActionKind.NOTHING
cdef int K_SET = ActionKind.SET
cdef int K_PLAY = ActionKind.PLAY

# Rewards and end reasons: the rules layer's own objects.
_WIN = _rules._WIN
_TIE = _rules._TIE
_REASON_THIRD_SET = _rules.REASON_THIRD_SET
_REASON_EMPTY_PILE = _rules.REASON_EMPTY_PILE
_KIND_NAMES = KIND_NAMES
cdef int NKINDS = len(KIND_NAMES)
assert NKINDS <= 8

# --------------------------------------------------------------------------- action tables
cdef unsigned char ACT_KIND[MAX_ACTIONS]
cdef signed char ACT_X[MAX_ACTIONS]      # card of discard/play, lower card x of a set, else -1
cdef signed char ACT_Y[MAX_ACTIONS]      # upper card y of a set, else -1
cdef short PAIR_ID[NCARDS][NCARDS]       # set action id of {x, y}
cdef u64 FIRST_MASK[NCARDS]              # per remaining card: hand cards that are the x of some pair
cdef u64 ABOVE[NCARDS][NCARDS]           # [r][x]: cards y > x with {x, y, r} a Set
cdef signed char SET_KIND[MAX_ACTIONS][NCARDS]  # [set action][r]: kind index, -1 for no Set


def _fill_action_tables():
    cdef int a, x, y, r
    for a in range(N_ACTIONS):
        ACT_KIND[a] = ACTION_KIND[a]
        arg = ACTION_ARG[a]
        if ACTION_KIND[a] == K_SET:
            ACT_X[a], ACT_Y[a] = arg
        else:
            ACT_X[a] = arg
            ACT_Y[a] = -1
        for r in range(NCARDS):
            SET_KIND[a][r] = -1
            if ACTION_KIND[a] == K_SET:
                x, y = arg
                if r != x and r != y:
                    SET_KIND[a][r] = KIND_BY_MASK.get((1ULL << x) | (1ULL << y) | (1ULL << r), -1)
    for x in range(NCARDS):
        FIRST_MASK[x] = SET_FIRST_MASK[x]
        for y in range(NCARDS):
            PAIR_ID[x][y] = PAIR_ACTION[x][y]
            ABOVE[x][y] = SET_PARTNERS_ABOVE[x][y]


_fill_action_tables()

# --------------------------------------------------------------------------- observation tables
_SL = OBS_SPEC.slices
_BLOCKS = ("my_concealed", "my_front", "opp_front", "center", "remaining", "discard_pile",
           "my_set_cards", "opp_set_cards")
# observe() writes the card blocks in this order with 8-byte stores that spill up to 4
# bytes past a block; the next write (a later block or the phase) covers the spill.
_order = [_SL[b].start for b in _BLOCKS] + [_SL["phase"].start]
assert _order == sorted(_order) and all(_SL[b].stop - _SL[b].start == NCARDS for b in _BLOCKS)
assert _SL["phase"].stop - _SL["phase"].start == 3 and _SL["my_turn"].start == _SL["phase"].stop
assert _SL["opp_set_cards"].start + 40 <= OBS_SPEC.size  # the last block's spill stays in the array
cdef int O_MY_CONCEALED = _SL["my_concealed"].start
cdef int O_MY_FRONT = _SL["my_front"].start
cdef int O_OPP_FRONT = _SL["opp_front"].start
cdef int O_CENTER = _SL["center"].start
cdef int O_REMAINING = _SL["remaining"].start
cdef int O_DISCARD = _SL["discard_pile"].start
cdef int O_MY_SETS = _SL["my_set_cards"].start
cdef int O_OPP_SETS = _SL["opp_set_cards"].start
cdef int O_PHASE = _SL["phase"].start
cdef int O_MY_TURN = _SL["my_turn"].start
cdef int O_MY_KINDS = _SL["my_set_kinds"].start
cdef int O_OPP_KINDS = _SL["opp_set_kinds"].start
cdef int O_OPP_COUNT = _SL["opp_concealed_count"].start
cdef int O_PILE = _SL["draw_pile_size"].start

cdef u64 EXPAND[256]            # byte v -> 8 bytes, byte j = bit j of v
cdef unsigned char PHASE_BITS[4]  # the rules layer's phase one-hot (none once over)


def _fill_obs_tables():
    cdef int v, j
    cdef unsigned char *p
    for v in range(256):
        p = <unsigned char *> &EXPAND[v]
        for j in range(8):
            p[j] = (v >> j) & 1
    assert len(_rules._PHASE_BITS) == 4
    for v in range(4):
        PHASE_BITS[v] = _rules._PHASE_BITS[v]


_fill_obs_tables()

# --------------------------------------------------------------------------- events
# The rules layer's event tuples: (name, seat, card...) with these names.
cdef enum:
    EV_DISCARD, EV_TAKE, EV_NOTHING, EV_SET, EV_PLAY, EV_WIN, EV_TIE, EV_REVEAL
_EVENT_NAMES = ("discard", "take", "nothing", "set", "play", "win", "tie", "reveal")

# The history mode's row kinds (tethsi_env.history, the reference): th_apply pushes its rows.
cdef enum:
    HK_DISCARD = 1
    HK_TAKE, HK_NOTHING, HK_SET, HK_PLAY, HK_REVEAL, HK_WIN, HK_TIE
assert _hist_py.HISTORY_KINDS == ("discard", "take", "nothing", "set", "play", "reveal", "win", "tie")
assert HK_TIE == len(_hist_py.HISTORY_KINDS) and _hist_py.HISTORY_LENGTH == TH_HLEN
assert sg_history_words(TH_HLEN, 2) == TH_HWORDS


cdef inline void _expand36(unsigned char *out, u64 m) noexcept nogil:
    """Card mask ``m`` as 36 bytes of 0/1 at ``out`` (writes 40: the caller's next block covers the rest)."""
    memcpy(out, &EXPAND[m & 255], 8)
    memcpy(out + 8, &EXPAND[(m >> 8) & 255], 8)
    memcpy(out + 16, &EXPAND[(m >> 16) & 255], 8)
    memcpy(out + 24, &EXPAND[(m >> 24) & 255], 8)
    memcpy(out + 32, &EXPAND[(m >> 32) & 255], 8)


# --------------------------------------------------------------------------- rewards and the deal
cdef float WIN_R[2][2]   # [winner][seat], the rules layer's _WIN
cdef float TIE_R[2]
cdef int DEAL_HAND = HAND_SIZE
assert 2 * HAND_SIZE + 2 <= NCARDS


def _fill_reward_tables():
    cdef int w, s
    for w in range(2):
        for s in range(2):
            WIN_R[w][s] = _WIN[w][s]
    for s in range(2):
        TIE_R[s] = _TIE[s]


_fill_reward_tables()


# --------------------------------------------------------------------------- the game in C
cdef int th_n_actions() noexcept nogil:
    """Size of the action space."""
    return N_ACTIONS


cdef int th_obs_size() noexcept nogil:
    """Length of an observation."""
    return OBS_N


cdef bint th_over(const TState *s) noexcept nogil:
    """Whether the game has ended."""
    return s.phase == PH_OVER


cdef void th_deal_cards(TState *s, const signed char *deck, int first) noexcept nogil:
    """The deal of the shuffled ``deck`` (36 ids) with ``first`` to move, in the rules
    layer's order: the one home of it (:func:`th_deal` and :meth:`Engine.deal`)."""
    cdef int i
    memset(s, 0, sizeof(TState))
    for i in range(DEAL_HAND):
        s.concealed[0] |= 1ULL << deck[i]
        s.concealed[1] |= 1ULL << deck[DEAL_HAND + i]
    s.center = (1ULL << deck[2 * DEAL_HAND]) | (1ULL << deck[2 * DEAL_HAND + 1])
    s.npile = NCARDS - 2 * DEAL_HAND - 2
    memcpy(s.pile, deck + 2 * DEAL_HAND + 2, s.npile)
    s.remaining = -1
    s.seat = first
    s.phase = PH_DISCARD
    s.first_player = first
    s.winner = -1
    s.turn = 1


cdef void th_deal(TState *s, sg_pcg64 *rng, int first_player) noexcept nogil:
    """``game.new_state(Generator(PCG64(seed)))`` into ``s``, ``rng`` being ``PCG64(seed)``:
    the same shuffle of the 36 ids, then ``integers(2)`` when ``first_player`` is -1
    (``"random"``), and the rules layer's deal order (see :mod:`tethsi_env.rules`)."""
    cdef signed char deck[NCARDS]
    cdef int i, first
    for i in range(NCARDS):
        deck[i] = i
    sg_shuffle_schar(rng, deck, NCARDS)
    first = <int> sg_lemire(sg_pcg64_next32_v, rng, 2) if first_player < 0 else first_player
    th_deal_cards(s, deck, first)


cdef void th_redeal(TState *s, int seat, sg_pcg64 *rng) noexcept nogil:
    """``game.determinize(state, seat, Generator(rng))`` in place: the cards ``seat`` has not
    seen (the opponent's concealed hand and the pile) in ascending id order, shuffled with
    ``permutation``'s swaps, the first to the opponent's hand and the rest to the pile."""
    cdef int opp = seat ^ 1
    cdef int n = popcount64(s.concealed[opp])
    cdef int i, m = 0
    cdef u64 unseen = s.concealed[opp]
    cdef signed char order[NCARDS]
    for i in range(s.npile):
        unseen |= 1ULL << s.pile[i]
    while unseen:
        order[m] = ctz64(unseen)
        m += 1
        unseen &= unseen - 1
    sg_shuffle_schar(rng, order, m)
    s.concealed[opp] = 0
    for i in range(n):
        s.concealed[opp] |= 1ULL << order[i]
    memcpy(s.pile, order + n, m - n)


cdef void th_fill_mask(const TState *s, char *m) noexcept nogil:
    """Set the legal actions' bytes of the zeroed ``N_ACTIONS`` bytes at ``m``."""
    cdef u64 c, hand, rest, ys
    cdef int x, r, phase = s.phase
    if phase == PH_DISCARD:
        c = s.center
        if c:
            m[ctz64(c)] = 1
            c &= c - 1
            if c:
                m[63 - clz64(c)] = 1
    elif phase == PH_CHOOSE:
        hand = s.concealed[s.seat] | s.front[s.seat]
        m[A_TAKE] = 1
        m[A_NOTHING] = 1
        r = s.remaining
        rest = hand & FIRST_MASK[r]
        while rest:
            x = ctz64(rest)
            rest &= rest - 1
            ys = ABOVE[r][x] & hand
            while ys:
                m[PAIR_ID[x][ctz64(ys)]] = 1
                ys &= ys - 1
    elif phase == PH_PLAY:
        hand = s.concealed[s.seat] | s.front[s.seat]
        while hand:
            m[A_PLAY_START + ctz64(hand)] = 1
            hand &= hand - 1


cdef int th_legal(const TState *s, int *out) noexcept nogil:
    """The legal action ids, ascending, into ``out`` (room for ``N_ACTIONS``); their count.

    The same walk as :func:`th_fill_mask`; a discard with an empty center (a
    hand-built state only) lists nothing here."""
    cdef u64 c, hand, rest, ys
    cdef int x, r, n = 0, phase = s.phase
    if phase == PH_DISCARD:
        c = s.center
        if c:
            out[0] = ctz64(c)
            n = 1
            c &= c - 1
            if c:
                out[1] = 63 - clz64(c)
                n = 2
    elif phase == PH_CHOOSE:
        hand = s.concealed[s.seat] | s.front[s.seat]
        out[0] = A_TAKE
        out[1] = A_NOTHING
        n = 2
        r = s.remaining
        rest = hand & FIRST_MASK[r]
        while rest:
            x = ctz64(rest)
            rest &= rest - 1
            ys = ABOVE[r][x] & hand
            while ys:
                out[n] = PAIR_ID[x][ctz64(ys)]
                n += 1
                ys &= ys - 1
    elif phase == PH_PLAY:
        hand = s.concealed[s.seat] | s.front[s.seat]
        while hand:
            out[n] = A_PLAY_START + ctz64(hand)
            n += 1
            hand &= hand - 1
    return n


cdef bint th_is_legal(const TState *s, int action) noexcept nogil:
    """Whether ``action`` (in range) is legal now, by the same rules as :func:`th_fill_mask`."""
    cdef u64 c, hand
    cdef int x, r, phase = s.phase, kind = ACT_KIND[action]
    if phase == PH_DISCARD:
        c = s.center
        if kind != K_DISCARD or not c:
            return False
        x = ctz64(c)
        c &= c - 1
        return action == x or (c != 0 and action == 63 - clz64(c))
    if phase == PH_OVER:
        return False
    hand = s.concealed[s.seat] | s.front[s.seat]
    if phase == PH_CHOOSE:
        if kind == K_TAKE or kind == K_NOTHING:
            return True
        if kind != K_SET:
            return False
        r = s.remaining
        x = ACT_X[action]
        # The walk of the mask reaches (x, y) when x is a first card of r in the
        # hand and y one of its partners above x in the hand (set actions have x < y).
        return ((hand & FIRST_MASK[r]) >> x) & 1 and ((ABOVE[r][x] & hand) >> ACT_Y[action]) & 1
    if phase == PH_PLAY:
        return kind == K_PLAY and (hand >> (action - A_PLAY_START)) & 1
    return False


cdef inline int _th_reveal(TState *s, int p, unsigned int *h) noexcept nogil:
    """End of seat ``p``'s turn: the pile's top card to the center, or a tie on an empty pile
    (its row pushed to the history ring ``h`` unless NULL)."""
    if s.npile == 0:
        s.phase = PH_OVER
        if h != NULL:
            sg_history_add(h, TH_HLEN, 2, sg_event(HK_TIE, p, -1, 0))
        return TH_TIED
    s.npile -= 1
    s.center |= 1ULL << s.pile[s.npile]
    if h != NULL:
        sg_history_add(h, TH_HLEN, 2, sg_event(HK_REVEAL, p, s.pile[s.npile], 0))
    s.seat = p ^ 1
    s.phase = PH_DISCARD
    s.turn += 1
    return TH_RUNNING


cdef int th_apply(TState *s, int action, unsigned int *h) noexcept nogil:
    """Play the legal ``action`` (not re-checked; a Set needs fewer than ``MAX_SETS`` Sets
    of the mover); returns ``TH_RUNNING``, ``TH_WON`` or ``TH_TIED``.

    ``h``: the game's history record (``TH_HWORDS`` words, ``setgames/_history.pxd``), where the
    step pushes the rows :func:`tethsi_env.history.history_rows` makes of its events; NULL
    outside the history mode and on every copy a search or a play-out steps. After a reveal
    the card revealed is ``s.pile[s.npile]`` (popped, not cleared)."""
    cdef int kind = ACT_KIND[action], p = s.seat, r, x, y, k, card, n
    cdef u64 bit, bits
    if kind == K_DISCARD:
        bit = 1ULL << action
        s.center ^= bit
        s.discard |= bit
        s.remaining = 63 - clz64(s.center) if s.center else -1
        s.phase = PH_CHOOSE
        if h != NULL:
            sg_history_add(h, TH_HLEN, 2, sg_event(HK_DISCARD, p, action, 0))
        return TH_RUNNING
    if kind == K_TAKE:
        if h != NULL:
            sg_history_add(h, TH_HLEN, 2, sg_event(HK_TAKE, p, s.remaining, 0))
        s.front[p] |= 1ULL << s.remaining
        s.center = 0
        s.remaining = -1
        s.phase = PH_PLAY
        return TH_RUNNING
    if kind == K_NOTHING:
        if h != NULL:
            sg_history_add(h, TH_HLEN, 2, sg_event(HK_NOTHING, p, s.remaining, 0))
        s.remaining = -1
        return _th_reveal(s, p, h)
    if kind == K_SET:
        x = ACT_X[action]
        y = ACT_Y[action]
        r = s.remaining
        k = SET_KIND[action][r]
        bits = (1ULL << x) | (1ULL << y)
        s.concealed[p] &= ~bits
        s.front[p] &= ~bits
        s.set_cards[p] |= bits | (1ULL << r)
        n = s.nsets[p]
        s.sets[p][n][0] = x
        s.sets[p][n][1] = y
        s.sets[p][n][2] = r
        s.sets[p][n][3] = k
        s.nsets[p] = n + 1
        s.kind_count[p][k] += 1
        s.center = 0
        s.remaining = -1
        if h != NULL:
            sg_history_add(h, TH_HLEN, 2, sg_event(HK_SET, p, x, k + 1))
            sg_history_add(h, TH_HLEN, 2, sg_event(HK_SET, p, y, k + 1))
            sg_history_add(h, TH_HLEN, 2, sg_event(HK_SET, p, r, k + 1))
        if not (s.concealed[p] | s.front[p]):
            s.phase = PH_OVER
            s.winner = p
            if h != NULL:
                sg_history_add(h, TH_HLEN, 2, sg_event(HK_WIN, p, -1, 0))
            return TH_WON
        s.phase = PH_PLAY
        return TH_RUNNING
    # play
    card = action - A_PLAY_START
    bit = 1ULL << card
    if s.concealed[p] & bit:
        s.concealed[p] ^= bit
    else:
        s.front[p] ^= bit
    s.center |= bit
    if h != NULL:
        sg_history_add(h, TH_HLEN, 2, sg_event(HK_PLAY, p, card, 0))
    return _th_reveal(s, p, h)


cdef void th_observe(const TState *s, int seat, unsigned char *out) noexcept nogil:
    """``seat``'s observation (``game.observe``) into the ``OBS_N`` bytes at ``out``.

    The blocks go in offset order and each one's 4-byte spill is covered by the
    next (checked at import), so ``out`` may be a row of a larger array."""
    cdef int opp = seat ^ 1, k, phase = s.phase
    _expand36(out + O_MY_CONCEALED, s.concealed[seat])
    _expand36(out + O_MY_FRONT, s.front[seat])
    _expand36(out + O_OPP_FRONT, s.front[opp])
    _expand36(out + O_CENTER, s.center)
    _expand36(out + O_REMAINING, (1ULL << s.remaining) if s.remaining >= 0 else 0)
    _expand36(out + O_DISCARD, s.discard)
    _expand36(out + O_MY_SETS, s.set_cards[seat])
    _expand36(out + O_OPP_SETS, s.set_cards[opp])
    k = PHASE_BITS[phase]
    out[O_PHASE] = k & 1
    out[O_PHASE + 1] = (k >> 1) & 1
    out[O_PHASE + 2] = (k >> 2) & 1
    out[O_MY_TURN] = phase != PH_OVER and s.seat == seat
    for k in range(NKINDS):
        out[O_MY_KINDS + k] = s.kind_count[seat][k]
        out[O_OPP_KINDS + k] = s.kind_count[opp][k]
    out[O_OPP_COUNT] = popcount64(s.concealed[opp])
    out[O_PILE] = s.npile


# --------------------------------------------------------------------------- the structure block
# tethsi_env.structure is the reference (its docstring: the zones, what each feature counts);
# th_structure computes the same counts on card masks, from the kernel's table of the pairs
# that complete each card to a Set.
_BL = _structure.BLOCK_SPEC.slices
cdef int S_IN_SET = _BL["my_card_in_set"].start
cdef int S_PARTNERS = _BL["my_card_partners"].start
cdef int S_OUTS = _BL["my_card_outs"].start
cdef int S_COMPLETES = _BL["my_completes"].start
cdef int S_CENTER_OUTS = _BL["center_outs"].start
cdef int S_THREAT = _BL["opp_threat"].start
cdef int S_HALF = _BL["opp_half_threat"].start
cdef int S_MY_OUTS = _BL["my_outs"].start
cdef int S_MY_OPEN = _BL["my_open_pairs"].start
cdef int S_OPP_OPEN = _BL["opp_open_pairs"].start
cdef int S_MY_HAND = _BL["my_hand_size"].start
cdef int S_OPP_HAND = _BL["opp_hand_size"].start
cdef int S_UNSEEN = _BL["unseen_count"].start
cdef int S_RESULT = _BL["result"].start
cdef int S_SIZE = _structure.BLOCK_SPEC.size
cdef int PAIRS_CAP = _structure.PAIRS_CAP
assert S_SIZE == S_RESULT + 1 and S_CENTER_OUTS == S_COMPLETES + NCARDS
cdef int OBS_STRUCT_N = _structure.STRUCTURE_SPEC.size
assert OBS_STRUCT_N == OBS_N + S_SIZE
cdef int OBS_HIST_N = _hist_py.HISTORY_SPEC.size
assert OBS_HIST_N == OBS_N + 4 * TH_HLEN + 1
cdef u64 ALL_CARDS = (1ULL << NCARDS) - 1
cdef u64 COMPLETE[NCARDS][NCARDS]   # [x][y]: the cards z with {x, y, z} a Set
cdef u64 PARTNERS[NCARDS][NCARDS]   # [z][x]: the cards y with {x, y, z} a Set
cdef u64 IN_ANY[NCARDS]             # [z]: the cards of some pair completing z


def _fill_structure_tables():
    cdef int x, y, z
    for x in range(NCARDS):
        IN_ANY[x] = 0
        for y in range(NCARDS):
            COMPLETE[x][y] = 0
            PARTNERS[x][y] = 0
    for z in range(NCARDS):
        for _m, x, y in PAIRS_BY_CARD[z]:
            COMPLETE[x][y] |= 1ULL << z
            COMPLETE[y][x] |= 1ULL << z
            PARTNERS[z][x] |= 1ULL << y
            PARTNERS[z][y] |= 1ULL << x
            IN_ANY[z] |= (1ULL << x) | (1ULL << y)


_fill_structure_tables()


cdef inline int _pairs_completing(u64 m, int z) noexcept nogil:
    """How many pairs of the cards ``m`` (``z`` not among them) complete ``z`` to a Set."""
    cdef int n = 0
    cdef u64 rest = m & IN_ANY[z]
    while rest:
        n += popcount64(PARTNERS[z][ctz64(rest)] & m)
        rest &= rest - 1
    return n >> 1  # each pair counted from both of its cards


cdef void th_structure(const TState *s, int seat, unsigned char *out) noexcept nogil:
    """``seat``'s structure block (:func:`tethsi_env.structure.structure_bytes`) into the
    ``S_SIZE`` bytes at ``out``."""
    cdef int opp = seat ^ 1, x, y, z, k, open_mine = 0, open_opp = 0
    cdef u64 hand = s.concealed[seat] | s.front[seat]
    cdef u64 front = s.front[opp]
    cdef u64 seen = hand | front | s.center | s.discard | s.set_cards[0] | s.set_cards[1]
    cdef u64 unseen = ALL_CARDS & ~seen
    cdef u64 avail = unseen | s.center          # may still complete my pairs
    cdef u64 reach = avail | hand               # may still complete the opponent's front pairs
    cdef u64 outs_mask = 0, hx, hy, comp, fx, ux, bits
    memset(out, 0, S_SIZE)
    # my pairs: in a Set of hand cards, partial sets, outs, the cards completing them
    hx = hand
    while hx:
        x = ctz64(hx)
        hx &= hx - 1
        hy = hx
        while hy:
            y = ctz64(hy)
            hy &= hy - 1
            comp = COMPLETE[x][y]
            if comp & hand:
                out[S_IN_SET + x] = 1
                out[S_IN_SET + y] = 1
            if comp & avail:
                open_mine += 1
                out[S_PARTNERS + x] += 1
                out[S_PARTNERS + y] += 1
                k = popcount64(comp & unseen)
                out[S_OUTS + x] += k
                out[S_OUTS + y] += k
                outs_mask |= comp & unseen
                bits = comp & avail
                while bits:
                    out[S_COMPLETES + ctz64(bits)] += 1
                    bits &= bits - 1
    # what each center card would bring: its Sets with a hand card and an unseen card
    bits = s.center
    while bits:
        z = ctz64(bits)
        bits &= bits - 1
        hx = hand
        k = 0
        while hx:
            k += popcount64(COMPLETE[z][ctz64(hx)] & unseen)
            hx &= hx - 1
        out[S_CENTER_OUTS + z] = k
    # the opponent's front pairs and the cards completing them
    fx = front
    while fx:
        x = ctz64(fx)
        fx &= fx - 1
        hy = fx
        while hy:
            y = ctz64(hy)
            hy &= hy - 1
            comp = COMPLETE[x][y] & reach
            if comp:
                open_opp += 1
                while comp:
                    out[S_THREAT + ctz64(comp)] += 1
                    comp &= comp - 1
        # the Sets of a front card, an unseen card and a card I hold or see in the center
        ux = hand | s.center
        while ux:
            z = ctz64(ux)
            ux &= ux - 1
            out[S_HALF + z] += popcount64(PARTNERS[z][x] & unseen)
    out[S_MY_OUTS] = popcount64(outs_mask)
    out[S_MY_OPEN] = open_mine if open_mine < PAIRS_CAP else PAIRS_CAP
    out[S_OPP_OPEN] = open_opp if open_opp < PAIRS_CAP else PAIRS_CAP
    out[S_MY_HAND] = popcount64(hand)
    out[S_OPP_HAND] = popcount64(s.concealed[opp] | front)
    out[S_UNSEEN] = popcount64(unseen)
    if s.phase == PH_OVER and s.winner >= 0:
        out[S_RESULT] = 1 if s.winner == seat else 255  # -1 as an int8


# --------------------------------------------------------------------------- per-action features
# tethsi_env.structure.action_rows is the reference (ACTION_SPEC: the row's entries).
_AF = _structure.ACTION_SPEC.slices
cdef int AF_N = _structure.ACTION_SPEC.size
cdef int AF_CARD = _AF["card"].start
cdef int AF_SET_KIND = _AF["set_kind"].start
cdef int AF_WINS = _AF["wins"].start
cdef int AF_AFTER = _AF["center_sets_after"].start
cdef int AF_HAND = _AF["hand_size_after"].start
cdef int AF_SETS = _AF["sets_after"].start
cdef int OUT_SETS_CAP = _structure.OUT_SETS_CAP
assert [_AF[n].start for n in ("is_discard", "is_take", "is_nothing", "is_set", "is_play")] == [
    K_DISCARD, K_TAKE, K_NOTHING, K_SET, K_PLAY]
assert [f.name for f in _structure.ACTION_SPEC.features[_AF["center_sets_after"].start:AF_HAND]] == [
    "center_sets_after", "center_outs_after", "my_open_pairs_after", "my_outs_after", "my_out_sets_after", "my_trash_after",
    "opp_center_sets_after", "opp_center_half_after"]
assert AF_SETS == AF_N - 1 and AF_HAND == AF_SETS - 1


cdef inline void _after_facts(u64 hand, u64 unseen, u64 center, u64 front, signed char *row) noexcept nogil:
    """The ``*_after`` entries of a row (``center_sets_after`` .. ``opp_center_half_after``) for
    the zones after an action (:func:`tethsi_env.structure._after_facts`)."""
    cdef u64 avail = unseen | center, hx = hand, hy, comp, outs_mask = 0, paired = 0, cz = center, f
    cdef int x, y, z, open_pairs = 0, out_sets = 0, center_sets = 0, center_outs = 0, opp_center = 0
    cdef int opp_half = 0
    while hx:
        x = ctz64(hx)
        hx &= hx - 1
        hy = hx
        while hy:
            y = ctz64(hy)
            hy &= hy - 1
            comp = COMPLETE[x][y]
            if comp & avail:
                open_pairs += 1
                paired |= (1ULL << x) | (1ULL << y)
                out_sets += popcount64(comp & unseen)
                outs_mask |= comp & unseen
                center_sets += popcount64(comp & center)
    while cz:
        z = ctz64(cz)
        cz &= cz - 1
        opp_center += _pairs_completing(front, z)
        hx = hand
        while hx:
            center_outs += popcount64(COMPLETE[z][ctz64(hx)] & unseen)
            hx &= hx - 1
        f = front
        while f:
            opp_half += popcount64(PARTNERS[z][ctz64(f)] & unseen)
            f &= f - 1
    row[0] = center_sets
    row[1] = center_outs if center_outs < OUT_SETS_CAP else OUT_SETS_CAP
    row[2] = open_pairs if open_pairs < PAIRS_CAP else PAIRS_CAP
    row[3] = popcount64(outs_mask)
    row[4] = out_sets if out_sets < OUT_SETS_CAP else OUT_SETS_CAP
    row[5] = popcount64(hand & ~paired)
    row[6] = opp_center
    row[7] = opp_half if opp_half < OUT_SETS_CAP else OUT_SETS_CAP


cdef void th_action_features(const TState *s, int seat, signed char *out) noexcept nogil:
    """``game.action_features(state, seat)`` into the zeroed ``N_ACTIONS x AF_N`` bytes at ``out``
    (row-major): the rows of the actions legal to ``seat``; nothing when ``seat`` is not to act."""
    cdef int legal[MAX_ACTIONS]
    cdef int n, i, a, kind, card, opp = seat ^ 1, sets
    cdef u64 hand = s.concealed[seat] | s.front[seat], h, cen
    cdef u64 seen = hand | s.front[opp] | s.center | s.discard | s.set_cards[0] | s.set_cards[1]
    cdef u64 unseen = ALL_CARDS & ~seen
    cdef signed char *row
    if s.phase == PH_OVER or s.seat != seat:
        return
    n = th_legal(s, legal)
    for i in range(n):
        a = legal[i]
        kind = ACT_KIND[a]
        row = out + a * AF_N
        row[kind] = 1
        h = hand
        cen = s.center
        sets = s.nsets[seat]
        if kind == K_DISCARD:
            card = a
            cen &= ~(1ULL << a)
        elif kind == K_PLAY:
            card = a - A_PLAY_START
            h &= ~(1ULL << card)
            cen |= 1ULL << card
        else:
            card = s.remaining
            cen = 0
            if kind == K_TAKE:
                h |= 1ULL << card
            elif kind == K_SET:
                h &= ~((1ULL << ACT_X[a]) | (1ULL << ACT_Y[a]))
                sets += 1
                row[AF_SET_KIND] = 1 + SET_KIND[a][card]
                row[AF_WINS] = h == 0
            else:  # nothing: the remaining card stays in the center
                cen = s.center
        row[AF_CARD] = card
        _after_facts(h, unseen, cen, s.front[opp], row + AF_AFTER)
        row[AF_HAND] = popcount64(h)
        row[AF_SETS] = sets if sets < 12 else 12


cdef int th_action_feature_size() noexcept nogil:
    """Entries of one row of the per-action features."""
    return AF_N


cdef int th_obs_size_of(bint structure) noexcept nogil:
    """Length of an observation of the ``cards`` mode, or of the ``structure`` mode."""
    return OBS_STRUCT_N if structure else OBS_N


cdef int th_history_obs_size() noexcept nogil:
    """Length of an observation of the ``history`` mode."""
    return OBS_HIST_N


cdef void th_observe_history(const TState *s, const unsigned int *h, int seat, unsigned char *out) noexcept nogil:
    """``seat``'s observation of the ``history`` mode: :func:`th_observe`, then the block of the
    game's ring ``h`` (the one writer of the engine and the batch)."""
    th_observe(s, seat, out)
    sg_history_block(h, TH_HLEN, seat, <signed char *> (out + OBS_N))


cdef void th_observe_mode(const TState *s, int seat, bint structure, unsigned char *out) noexcept nogil:
    """``seat``'s observation of the game's mode: :func:`th_observe`, then with ``structure``
    the structure block (the one observation writer of the engine and the batch)."""
    th_observe(s, seat, out)
    if structure:
        th_structure(s, seat, out + OBS_N)


cdef void th_returns(const TState *s, float *out) noexcept nogil:
    """Per-seat returns (``game.returns``): +1 / -1 for a win, 0 / 0 otherwise."""
    if s.phase == PH_OVER and s.winner >= 0:
        out[0] = WIN_R[s.winner][0]
        out[1] = WIN_R[s.winner][1]
    else:
        out[0] = TIE_R[0]
        out[1] = TIE_R[1]


# --------------------------------------------------------------------------- the single-game engine
cdef class Engine:
    """A Tet Hsi game in one C struct, stepped like :class:`tethsi_env.rules.TetHsiGame`.

    Args:
        game: the :class:`~tethsi_env.rules.TetHsiGame` whose rules this engine
            runs (its ``first_player`` option acts at the deal, which the rules
            layer makes; the engine takes dealt states through :meth:`load`).
    """

    # Attributes are declared in _engine.pxd (the greedy bot reads the struct).

    def __init__(self, game):
        self._game = game
        self.structure = game.config.obs == "structure"
        self.history = game.config.obs == "history"
        sg_history_reset(self.hist, TH_HLEN, 2)
        self._events = []
        self.nev = 0
        self._final = None
        memset(&self.st, 0, sizeof(TState))
        self.st.phase = PH_OVER
        self.st.remaining = -1
        self.st.winner = -1

    # ------------------------------------------------------------- state in / out
    def load(self, state):
        """Copy a rules-layer :class:`~tethsi_env.rules.TetHsiState` in (not kept, not changed).

        Raises:
            ValueError: a state the rules could not produce (``game.validate``),
                refused before anything is copied.
        """
        cdef int s, i, c
        cdef TState *st = &self.st
        # The rules layer's validator first: nothing is copied from a refused state,
        # and what passes is in range for the unchecked C below.
        self._game.validate(state)
        pile = state.pile
        if not (state.seat in (0, 1) and 0 <= state.phase <= PH_OVER and -1 <= state.remaining < NCARDS):
            raise ValueError(f"seat {state.seat!r}, phase {state.phase!r} or remaining card "
                             f"{state.remaining!r} out of range")
        if state.phase == PH_CHOOSE and state.remaining < 0:
            raise ValueError("a state choosing take / set / nothing needs a remaining card")
        if len(pile) > NCARDS:
            raise ValueError(f"draw pile of {len(pile)} cards is longer than the deck")
        for s in range(2):
            sets = state.sets[s]
            if len(sets) > MAX_SETS:
                raise ValueError(f"seat {s} has {len(sets)} Sets, more than the deck allows")
            for i in range(len(sets)):
                if not (0 <= sets[i][3] < NKINDS):
                    raise ValueError(f"Set {sets[i]!r} has no kind index 0..{NKINDS - 1}")
        for i in range(len(pile)):
            if not (0 <= pile[i] < NCARDS):
                raise ValueError(f"pile card {pile[i]!r} is not a standard card id")
        for s in range(2):
            st.concealed[s] = state.concealed[s]
            st.front[s] = state.front[s]
            st.set_cards[s] = state.set_cards[s]
            sets = state.sets[s]
            st.nsets[s] = len(sets)
            memset(st.kind_count[s], 0, sizeof(st.kind_count[s]))
            for i in range(len(sets)):
                x, y, r, k = sets[i]
                st.sets[s][i][0] = x
                st.sets[s][i][1] = y
                st.sets[s][i][2] = r
                st.sets[s][i][3] = k
                st.kind_count[s][k] += 1
        st.center = state.center
        st.discard = state.discard
        for i in range(len(pile)):
            c = pile[i]
            st.pile[i] = c
        st.npile = len(pile)
        st.remaining = state.remaining
        st.seat = state.seat
        st.phase = state.phase
        st.first_player = state.first_player
        st.turn = state.turn
        st.winner = state.winner
        self.reason = state.reason
        self._events = list(state.events)
        self.nev = 0
        self._final = None
        if self.history:
            # The ring from the loaded record, so that observe() shows what the rules layer does.
            sg_history_reset(self.hist, TH_HLEN, 2)
            for row in _hist_py.history_rows(self._events):
                sg_history_add(self.hist, TH_HLEN, 2, sg_event(row[0], row[1], row[2], row[3]))

    cdef void _flush_events(self):
        """Move the C event records to the Python list as the rules layer's tuples."""
        cdef int i
        cdef Event *e
        out = self._events
        for i in range(self.nev):
            e = &self.ev[i]
            name = _EVENT_NAMES[e.kind]
            if e.kind == EV_SET:
                out.append((name, e.seat, e.a, e.b, e.c, _KIND_NAMES[e.k]))
            elif e.kind == EV_WIN:
                out.append((name, e.seat, _REASON_THIRD_SET))
            elif e.kind == EV_TIE:
                out.append((name, e.seat, _REASON_EMPTY_PILE))
            else:
                out.append((name, e.seat, e.a))
        self.nev = 0

    cdef Event *_event(self, int kind, int seat, int a):
        if self.nev == EVENT_CAP:
            self._flush_events()
        cdef Event *e = &self.ev[self.nev]
        e.kind = kind
        e.seat = seat
        e.a = a
        self.nev += 1
        return e

    cdef object _state(self, bint with_events):
        """The rules-layer state equal to this one (events left empty unless asked for)."""
        cdef int s, i
        cdef TState *st = &self.st
        if with_events:
            self._flush_events()
        sets = [[(st.sets[s][i][0], st.sets[s][i][1], st.sets[s][i][2], st.sets[s][i][3])
                 for i in range(st.nsets[s])] for s in range(2)]
        return _rules.TetHsiState(
            [st.concealed[0], st.concealed[1]], [st.front[0], st.front[1]], st.center,
            st.remaining, st.discard, [st.set_cards[0], st.set_cards[1]], sets,
            [st.pile[i] for i in range(st.npile)], st.seat, st.phase, st.first_player,
            st.turn, st.winner, self.reason, self._events[:] if with_events else [])

    def deal(self, rng):
        """Shuffle and deal a new game from the numpy ``Generator`` ``rng``: the state
        ``load(game.new_state(rng))`` gives, from the same numpy calls (the shuffle of the
        36 ids, then ``integers(2)`` for ``first_player="random"``), without building and
        validating a rules-layer state (the optional engine method envs reset with)."""
        cdef signed char deck[NCARDS]
        cdef int i
        cards = list(range(NCARDS))
        rng.shuffle(cards)  # what new_state shuffles: the draws of permutation(36)
        fp = self._game.config.first_player
        first = int(rng.integers(2)) if fp == "random" else int(fp)
        for i in range(NCARDS):
            deck[i] = cards[i]
        th_deal_cards(&self.st, deck, first)
        sg_history_reset(self.hist, TH_HLEN, 2)  # the deal adds no row (tethsi_env.history)
        self.reason = None
        self._events = []
        self.nev = 0
        self._final = None

    def to_json(self):
        """``game.to_json`` of the current state (``game.from_json`` rebuilds it)."""
        return self._game.to_json(self._state(True))

    def __reduce__(self):
        """Copy and pickle through the rules layer's JSON (:func:`setgames.engine.rebuild`)."""
        return _from_json_state, (type(self), type(self._game), self._game.config_dict(), self.to_json())

    def outcome(self):
        """``game.outcome`` of the current state (meant for a finished game)."""
        if self._final is None:
            self._final = self._state(False)
        return self._game.outcome(self._final)

    def is_truncated(self):
        """``game.is_truncated`` of the current state."""
        if self._final is None:
            self._final = self._state(False)
        return self._game.is_truncated(self._final)

    # ------------------------------------------------------------- queries
    def current_seat(self):
        """Seat to move, -1 once the game is over."""
        return -1 if self.st.phase == PH_OVER else self.st.seat

    def legal_actions(self):
        """Legal action ids, ascending (a new list)."""
        cdef int out[MAX_ACTIONS]
        cdef int i, n
        if self.st.phase == PH_DISCARD and not self.st.center:
            return [-1, -1]  # as the rules layer on a hand-built state with an empty center
        n = th_legal(&self.st, out)
        return [out[i] for i in range(n)]

    def mask(self):
        """The legal actions as a new writable int8 0/1 ndarray, one entry per action id
        (made through numpy's C API: ``np.frombuffer`` of a bytearray costs several times more)."""
        cdef cnp.npy_intp n = N_ACTIONS
        arr = cnp.PyArray_ZEROS(1, &n, cnp.NPY_INT8, 0)
        th_fill_mask(&self.st, <char *> cnp.PyArray_DATA(<cnp.ndarray> arr))
        return arr

    def observe(self, int seat):
        """``seat``'s observation (``game.observe``, in the game's ``obs`` mode), a new writable
        int8 array.

        Raises:
            ValueError: ``seat`` is not 0 or 1.
        """
        cdef cnp.npy_intp n = OBS_HIST_N if self.history else th_obs_size_of(self.structure)
        if seat & ~1:
            raise ValueError(f"seat {seat!r} is not 0 or 1")
        arr = cnp.PyArray_SimpleNew(1, &n, cnp.NPY_INT8)
        if self.history:
            th_observe_history(&self.st, self.hist, seat, <unsigned char *> cnp.PyArray_DATA(<cnp.ndarray> arr))
        else:
            th_observe_mode(&self.st, seat, self.structure,
                            <unsigned char *> cnp.PyArray_DATA(<cnp.ndarray> arr))
        return arr

    def action_features(self, int seat):
        """``game.action_features(state, seat)``: a new int8 array ``(num_actions, F)``.

        Raises:
            ValueError: ``seat`` is not 0 or 1.
        """
        cdef cnp.npy_intp dims[2]
        if seat & ~1:
            raise ValueError(f"seat {seat!r} is not 0 or 1")
        dims[0] = N_ACTIONS
        dims[1] = AF_N
        arr = cnp.PyArray_ZEROS(2, dims, cnp.NPY_INT8, 0)
        th_action_features(&self.st, seat, <signed char *> cnp.PyArray_DATA(<cnp.ndarray> arr))
        return arr

    # ------------------------------------------------------------- apply
    def apply(self, int action):
        """Play ``action``; the rewards tuple on the step that ends the game, else None.

        Raises:
            ValueError: ``action`` is out of range or not legal now (nothing changes).
        """
        cdef TState *st = &self.st
        cdef int kind, p = st.seat, r = st.remaining, status
        cdef Event *e
        # The env does no legality test of its own on the engine path: this is the one.
        if not 0 <= action < N_ACTIONS:
            raise ValueError(f"action {action!r} is out of range 0..{N_ACTIONS - 1}")
        if not th_is_legal(st, action):
            raise ValueError(f"action {action} is not legal now (legal: {self.legal_actions()})")
        kind = ACT_KIND[action]
        if kind == K_SET and st.nsets[p] == MAX_SETS:  # a hand-built state only: 36 cards make 12 Sets
            raise ValueError(f"seat {p} already has {MAX_SETS} Sets")
        if self._final is not None:
            self._final = None
        status = th_apply(st, action, self.hist if self.history else NULL)
        # The public record, from what th_apply changed.
        if kind == K_DISCARD:
            self._event(EV_DISCARD, p, action)
        elif kind == K_TAKE:
            self._event(EV_TAKE, p, r)
        elif kind == K_NOTHING:
            self._event(EV_NOTHING, p, r)
        elif kind == K_SET:
            e = self._event(EV_SET, p, ACT_X[action])
            e.b = ACT_Y[action]
            e.c = r
            e.k = st.sets[p][st.nsets[p] - 1][3]
        else:
            self._event(EV_PLAY, p, action - A_PLAY_START)
        if status == TH_WON:
            self.reason = _REASON_THIRD_SET
            self._event(EV_WIN, p, 0)
            return _WIN[p]
        if status == TH_TIED:
            self.reason = _REASON_EMPTY_PILE
            self._event(EV_TIE, p, 0)
            return _TIE
        if kind == K_NOTHING or kind == K_PLAY:
            self._event(EV_REVEAL, p, st.pile[st.npile])
        return None

