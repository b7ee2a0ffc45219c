# cython: language_level=3
"""Bharg's structure observation block in C (:mod:`bharg_env._structure`), for the batch."""

from bharg_env._engine cimport BConfig, BState

cdef void bh_structure(const BState *s, const BConfig *cfg, int seat, char *out) noexcept nogil
cdef void bh_action_features(const BState *s, const BConfig *cfg, int seat, char *out) noexcept nogil
