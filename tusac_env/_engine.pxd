# cython: language_level=3
"""The Tu Sac game as a C struct and the ``nogil`` functions that step it.

One implementation serves :class:`tusac_env._engine.Engine` (one struct, the
AEC env's engine), the batched engine and the compiled greedy bot
(:mod:`tusac_env._greedy`). The functions are defined in ``_engine.pyx``.
"""

cimport cython
cimport numpy as cnp
from setgames.batch._rng cimport sg_pcg64

cdef enum:
    NT = 28          # card types (checked against setgames.cards in _engine.pyx)
    NCOMP = 9        # components of a private block (tusac_env.melds.COMPONENTS)
    NCODE = 256      # codes per component (4 ** 4 for the pawns; 4 ** 3 for the others)
    NMELD = 16       # meld actions (tusac_env.melds.NUM_MELD_ACTIONS)
    MAXOPT = 8       # most melds of one active card (6 today: checked in _engine.pyx)
    MAXSEAT = 4
    MAXPUB = 64      # public sets of all seats (a lone King is the only one-card set: 16 + 96 / 2; checked on load)
    MAXOBS = 400     # bytes of one seat's observation (checked per config)
    MAXSOBS = 400    # bytes of the structure block of one seat's observation (checked per config)
    MAXAFEAT = 128   # bytes of one per-action feature row (checked)
    NKIND = 12       # public set kinds a count row holds (9 today: checked in _engine.pyx)
    PADDING = 24     # bytes that round sizeof(TSState) up to a multiple of 64
    KHUI_IDX = 99    # win_meld's "meld index" of a Khui
    TS_MAXPAY = 32   # payments of one game end: 3 losers + 3 * 3 * 3 side payments at most (30)
    TS_MAXEV = 96    # events one deal or one step records (67 and 35 at most)
    TS_N_ACTIONS = 46
    TS_HLEN = 126    # the history mode's rows (tusac_env.history.HISTORY_LENGTH, checked in _engine.pyx)
    TS_HWORDS = 223  # words of a game's record of them for 4 seats (sg_history_words, checked)
    PH_OVER_C = 3    # Phase.OVER (checked in _engine.pyx)
    # game results (TSState.result)
    RES_NONE = 0
    RES_WIN = 1
    RES_FIRST_HAND_WIN = 2
    RES_DRAW = 3
    # event kinds (TSEvent.kind); the Engine turns them into the rules layer's tuples
    EV_DEAL = 0
    EV_QUAN = 1
    EV_KHAPS = 2
    EV_DISCARD = 3
    EV_HIT = 4
    EV_PASS = 5
    EV_MELD = 6
    EV_CLAIM = 7
    EV_WIN = 8
    EV_PENALTY = 9
    EV_PAY = 10
    EV_DRAW = 11
    # payment reasons (TSPay.reason)
    PAY_WIN = 0
    PAY_PENALTY = 1
    PAY_QUAN = 2
    PAY_KHUI = 3
    PAY_KHAP = 4

ctypedef struct TSEvent:
    signed char kind
    signed char seat
    short a, b, c, d   # per kind (see _engine.pyx's _event_tuple); a meld: kind index, count, cards in cards
    signed char cards[4]

ctypedef struct TSPay:
    signed char payer, payee, reason, loser   # loser: the seat a penalty pays for
    short amount                   # (a game's stake at most: (3 + 8 * 28) * 2 + 10)

ctypedef struct TSRecord:
    TSEvent ev[TS_MAXEV]           # events since the Engine's last flush

# What one seat's hand and public block come to: the counts a step updates and the legal moves
# and observations read. 112 bytes, so that n seats take n * 112 bytes (TSState.seats).
ctypedef struct TSSeat:
    unsigned int khaps             # types held three times
    unsigned int disc, high, win, hot
    unsigned char codes[NCOMP]     # (as tusac_env.melds keeps them; < NCODE)
    unsigned char ctrash[NCOMP]
    unsigned char trash, size, pub_n
    unsigned char private[NT]
    unsigned char pub_counts[NT]
    unsigned char kind_counts[NKIND]

# A batch holds thousands of these and steps each in turn: what a step reads and writes
# comes first, in bytes, so that it spans a few cache lines: the shared fields, then one
# TSSeat per seat, the game's seats first (a game of n seats touches the fields before
# ``seats`` and its n seats'); the game's end, the public sets and the config come after,
# packed, for a slot's size counts too (a batch of 2.7 KB slots ran at 0.8 of one of 1.5 KB
# at B=8,192). Observations are built from the counts when asked (ts_observe), not kept per
# seat. (sizeof is checked to be a multiple of 64 in _engine.pyx: every slot of a batch then
# starts on a cache line.)
ctypedef struct TSState:
    # hot
    signed char n
    signed char current, phase
    signed char active, active_from, active_how
    unsigned char active_passed, discard_worst, worst_ok
    signed char claim_kind, claim_seat   # last_claim (kind code, -1 before any)
    signed char winner, result           # result: RES_*
    unsigned char draw_len
    unsigned int worst_mask
    unsigned int hot_any
    unsigned char dead[NT]
    unsigned char exposed[NT]
    TSRecord *rec                  # the event record, NULL for none (the batch keeps none): here, as
                                   # every event reads it
    TSSeat seats[MAXSEAT]
    # warm: a step reads only the pile's top cards (draw[draw_len - 1] down), so the batch asks for
    # their line alone rather than the pile's two or three (a 3p slot's step then touches 8 lines, not 9)
    signed char draw[112]
    # cold: the game's end, the public sets, the config
    double returns[MAXSEAT]
    bint has_returns               # returns hold the game's end (the rules layer's non-empty list)
    int first, win_card, win_how, win_from, value, amount, penalized
    int npay
    int nev
    int first_player               # the config's first player, -1 for "random"
    bint penalty_rule
    double reward_scale
    int obs_size                   # bytes of one seat's observation
    int npub
    unsigned int pub[MAXPUB]       # the public sets of all seats as put down (ts_pub_* read one)
    TSPay pays[TS_MAXPAY]
    char pad[PADDING]

# A public set in TSState.pub: bits 0-1 its seat, 2-5 its kind, 6-8 its card count, then 5 bits a card type.
cdef inline int ts_pub_seat(unsigned int x) noexcept nogil:
    return x & 3

cdef inline int ts_pub_kind(unsigned int x) noexcept nogil:
    return x >> 2 & 15

cdef inline int ts_pub_ncards(unsigned int x) noexcept nogil:
    return x >> 6 & 7

cdef inline int ts_pub_card(unsigned int x, int j) noexcept nogil:
    return x >> (9 + 5 * j) & 31

cdef void ts_deal(TSState *g, sg_pcg64 *rng, unsigned int *h) noexcept nogil
cdef void ts_redeal(TSState *g, int seat, sg_pcg64 *rng) noexcept nogil
cdef void ts_rebuild(TSState *g) noexcept nogil
cdef unsigned long long ts_legal(TSState *g) noexcept nogil
cdef int ts_legal_list(TSState *g, int *out) noexcept nogil
cdef int ts_apply(TSState *g, int action, unsigned int *h) noexcept nogil
cdef void ts_observe(TSState *g, int seat, unsigned char *out) noexcept nogil
cdef int ts_history_size(int n) noexcept nogil
cdef void ts_history(const unsigned int *h, int seat, unsigned char *out) noexcept nogil
cdef unsigned long long ts_fill_mask(TSState *g, char *m) noexcept nogil
cdef int ts_structure_size(int n) noexcept nogil
cdef void ts_structure(TSState *g, int seat, unsigned char *b) noexcept nogil
cdef void ts_action_features(TSState *g, int seat, signed char *out) noexcept nogil
cdef void ts_setup(TSState *g, object config, TSRecord *rec) except *
cdef unsigned int ts_worst(TSState *g) noexcept nogil
cdef int ts_meld_trash(TSState *g, int s, int idx) noexcept nogil
cdef int ts_meld_kind(TSState *g, int idx) noexcept nogil
cdef void ts_meld_rest(TSState *g, int s, int idx, unsigned char *rest) noexcept nogil
cdef void ts_unseen(TSState *g, int s, int *out) noexcept nogil
cdef int ts_outs_sum(TSState *g, const unsigned char *counts, int *unseen) noexcept nogil


@cython.final
cdef class Engine:
    cdef object game
    cdef object config
    cdef TSState st
    cdef TSRecord rec                  # st.rec points here
    cdef object result                 # str (the rules layer's)
    cdef object payments               # list of [payer, payee, amount, reason]
    cdef object returns                # list of floats
    cdef list events
    # output array lengths (numpy's C API makes the arrays)
    cdef cnp.npy_intp obs_dims[1]
    cdef cnp.npy_intp mask_dims[1]
    cdef cnp.npy_intp feat_dims[2]
    cdef bint structure                # the game's obs is "structure": observe adds the block
    cdef bint history                  # the game's obs is "history": steps push to hist, observe adds it
    cdef unsigned int hist[TS_HWORDS]     # the history record (setgames/_history.pxd), in that mode

    cdef void _flush(self) except *
    cdef void _illegal(self, action) except *
    cdef object _step(self, int action)
    cdef void _end_fields(self, st) except *
    cdef unsigned int *_ring(self) noexcept
