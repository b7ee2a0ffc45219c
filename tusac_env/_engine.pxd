# cython: language_level=3
"""Declarations of the Tu Sac engine (:mod:`tusac_env._engine`), so that other compiled
modules (the compiled greedy player of :mod:`setgames.bots._tusac_greedy`) can read its
C state and call its C methods without going through Python."""

cimport cython
cimport numpy as cnp

cdef enum:
    NT = 28          # card types (checked against setgames.cards below)
    NCOMP = 9        # components of a private block (tusac_env.melds.COMPONENTS)
    NCODE = 256      # codes per component (4 ** 4 for the pawns; 4 ** 3 for the others)
    NMELD = 16       # meld actions (tusac_env.melds.NUM_MELD_ACTIONS)
    MAXOPT = 8       # most melds of one active card (6 today: checked below)
    MAXSEAT = 4
    MAXSETS = 64     # public sets per seat (at most 112 cards; checked on load)
    MAXOBS = 400     # bytes of one seat's observation (checked per config)
    KHUI_IDX = 99    # win_meld's "meld index" of a Khui


@cython.final
cdef class Engine:
    # config
    cdef object game
    cdef object config
    cdef int n
    cdef int first
    # observation layout (per seat segment of obs_size bytes)
    cdef int obs_size
    cdef int o_khap, o_sizes, o_khc, o_pub, o_kinds, o_dead, o_active, o_from, o_how, o_passed
    cdef int o_draw, o_current, o_phase, o_trash, o_worst, o_claim, o_claimer, o_winner, o_drawn
    cdef int rel[MAXSEAT][MAXSEAT]        # rel[s][v]: seat s relative to observer v
    cdef unsigned char obs[MAXSEAT * MAXOBS]
    # plain state
    cdef int private[MAXSEAT][NT]
    cdef int dead[NT]
    cdef int draw[112]
    cdef int draw_len
    cdef int pub_n[MAXSEAT]
    cdef int pub_kind[MAXSEAT][MAXSETS]
    cdef int pub_ncards[MAXSEAT][MAXSETS]
    cdef int pub_cards[MAXSEAT][MAXSETS][4]
    cdef int active, active_from, active_how
    cdef bint active_passed, discard_worst
    cdef int current, phase
    cdef int winner, win_card, win_how, win_from, value, amount, penalized
    cdef int claim_kind, claim_seat     # last_claim (kind code, -1 before any)
    cdef object result                 # str
    cdef object payments               # list of [payer, payee, amount, reason]
    cdef object returns                # list of floats
    cdef list events
    # caches (as tusac_env.melds keeps them)
    cdef int codes[MAXSEAT][NCOMP]
    cdef int ctrash[MAXSEAT][NCOMP]
    cdef int trash[MAXSEAT]
    cdef int sizes[MAXSEAT]
    cdef unsigned int khaps[MAXSEAT]    # types held three times
    cdef unsigned int disc[MAXSEAT]
    cdef unsigned int high[MAXSEAT]
    cdef unsigned int win[MAXSEAT]
    cdef unsigned int hot[MAXSEAT]
    cdef unsigned int hot_any
    cdef int pub_counts[MAXSEAT][NT]
    cdef int kind_counts[MAXSEAT][16]
    cdef int exposed[NT]
    cdef bint worst_ok
    cdef unsigned int worst_mask
    # output array lengths (numpy's C API makes the arrays)
    cdef cnp.npy_intp obs_dims[1]
    cdef cnp.npy_intp mask_dims[1]

    cdef void _rebuild(self)
    cdef void _init_seat(self, int s)
    cdef void _win_and_hot(self, int s)
    cdef void _union(self)
    cdef void _build_obs(self)
    cdef void _set_size(self, int s)
    cdef void _masks_changed(self, int s, int k)
    cdef void _remove(self, int s, int a, int idx, int trash)
    cdef void _drop_khap(self, int s, int t)
    cdef void _put_public(self, int s, int ki, int *cards, int ncards)
    cdef void _meld_event(self, int s, int ki, int *cards, int ncards)
    cdef int _meld_trash(self, int s, int idx)
    cdef int _meld_kind(self, int idx)
    cdef void _meld_rest(self, int s, int idx, int *rest)
    cdef void _unseen(self, int s, int *out)
    cdef void _pawn_outs(self, int *counts, int *unseen, int *pawn)
    cdef int _type_outs(self, int *counts, int *unseen, int t, int *pawn)
    cdef int _outs_sum(self, int *counts, int *unseen)
    cdef unsigned int _worst(self)
    cdef unsigned long long _legal(self)
    cdef void _illegal(self, action) except *
    cdef object _apply(self, int action)
    cdef void _take_discard(self, int s, int t)
    cdef object _after_claim(self)
    cdef int _win_meld(self, int s, int a)
    cdef bint _claim(self, int exclude) except -1
    cdef bint _is_waiting(self, int s)
    cdef void _to_claimer(self, int s)
    cdef object _score_state(self)
    cdef object _finish_win(self, int seat, int card, int how, int src)
    cdef object _finish_draw(self)
    cdef void _end_fields(self, st) except *
    cdef void _take_end(self, st)
