# cython: language_level=3
"""Software prefetch for the batched steps: ask for the cache lines of a slot a few slots ahead.

A batch steps its slots in order, each touching its own state and its rows of the output arrays.
When a slot's state spans more than the CPU's stride prefetchers follow (a slot of 1.2 KB is 19 lines)
and the batch outgrows the caches, every step waits on memory; asking for slot ``i + k``'s lines
while slot ``i`` steps hides that wait. ``cimport`` this file (inline, compiled into each batch).
A prefetch is a hint: it never faults and changes no result.
"""

cdef extern from *:
    """
    #if defined(_MSC_VER) && !defined(__clang__)
    #include <xmmintrin.h>
    #define SG_PREFETCH_READ(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
    #define SG_PREFETCH_WRITE(p) _mm_prefetch((const char *)(p), _MM_HINT_T1)
    #define SG_PREFETCH_L1(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
    #else
    #define SG_PREFETCH_READ(p) __builtin_prefetch((p), 0, 3)
    #define SG_PREFETCH_WRITE(p) __builtin_prefetch((p), 1, 2)
    #define SG_PREFETCH_L1(p) __builtin_prefetch((p), 1, 3)
    #endif
    """
    void SG_PREFETCH_READ(const void *p) noexcept nogil
    void SG_PREFETCH_WRITE(const void *p) noexcept nogil
    void SG_PREFETCH_L1(const void *p) noexcept nogil


cdef inline void sg_prefetch(const void *p, size_t nbytes) noexcept nogil:
    """Ask for every cache line the ``nbytes`` at ``p`` touch (to read and write)."""
    cdef size_t q = (<size_t> p) & ~(<size_t> 63)
    cdef size_t end = (<size_t> p) + nbytes
    while q < end:
        SG_PREFETCH_WRITE(<const void *> q)
        q += 64


cdef inline void sg_prefetch_l1(const void *p, size_t nbytes) noexcept nogil:
    """:func:`sg_prefetch` into the first-level cache (for the slot about to step)."""
    cdef size_t q = (<size_t> p) & ~(<size_t> 63)
    cdef size_t end = (<size_t> p) + nbytes
    while q < end:
        SG_PREFETCH_L1(<const void *> q)
        q += 64
