# cython: language_level=3
"""Tet Hsi's engine as the compiled search's function table (for the batch's search opponents)."""

from setgames.search._pimc cimport SgOps

cdef const SgOps *th_search_ops() noexcept nogil
