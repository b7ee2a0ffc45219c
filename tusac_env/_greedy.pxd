# cython: language_level=3
"""The compiled greedy Tu Sac bot's C entry point (for the batched engine's opponents)."""

from tusac_env._engine cimport TSState

cdef int ts_greedy(TSState *e) noexcept nogil
