# cython: language_level=3
"""The compiled greedy Bharg bot (:mod:`bharg_env._greedy`), for other compiled modules."""

from bharg_env._engine cimport BConfig, BState

cdef int bh_greedy(const BState *s, const BConfig *cfg) noexcept nogil
cdef void bh_greedy_features(const BState *s, const BConfig *cfg, float *out) noexcept nogil
