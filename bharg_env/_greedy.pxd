# cython: language_level=3
"""The compiled greedy Bharg bot (:mod:`bharg_env._greedy`), for other compiled modules."""

from libc.stdint cimport uint64_t

from bharg_env._engine cimport BConfig, BState

cdef int bh_greedy(const BState *s, const BConfig *cfg) noexcept nogil
cdef void bh_greedy_features(const BState *s, const BConfig *cfg, float *out) noexcept nogil
cdef int bh_ways(uint64_t hand, int ace, uint64_t unseen) noexcept nogil
cdef uint64_t bh_unseen(const BState *s, const BConfig *cfg, int seat) noexcept nogil
