# cython: language_level=3
"""The Bharg game as a C struct and the ``nogil`` functions that step it.

One implementation serves :class:`bharg_env._engine.Engine` (one struct, the
AEC env's engine), :class:`bharg_env._batch.Batch` (an array of B structs
stepped in one call) and the compiled greedy bot (:mod:`bharg_env._greedy`).
The functions are defined in ``_engine.pyx``.
"""

from libc.stdint cimport uint64_t

from setgames.batch._rng cimport sg_pcg64

cdef enum:
    BH_NCARDS = 45     # card ids 0..44 (checked against setgames.cards in _engine.pyx)
    BH_MAXPILE = 48    # room for every card in one pile
    BH_MAX_ACTIONS = 47
    BH_EV_CAP = 16     # events one step can make (a discard that wins, then the next deal)
    # what bh_apply returns: the step's rewards are in the ``rewards`` argument (a round
    # or the game ended, as the rules layer's ``apply`` returning a tuple), or not (None)
    BH_NONE = 0
    BH_REWARD = 1
    # why the game ended (BState.reason)
    BH_R_NONE = 0
    BH_R_ALL_BOUND = 1
    BH_R_TARGET = 2
    BH_R_TURN_LIMIT = 3
    # event kinds (BEvents records: kind, a, b, c), the rules layer's event tuples
    BH_E_DRAW = 0        # ("draw", seat)
    BH_E_TAKE = 1        # ("take", seat, card)
    BH_E_DISCARD = 2     # ("discard", seat, card)
    BH_E_RESHUFFLE = 3   # ("reshuffle", k)
    BH_E_TURN_LIMIT = 4  # ("turn_limit", round)
    BH_E_WIN = 5         # ("win", round, winner, points)
    BH_E_DEAL = 6        # ("deal", round, first)
    BH_E_ACE_PILE = 7    # ("ace_pile", card)
    BH_E_START = 8       # ("start_discard", card)
    # the history mode's rows kept per game (bharg_env.history.HISTORY_LENGTH, checked in _engine.pyx)
    BH_HIST_LEN = 120
    BH_HWORDS = 182    # words of a game's record of them for 3 seats (sg_history_words, checked)

ctypedef struct BConfig:
    int n                # players
    int hand_size
    int target           # -1: one-round play
    bint reward_win      # reward "win" (else "score")
    long long max_turns
    int ndeck
    signed char deck_cards[BH_NCARDS]

# The fields the legal-action walks read (bh_legal, bh_is_legal, bh_can_draw: the batch's
# sample, its check of the actions, the mask) come first, in the first 64 bytes: a batch of
# B=8192 states is out of the core's cache, and spread over the struct they were 4 to 5 lines
# of each state per pass.
ctypedef struct BState:
    uint64_t hands[3]
    int seat, phase
    int deck_len
    int disc_len
    int aces_len
    uint64_t known[3]
    uint64_t codes[3]      # pattern code of each hand (kernel.pattern_code)
    signed char deck[BH_MAXPILE]      # top last
    signed char discard[BH_MAXPILE]   # top last
    uint64_t disc_mask     # cards in the discard pile
    signed char aces[BH_MAXPILE]      # Ace Pile, top last
    uint64_t ace_under     # Aces under the top of the Ace Pile
    int round, winner, reason
    long long turn
    bint truncated
    long long scores[3]
    double rewards[3]      # each seat's rewards so far
    long long round_points[3]
    uint64_t seed          # the rules layer's seed of reshuffles and later deals
    long long draws
    long long _pad         # to 384 bytes: whole cache lines, so every state of a batch starts one

ctypedef struct BEvents:
    int n
    long long rec[BH_EV_CAP][4]

cdef void bh_config(BConfig *cfg, object game) except *
cdef void bh_new_game(BState *s, const BConfig *cfg, sg_pcg64 *rng, BEvents *ev) noexcept nogil
cdef void bh_redeal(BState *s, const BConfig *cfg, int seat, sg_pcg64 *rng) noexcept nogil
cdef bint bh_can_draw(const BState *s) noexcept nogil
cdef bint bh_is_legal(const BState *s, int action) noexcept nogil
cdef int bh_legal(const BState *s, int *out) noexcept nogil
cdef void bh_fill_mask(const BState *s, char *m) noexcept nogil
cdef int bh_apply(BState *s, const BConfig *cfg, int action, double *rewards, BEvents *ev) noexcept nogil
cdef void bh_history_push(unsigned int *h, int n, const BEvents *ev) noexcept nogil
cdef void bh_observe(const BState *s, const BConfig *cfg, int seat, char *out) noexcept nogil
cdef bint bh_evaluate(uint64_t hand, int ace_top, int *bound, int *unbound) noexcept nogil
cdef bint bh_all_bound_code(uint64_t code, int ace_top) noexcept nogil
cdef int bh_n_actions() noexcept nogil
cdef int bh_obs_size() noexcept nogil


# Writes an observation mode's block after the cards vector (bharg_env._structure installs it).
ctypedef void (*bh_obs_block)(const BState *s, const BConfig *cfg, int seat, char *out) noexcept nogil


cdef class Engine:
    cdef object game
    cdef bh_obs_block obs_block  # NULL: the cards mode
    cdef bint history            # the history mode: hist holds the game's rows, observe appends them
    cdef unsigned int hist[BH_HWORDS]
    cdef int obs_size            # the chosen mode's observation length
    cdef BConfig cfg
    cdef BState st
    cdef BEvents ev
    cdef tuple zero_rewards
    cdef str reason             # the rules layer's reason (any string a loaded state held)
    cdef list events
    cdef list _round_points(self)
    cdef object _state(self)
