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
    MAXSETS = 64     # public sets per seat (at most 112 cards; checked on load)
    MAXOBS = 400     # bytes of one seat's observation (checked per config)
    KHUI_IDX = 99    # win_meld's "meld index" of a Khui
    TS_MAXPAY = 48   # payments of one game end: 3 losers + 3 * 3 * 3 side payments at most
    TS_MAXEV = 96    # events one deal or one step records (67 and 35 at most)
    TS_N_ACTIONS = 46
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
    int payer, payee, amount, reason, loser   # loser: the seat a penalty pays for

ctypedef struct TSState:
    # config
    int n
    int first_player       # the config's first player, -1 for "random"
    bint penalty_rule
    double reward_scale
    bint record            # keep the event record (the Engine does; the batch does not)
    # observation layout (per seat segment of obs_size bytes)
    int obs_size
    int o_khap, o_sizes, o_khc, o_pub, o_kinds, o_dead, o_active, o_from, o_how, o_passed
    int o_draw, o_current, o_phase, o_trash, o_worst, o_claim, o_claimer, o_winner, o_drawn
    int rel[MAXSEAT][MAXSEAT]        # rel[s][v]: seat s relative to observer v
    unsigned char obs[MAXSEAT * MAXOBS]
    # plain state
    int first
    int private[MAXSEAT][NT]
    int dead[NT]
    int draw[112]
    int draw_len
    int pub_n[MAXSEAT]
    signed char pub_kind[MAXSEAT][MAXSETS]     # (bytes: a batch holds thousands of states)
    signed char pub_ncards[MAXSEAT][MAXSETS]
    signed char pub_cards[MAXSEAT][MAXSETS][4]
    int active, active_from, active_how
    bint active_passed, discard_worst
    int current, phase
    int winner, win_card, win_how, win_from, value, amount, penalized
    int result                     # RES_*
    int claim_kind, claim_seat     # last_claim (kind code, -1 before any)
    TSPay pays[TS_MAXPAY]
    int npay
    double returns[MAXSEAT]
    bint has_returns               # returns hold the game's end (the rules layer's non-empty list)
    TSEvent ev[TS_MAXEV]           # events since the Engine's last flush (when record)
    int nev
    # caches (as tusac_env.melds keeps them)
    int codes[MAXSEAT][NCOMP]
    int ctrash[MAXSEAT][NCOMP]
    int trash[MAXSEAT]
    int sizes[MAXSEAT]
    unsigned int khaps[MAXSEAT]    # types held three times
    unsigned int disc[MAXSEAT]
    unsigned int high[MAXSEAT]
    unsigned int win[MAXSEAT]
    unsigned int hot[MAXSEAT]
    unsigned int hot_any
    int pub_counts[MAXSEAT][NT]
    int kind_counts[MAXSEAT][16]
    int exposed[NT]
    bint worst_ok
    unsigned int worst_mask

cdef void ts_deal(TSState *g, sg_pcg64 *rng) noexcept nogil
cdef void ts_redeal(TSState *g, int seat, sg_pcg64 *rng) noexcept nogil
cdef void ts_rebuild(TSState *g) noexcept nogil
cdef unsigned long long ts_legal(TSState *g) noexcept nogil
cdef int ts_legal_list(TSState *g, int *out) noexcept nogil
cdef int ts_apply(TSState *g, int action) noexcept nogil
cdef void ts_observe(TSState *g, int seat, unsigned char *out) noexcept nogil
cdef void ts_fill_mask(TSState *g, char *m) noexcept nogil
cdef void ts_setup(TSState *g, object config, bint record) except *
cdef unsigned int ts_worst(TSState *g) noexcept nogil
cdef int ts_meld_trash(TSState *g, int s, int idx) noexcept nogil
cdef int ts_meld_kind(TSState *g, int idx) noexcept nogil
cdef void ts_meld_rest(TSState *g, int s, int idx, int *rest) noexcept nogil
cdef void ts_unseen(TSState *g, int s, int *out) noexcept nogil
cdef int ts_outs_sum(TSState *g, int *counts, int *unseen) noexcept nogil


@cython.final
cdef class Engine:
    cdef object game
    cdef object config
    cdef TSState st
    cdef object result                 # str (the rules layer's)
    cdef object payments               # list of [payer, payee, amount, reason]
    cdef object returns                # list of floats
    cdef list events
    # output array lengths (numpy's C API makes the arrays)
    cdef cnp.npy_intp obs_dims[1]
    cdef cnp.npy_intp mask_dims[1]

    cdef void _flush(self) except *
    cdef void _illegal(self, action) except *
    cdef object _step(self, int action)
    cdef void _end_fields(self, st) except *
