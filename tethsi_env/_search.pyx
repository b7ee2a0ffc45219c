# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Tet Hsi's engine as the compiled search's function table (:mod:`setgames.search._pimc`)."""

from setgames.batch._rng cimport sg_pcg64, sg_pcg64_next32_v
from setgames.search._pimc cimport SgOps, sg_search_call
from tethsi_env._engine cimport Engine, TState, th_apply, th_legal, th_over, th_redeal, th_returns
from tethsi_env._greedy cimport th_greedy

__all__ = ["DEFAULT_ITERS", "search"]

# The search bot's re-deals a decision when no budget is given: Tet Hsi's score against greedy rises to 60% at 4,096 (8 ms a decision, p99 64 ms)
# (the curves: docs/guides/strength.md).
DEFAULT_ITERS = 4096


cdef int _seat(const void *st) noexcept nogil:
    cdef const TState *s = <const TState *> st
    return -1 if th_over(s) else s.seat


cdef int _legal(void *st, const void *cfg, int *out) noexcept nogil:
    return th_legal(<const TState *> st, out)


cdef void _apply(void *st, const void *cfg, int action, double *gain) noexcept nogil:
    cdef TState *s = <TState *> st
    cdef float ret[2]
    if th_apply(s, action):
        th_returns(s, ret)   # Tet Hsi pays only at the end
        gain[0] += ret[0]
        gain[1] += ret[1]


cdef void _redeal(void *st, const void *cfg, int seat, sg_pcg64 *rng) noexcept nogil:
    th_redeal(<TState *> st, seat, rng)


cdef int _policy(void *st, const void *cfg, sg_pcg64 *rng) noexcept nogil:
    return th_greedy(<const TState *> st, sg_pcg64_next32_v, rng)


cdef SgOps OPS
OPS.size = sizeof(TState)
OPS.seat = _seat
OPS.legal = _legal
OPS.apply = _apply
OPS.redeal = _redeal
OPS.policy = _policy


cdef const SgOps *th_search_ops() noexcept nogil:
    """The table, for the batch's in-C search opponents."""
    return &OPS


def search(Engine engine, iters=None, ms=None, seed=0, z=1.0):
    """Search ``engine``'s position for its seat to act (:mod:`setgames.search._pimc`):
    ``(action, legal, values, iters, elapsed_ms)``. ``iters`` re-deals and/or ``ms``
    milliseconds; ``seed`` (0..2**63-1) seeds the re-deals and the play-outs' ties; ``z``: how
    many standard errors a move must beat the greedy move by."""
    return sg_search_call(&OPS, &engine.st, NULL, iters, ms, seed, z)
