# cython: language_level=3
"""Bharg's engine as the compiled search's function table (for the batch's search opponents)."""

from setgames.search._pimc cimport SgOps

cdef const SgOps *bh_search_ops() noexcept nogil
