# cython: language_level=3
"""The compiled determinized search every game's bot and batch share (``_pimc.pyx``).

A game hands the search its engine as a table of ``nogil`` functions over an
opaque state (:c:type:`SgOps`); the search never names a game. What it does is
in ``_pimc.pyx``'s module doc.
"""

from setgames.batch._rng cimport sg_pcg64

cdef enum:
    SG_MAX_ACTIONS = 1024   # the most legal actions of any game's position (the largest built-in layout)
    SG_MAX_SEATS = 4
    SG_MAX_DRAWS = 64       # re-deals drawn for one iteration before the last is kept anyway

ctypedef struct SgOps:
    size_t size                     # bytes of one state (copied with memcpy)
    # the seat to act, or -1 once the game is over
    int (*seat)(const void *st) noexcept nogil
    # the legal action ids, ascending, into out; their number
    int (*legal)(void *st, const void *cfg, int *out) noexcept nogil
    # play a legal action; add what each seat earns on the step to gain[0..players-1]
    void (*apply)(void *st, const void *cfg, int action, double *gain) noexcept nogil
    # re-deal every card ``seat`` has not seen, as ``game.determinize`` does
    void (*redeal)(void *st, const void *cfg, int seat, sg_pcg64 *rng) noexcept nogil
    # the play-out policy's move for the seat to act (the game's compiled greedy bot)
    int (*policy)(void *st, const void *cfg, sg_pcg64 *rng) noexcept nogil
    # 1 to keep a re-deal, 0 to draw another (NULL: keep every one): a game's inference
    # from the others' observed moves, its context in ``cfg`` (tethsi_env/_search.pyx);
    # ``draw`` counts the re-deals drawn for this iteration before this one (a game may
    # ask less of the later ones)
    int (*accept)(const void *st, const void *cfg, int draw, sg_pcg64 *rng) noexcept nogil

ctypedef struct SgBudget:
    long long iters       # most re-deals (0: no limit but the time)
    double ms             # time budget in milliseconds (0: no limit but iters)
    long long min_iters   # re-deals made even when the time is up (at least 1)
    double z              # how many standard errors a move must beat the policy's by

ctypedef struct SgResult:
    int action            # the chosen action
    int n                 # legal actions at the root
    long long iters       # re-deals made
    double elapsed_ms

cdef int sg_pimc(const SgOps *ops, const void *root, const void *cfg, const SgBudget *budget,
                 sg_pcg64 *rng, int *legal, double *values, SgResult *res) noexcept nogil
cdef object sg_search_call(const SgOps *ops, const void *root, const void *cfg, object iters, object ms,
                           object seed, object z=*)
