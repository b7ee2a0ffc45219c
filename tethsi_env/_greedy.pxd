# cython: language_level=3
"""The compiled Tet Hsi greedy bot, for the batched engine's opponents (``cimport`` it)."""

from setgames.batch._rng cimport sg_next32_fn
from tethsi_env._engine cimport TState

cdef int th_greedy(const TState *s, sg_next32_fn next32, void *rng) noexcept nogil
cdef void th_greedy_features(const TState *s, float *out) noexcept nogil
