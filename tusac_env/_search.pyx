# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Tu Sac's engine as the compiled search's function table (:mod:`setgames.search._pimc`).

The seat to act may be any seat (claims are made out of turn): the search
plans for whichever seat the engine says acts. A Tu Sac state is large
(several KB, its observation buffers included); the search copies it once
per play-out.
"""

from setgames.batch._rng cimport sg_pcg64
from setgames.search._pimc cimport SgOps, sg_search_call
from tusac_env._engine cimport PH_OVER_C, Engine, TSState, ts_apply, ts_legal_list, ts_redeal
from tusac_env._greedy cimport ts_greedy

__all__ = ["DEFAULT_ITERS", "search"]

# The search bot's re-deals a decision when no budget is given: Tu Sac's stays within 2 points
# of greedy at any budget; 1,024 keeps the p99 under 100 ms (docs/guides/strength.md).
DEFAULT_ITERS = 1024


cdef int _seat(const void *st) noexcept nogil:
    cdef const TSState *s = <const TSState *> st
    return -1 if s.phase == PH_OVER_C else s.current


cdef int _legal(void *st, const void *cfg, int *out) noexcept nogil:
    return ts_legal_list(<TSState *> st, out)


cdef void _apply(void *st, const void *cfg, int action, double *gain) noexcept nogil:
    cdef TSState *s = <TSState *> st
    cdef int p
    if ts_apply(s, action, NULL):  # (a search copy keeps no history)
        for p in range(s.n):   # Tu Sac pays only at the game's end
            gain[p] += s.returns[p]


cdef void _redeal(void *st, const void *cfg, int seat, sg_pcg64 *rng) noexcept nogil:
    ts_redeal(<TSState *> st, seat, rng)


cdef int _policy(void *st, const void *cfg, sg_pcg64 *rng) noexcept nogil:
    return ts_greedy(<TSState *> st)


cdef SgOps OPS
OPS.size = sizeof(TSState)
OPS.seat = _seat
OPS.legal = _legal
OPS.apply = _apply
OPS.redeal = _redeal
OPS.policy = _policy
OPS.accept = NULL


cdef const SgOps *ts_search_ops() noexcept nogil:
    """The table, for the batch's in-C search opponents."""
    return &OPS


def search(Engine engine, iters=None, ms=None, seed=0, z=1.0):
    """Search ``engine``'s position for its seat to act (:mod:`setgames.search._pimc`):
    ``(action, legal, values, iters, elapsed_ms)``. ``iters`` re-deals and/or ``ms``
    milliseconds; ``seed`` (0..2**63-1) seeds the re-deals and the play-outs' ties; ``z``: how
    many standard errors a move must beat the greedy move by."""
    # The search's copies of the state step on their own: none may write into the engine's record.
    cdef TSState root = engine.st
    root.rec = NULL
    return sg_search_call(&OPS, &root, NULL, iters, ms, seed, z)
