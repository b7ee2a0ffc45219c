# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""numpy's ``SeedSequence`` for one non-negative int (or a few), compiled (see :mod:`setgames.seeding`).

The pool mixing and output hashing of numpy's ``SeedSequence`` (pool of four
32-bit words, no spawn key), on C 32-bit words: the pure-Python path of
:func:`setgames.seeding.seed_words` spends ~17 us a generator in them, this
~0.3 us. ``tests/setgames/test_seeding.py`` compares it with numpy's own
``SeedSequence`` and with the Python path over thousands of seeds.
"""

from libc.stdint cimport uint32_t, uint64_t

cimport numpy as cnp

cnp.import_array()

cdef enum:
    POOL = 4
    MAX_WORDS = 64  # entropy words read (seeds up to 2048 bits); longer ones take numpy's path

cdef uint32_t INIT_A = 0x43B0D7E5
cdef uint32_t MULT_A = 0x931E8875
cdef uint32_t INIT_B = 0x8B51F9DD
cdef uint32_t MULT_B = 0x58F38DED
cdef uint32_t MIX_MULT_L = 0xCA01F9DD
cdef uint32_t MIX_MULT_R = 0x4973F715
cdef int XSHIFT = 16


cdef inline uint32_t _hashmix(uint32_t value, uint32_t *hash_const) noexcept nogil:
    value ^= hash_const[0]
    hash_const[0] *= MULT_A
    value *= hash_const[0]
    value ^= value >> XSHIFT
    return value


cdef inline uint32_t _mix(uint32_t x, uint32_t y) noexcept nogil:
    cdef uint32_t result = MIX_MULT_L * x - MIX_MULT_R * y
    result ^= result >> XSHIFT
    return result


cdef void _pool_words(const uint32_t *words, int n, uint32_t *pool) noexcept nogil:
    """numpy's entropy pool of the ``n`` entropy words at ``words`` (low first)."""
    cdef uint32_t hash_const = INIT_A
    cdef int i, j
    for i in range(POOL):
        pool[i] = _hashmix(words[i] if i < n else 0, &hash_const)
    for i in range(POOL):
        for j in range(POOL):
            if i != j:
                pool[j] = _mix(pool[j], _hashmix(pool[i], &hash_const))
    for i in range(POOL, n):
        for j in range(POOL):
            pool[j] = _mix(pool[j], _hashmix(words[i], &hash_const))


cdef int _pool(object seed, uint32_t *pool) except -1:
    """numpy's entropy pool of the int ``seed`` (its 32-bit words, low first, at least one)."""
    cdef uint32_t words[MAX_WORDS]
    cdef int n = 0
    if seed < 0:
        raise ValueError(f"seed {seed!r} must be non-negative")
    while True:
        if n == MAX_WORDS:
            raise ValueError("seed too long for the compiled path")
        words[n] = <uint32_t> (seed & 0xFFFFFFFF)
        n += 1
        seed >>= 32
        if not seed:
            break
    _pool_words(words, n, pool)
    return 0


cdef inline uint32_t _out(uint32_t *pool, int i, uint32_t *hash_const) noexcept nogil:
    cdef uint32_t v = pool[i % POOL] ^ hash_const[0]
    hash_const[0] *= MULT_B
    v *= hash_const[0]
    return v ^ (v >> XSHIFT)


def seed_words32(object seed, int n_words):
    """``np.random.SeedSequence(seed).generate_state(n_words, np.uint32)`` as a list of ints."""
    cdef uint32_t pool[POOL]
    cdef uint32_t hash_const = INIT_B
    cdef int i
    _pool(seed, pool)
    return [_out(pool, i, &hash_const) for i in range(n_words)]


def seed_state64(object seed, int n_words):
    """``np.random.SeedSequence(seed).generate_state(n_words, np.uint64)``: a new uint64 array
    (numpy's little-endian pairs of 32-bit words), what ``PCG64`` asks for."""
    cdef uint32_t pool[POOL]
    cdef uint32_t hash_const = INIT_B
    cdef uint32_t lo, hi
    cdef cnp.npy_intp dims[1]
    cdef int i
    _pool(seed, pool)
    dims[0] = n_words
    out = cnp.PyArray_EMPTY(1, dims, cnp.NPY_UINT64, 0)
    cdef uint64_t *data = <uint64_t *> cnp.PyArray_DATA(out)
    for i in range(n_words):
        lo = _out(pool, 2 * i, &hash_const)
        hi = _out(pool, 2 * i + 1, &hash_const)
        data[i] = lo | (<uint64_t> hi << 32)
    return out


cdef void seed_state_u64(uint64_t seed, uint64_t *out, int n_words) noexcept nogil:
    """``SeedSequence(seed).generate_state(n_words, np.uint64)`` into ``out``, for a seed
    below 2**64, without the GIL: what a batched engine needs to seed ``PCG64(seed)``
    in C when a slot deals its next game (see :mod:`setgames.batch`)."""
    seed_state_seq(&seed, 1, out, n_words)


cdef void seed_state_seq(const uint64_t *ints, int n_ints, uint64_t *out, int n_words) noexcept nogil:
    """``SeedSequence([ints[0], ..., ints[n_ints - 1]]).generate_state(n_words, np.uint64)``
    into ``out``, for 1 to 32 ints below 2**64 (one int: the int's own seed), without the
    GIL: numpy reads each int as its 32-bit words, low first, one word at least (so
    ``[s, 0]`` is ``s``). A game may seed its reshuffles and later deals with ``[seed, draws]``."""
    cdef uint32_t words[MAX_WORDS]
    cdef uint32_t pool[POOL]
    cdef uint32_t hash_const = INIT_B
    cdef uint32_t lo, hi
    cdef int i, n = 0
    for i in range(n_ints if n_ints <= MAX_WORDS // 2 else MAX_WORDS // 2):
        words[n] = <uint32_t> ints[i]
        n += 1
        if ints[i] >> 32:
            words[n] = <uint32_t> (ints[i] >> 32)
            n += 1
    _pool_words(words, n, pool)
    for i in range(n_words):
        lo = _out(pool, 2 * i, &hash_const)
        hi = _out(pool, 2 * i + 1, &hash_const)
        out[i] = lo | (<uint64_t> hi << 32)
