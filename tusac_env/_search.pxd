# cython: language_level=3
"""Tu Sac's engine as the compiled search's function table (for the batch's search opponents)."""

from setgames.search._pimc cimport SgOps

cdef const SgOps *ts_search_ops() noexcept nogil
