"""C entry points of :mod:`setgames._seedhash` for other compiled modules (``cimport`` them)."""

from libc.stdint cimport uint64_t

cdef void seed_state_u64(uint64_t seed, uint64_t *out, int n_words) noexcept nogil
cdef void seed_state_seq(const uint64_t *ints, int n_ints, uint64_t *out, int n_words) noexcept nogil
