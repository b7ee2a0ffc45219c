# cython: language_level=3
"""The Tet Hsi game as a C struct and the ``nogil`` functions that step it.

One implementation serves :class:`tethsi_env._engine.Engine` (one struct,
the AEC env's engine), :class:`tethsi_env._batch.Batch` (an array of B
structs stepped in one call) and the compiled greedy bot
(:mod:`tethsi_env._greedy`). The functions are defined in ``_engine.pyx``.
"""

from setgames.batch._rng cimport sg_pcg64

ctypedef unsigned long long u64

cdef enum:
    TH_NCARDS = 36     # standard Decktet cards (checked against setgames.cards in _engine.pyx)
    TH_MAX_ACTIONS = 1024
    TH_MAX_SETS = 12   # 36 distinct cards make at most 12 Sets per seat
    TH_RUNNING = 0     # what th_apply returns: the game goes on,
    TH_WON = 1         # the mover put aside its last hand cards,
    TH_TIED = 2        # the pile was empty at the reveal
    TH_HLEN = 85       # the history mode's rows (tethsi_env.history.HISTORY_LENGTH: a game's bound)
    TH_HWORDS = 109    # words of a game's record of them (sg_history_words(TH_HLEN, 2), checked)

# The fields the legal-action walks read (th_legal, th_is_legal: the batch's sample, its
# check of the actions, the mask) come first, in the first 64 bytes: a batch of B=8192
# states is out of the core's cache and those passes read one line of each state, not two.
ctypedef struct TState:
    u64 concealed[2]
    u64 front[2]
    u64 center
    int remaining      # the remaining center card while the choice is pending, else -1
    int seat           # the seat to move (the last mover once the game is over)
    int phase          # a tethsi_env.layout.Phase value
    int first_player
    int winner         # -1 for none
    u64 set_cards[2]
    u64 discard
    long turn
    signed char pile[TH_NCARDS]   # top card last
    int npile
    signed char sets[2][TH_MAX_SETS][4]   # (x, y, remaining card, kind index)
    int nsets[2]
    unsigned char kind_count[2][8]

cdef void th_deal(TState *s, sg_pcg64 *rng, int first_player) noexcept nogil
cdef void th_redeal(TState *s, int seat, sg_pcg64 *rng) noexcept nogil
cdef void th_fill_mask(const TState *s, char *m) noexcept nogil
cdef int th_legal(const TState *s, int *out) noexcept nogil
cdef bint th_is_legal(const TState *s, int action) noexcept nogil
cdef int th_apply(TState *s, int action, unsigned int *h) noexcept nogil
cdef void th_observe(const TState *s, int seat, unsigned char *out) noexcept nogil
cdef void th_returns(const TState *s, float *out) noexcept nogil
cdef void th_structure(const TState *s, int seat, unsigned char *out) noexcept nogil
cdef int th_obs_size_of(bint structure) noexcept nogil
cdef int th_history_obs_size() noexcept nogil
cdef void th_observe_history(const TState *s, const unsigned int *h, int seat, unsigned char *out) noexcept nogil
cdef void th_action_features(const TState *s, int seat, signed char *out) noexcept nogil
cdef int th_action_feature_size() noexcept nogil
cdef void th_observe_mode(const TState *s, int seat, bint structure, unsigned char *out) noexcept nogil
cdef int th_n_actions() noexcept nogil
cdef int th_obs_size() noexcept nogil
cdef bint th_over(const TState *s) noexcept nogil

# The public event record of a game, as compact C records (Engine only).
ctypedef struct Event:
    unsigned char kind
    unsigned char seat
    signed char a, b, c, k


cdef class Engine:
    cdef object _game
    cdef bint structure        # the game's obs mode is "structure": observe appends the structure block
    cdef bint history          # the game's obs mode is "history": apply pushes to hist, observe writes it
    cdef unsigned int hist[TH_HWORDS]     # the history record (setgames/_history.pxd), in history mode
    cdef TState st
    cdef object reason
    cdef list _events          # event tuples up to the last flush (the loaded ones first)
    cdef Event ev[64]          # events since (EVENT_CAP in _engine.pyx)
    cdef int nev
    cdef object _final         # rules-layer state for outcome() / is_truncated(), None once stale
    cdef void _flush_events(self)
    cdef Event *_event(self, int kind, int seat, int a)
    cdef object _state(self, bint with_events)
