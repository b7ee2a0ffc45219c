# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Bharg's engine as the compiled search's function table (:mod:`setgames.search._pimc`).

A play-out runs to the game's end (every round still to come) and counts the
rewards each step pays, as the batch's step does: under ``reward="score"``
the round points, under ``"win"`` the game's end.
"""

from setgames.batch._rng cimport sg_pcg64
from setgames.search._pimc cimport SgOps, sg_search_call
from bharg_env._engine cimport BH_REWARD, BConfig, BState, Engine, bh_apply, bh_legal, bh_redeal
from bharg_env._greedy cimport bh_greedy

from bharg_env.rules import Phase

__all__ = ["DEFAULT_ITERS", "search"]

# The search bot's re-deals a decision when no budget is given: Bharg's score against greedy
# rises to 68% at 1,024 (21 ms, p99 70 ms); 4,096 cost over 100 ms (docs/guides/strength.md).
DEFAULT_ITERS = 1024

cdef int PH_OVER = int(Phase.OVER)


cdef int _seat(const void *st) noexcept nogil:
    cdef const BState *s = <const BState *> st
    return -1 if s.phase == PH_OVER else s.seat


cdef int _legal(void *st, const void *cfg, int *out) noexcept nogil:
    return bh_legal(<const BState *> st, out)


cdef void _apply(void *st, const void *cfg, int action, double *gain) noexcept nogil:
    cdef double r[3]
    cdef const BConfig *c = <const BConfig *> cfg
    cdef int p
    if bh_apply(<BState *> st, c, action, r, NULL) == BH_REWARD:
        for p in range(c.n):
            gain[p] += r[p]


cdef void _redeal(void *st, const void *cfg, int seat, sg_pcg64 *rng) noexcept nogil:
    bh_redeal(<BState *> st, <const BConfig *> cfg, seat, rng)


cdef int _policy(void *st, const void *cfg, sg_pcg64 *rng) noexcept nogil:
    return bh_greedy(<const BState *> st, <const BConfig *> cfg)


cdef SgOps OPS
OPS.size = sizeof(BState)
OPS.seat = _seat
OPS.legal = _legal
OPS.apply = _apply
OPS.redeal = _redeal
OPS.policy = _policy
OPS.accept = NULL


cdef const SgOps *bh_search_ops() noexcept nogil:
    """The table, for the batch's in-C search opponents."""
    return &OPS


def search(Engine engine, iters=None, ms=None, seed=0, z=1.0):
    """Search ``engine``'s position for its seat to act (:mod:`setgames.search._pimc`):
    ``(action, legal, values, iters, elapsed_ms)``. ``iters`` re-deals and/or ``ms``
    milliseconds; ``seed`` (0..2**63-1) seeds the re-deals and the play-outs' ties; ``z``: how
    many standard errors a move must beat the greedy move by."""
    return sg_search_call(&OPS, &engine.st, &engine.cfg, iters, ms, seed, z)
