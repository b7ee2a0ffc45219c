# cython: language_level=3
"""numpy-identical random numbers in C, for batched engines that deal without the GIL.

``cimport`` this file: the functions are ``static inline`` C, compiled into
the engine that uses them, so that a slot's auto-reset deals its next game
inside the ``nogil`` step. Each reproduces numpy's algorithm draw for draw
(``tests/setgames/batch/test_rng.py`` compares them with numpy itself):

- ``sg_pcg64_seed(r, seed)``: ``np.random.PCG64(seed)`` for an int seed below
  2**64 (numpy's ``SeedSequence`` words from :mod:`setgames._seedhash`, then
  PCG64's ``srandom``: state 0, increment ``2 * initseq + 1``, step, add the
  initial state, step);
- ``sg_pcg64_seed_seq(r, ints, n)``: ``np.random.PCG64([ints[0], ..., ints[n-1]])``
  for a short list of ints below 2**64 (a game's ``[seed, draws]``);
- ``sg_pcg64_next64`` / ``sg_pcg64_next32``: PCG64's XSL-RR output and its
  32-bit draws, which return the two halves of one 64-bit draw (low first),
  as numpy's ``pcg64_next32`` keeps the high half in ``uinteger``;
- ``sg_interval(next32, st, max)``: numpy's ``random_interval`` for ``max``
  below 2**32 (mask rejection), the draw of ``Generator.shuffle`` and
  ``permutation``: ``for i = n-1 .. 1: j = interval(i); swap(i, j)``;
- ``sg_lemire(next32, st, n)``: ``Generator.integers(n)`` for ``1 <= n <= 2**32 - 1``
  (numpy's ``buffered_bounded_lemire_uint32`` with ``rng = n - 1``; ``n = 1``
  draws nothing, as numpy's ``rng == 0`` shortcut).

The bounded draws take a ``next32`` function and its state so that the same
code serves this PCG64 and any numpy ``bitgen_t`` (``sg_bitgen_next32``).

Seed derivation (the batch protocol of :mod:`setgames.batch`; the Python twin
is :mod:`setgames.batch.seeds`): ``sg_slot_seed(master, slot)`` is
``(master + slot) mod 2**63``; ``sg_game_seed(slot_seed, k)`` is the slot seed
for its first game (``k = 0``) and ``mix(slot_seed ^ mix(k)) mod 2**63`` after,
``mix`` being SplitMix64's finalizer; ``sg_tag_seed(game_seed, tag)`` derives
a game's other streams (opponents, learner seat) the same way.
"""

from libc.stdint cimport uint32_t, uint64_t
from numpy.random cimport bitgen_t

from setgames._seedhash cimport seed_state_seq, seed_state_u64

cdef extern from *:
    """
    #include <stdint.h>
    typedef unsigned __int128 sg_u128;
    typedef struct { sg_u128 state; sg_u128 inc; uint32_t uinteger; int has_uint32; } sg_pcg64;
    typedef uint32_t (*sg_next32_fn)(void *);
    #define SG_PCG_MULT (((sg_u128)2549297995355413924ULL << 64) | (sg_u128)4865540595714422341ULL)
    #define SG_MASK63 0x7FFFFFFFFFFFFFFFULL

    static inline uint64_t sg_pcg64_next64(sg_pcg64 *r) {
        r->state = r->state * SG_PCG_MULT + r->inc;
        uint64_t hi = (uint64_t)(r->state >> 64), lo = (uint64_t)r->state;
        unsigned rot = (unsigned)(hi >> 58);
        uint64_t x = hi ^ lo;
        return (x >> rot) | (x << ((-rot) & 63));
    }
    static inline uint32_t sg_pcg64_next32(sg_pcg64 *r) {
        if (r->has_uint32) { r->has_uint32 = 0; return r->uinteger; }
        uint64_t v = sg_pcg64_next64(r);
        r->has_uint32 = 1;
        r->uinteger = (uint32_t)(v >> 32);
        return (uint32_t)v;
    }
    static inline uint32_t sg_pcg64_next32_v(void *r) { return sg_pcg64_next32((sg_pcg64 *)r); }
    static inline uint32_t sg_bitgen_next32(void *b) {
        return ((bitgen_t *)b)->next_uint32(((bitgen_t *)b)->state);
    }
    /* words: SeedSequence(seed).generate_state(4, uint64) */
    static inline void sg_pcg64_from_words(sg_pcg64 *r, const uint64_t *w) {
        sg_u128 initstate = ((sg_u128)w[0] << 64) | w[1];
        sg_u128 initseq = ((sg_u128)w[2] << 64) | w[3];
        r->state = 0;
        r->inc = (initseq << 1) | 1;
        r->state = r->state * SG_PCG_MULT + r->inc;
        r->state += initstate;
        r->state = r->state * SG_PCG_MULT + r->inc;
        r->has_uint32 = 0;
        r->uinteger = 0;
    }
    static inline uint32_t sg_interval(sg_next32_fn next32, void *st, uint32_t max) {
        uint32_t mask = max, v;
        if (max == 0) return 0;
        mask |= mask >> 1; mask |= mask >> 2; mask |= mask >> 4; mask |= mask >> 8; mask |= mask >> 16;
        while ((v = (next32(st) & mask)) > max) {}
        return v;
    }
    static inline uint32_t sg_lemire(sg_next32_fn next32, void *st, uint32_t n) {
        if (n <= 1) return 0;
        uint64_t m = (uint64_t)next32(st) * n;
        uint32_t leftover = (uint32_t)m;
        if (leftover < n) {
            uint32_t threshold = (UINT32_MAX - (n - 1)) % n;
            while (leftover < threshold) {
                m = (uint64_t)next32(st) * n;
                leftover = (uint32_t)m;
            }
        }
        return (uint32_t)(m >> 32);
    }
    static inline uint64_t sg_mix64(uint64_t x) {
        x ^= x >> 30; x *= 0xBF58476D1CE4E5B9ULL;
        x ^= x >> 27; x *= 0x94D049BB133111EBULL;
        return x ^ (x >> 31);
    }
    static inline uint64_t sg_slot_seed(uint64_t master, uint64_t slot) { return (master + slot) & SG_MASK63; }
    static inline uint64_t sg_game_seed(uint64_t slot_seed, uint64_t k) {
        return k == 0 ? slot_seed : sg_mix64(slot_seed ^ sg_mix64(k)) & SG_MASK63;
    }
    static inline uint64_t sg_tag_seed(uint64_t game_seed, uint64_t tag) {
        return sg_mix64(game_seed ^ sg_mix64(tag | (1ULL << 63))) & SG_MASK63;
    }
    """
    ctypedef struct sg_pcg64:
        uint32_t uinteger
        int has_uint32
    ctypedef uint32_t (*sg_next32_fn)(void *) noexcept nogil
    uint64_t sg_pcg64_next64(sg_pcg64 *r) noexcept nogil
    uint32_t sg_pcg64_next32(sg_pcg64 *r) noexcept nogil
    uint32_t sg_pcg64_next32_v(void *r) noexcept nogil
    uint32_t sg_bitgen_next32(void *b) noexcept nogil
    void sg_pcg64_from_words(sg_pcg64 *r, const uint64_t *w) noexcept nogil
    uint32_t sg_interval(sg_next32_fn next32, void *st, uint32_t max) noexcept nogil
    uint32_t sg_lemire(sg_next32_fn next32, void *st, uint32_t n) noexcept nogil
    uint64_t sg_mix64(uint64_t x) noexcept nogil
    uint64_t sg_slot_seed(uint64_t master, uint64_t slot) noexcept nogil
    uint64_t sg_game_seed(uint64_t slot_seed, uint64_t k) noexcept nogil
    uint64_t sg_tag_seed(uint64_t game_seed, uint64_t tag) noexcept nogil


cdef inline void sg_pcg64_seed(sg_pcg64 *r, uint64_t seed) noexcept nogil:
    """``np.random.PCG64(seed)`` in ``r`` (numpy's SeedSequence, compiled in :mod:`setgames._seedhash`)."""
    cdef uint64_t words[4]
    seed_state_u64(seed, words, 4)
    sg_pcg64_from_words(r, words)


cdef inline void sg_pcg64_seed_seq(sg_pcg64 *r, const uint64_t *ints, int n) noexcept nogil:
    """``np.random.PCG64([ints[0], ..., ints[n - 1]])`` in ``r`` (1 to 32 ints below 2**64)."""
    cdef uint64_t words[4]
    seed_state_seq(ints, n, words, 4)
    sg_pcg64_from_words(r, words)


cdef inline void sg_shuffle_schar(sg_pcg64 *r, signed char *x, int n) noexcept nogil:
    """``Generator.shuffle`` of the ``n`` entries at ``x`` (list or array: the same swaps)."""
    cdef int i, j
    cdef signed char t
    for i in range(n - 1, 0, -1):
        j = sg_interval(sg_pcg64_next32_v, r, i)
        t = x[i]
        x[i] = x[j]
        x[j] = t
