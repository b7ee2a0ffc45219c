# cython: language_level=3, boundscheck=False, wraparound=False
"""Python handles on the C random numbers of :mod:`setgames.batch._rng` (its ``.pxd``), for tests.

Each function seeds the C ``PCG64`` with an int below 2**64 and returns what
the C draws gave, so that tests can compare them with numpy's
``Generator(PCG64(seed))`` draw for draw.
"""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport uint32_t, uint64_t
from numpy.random cimport bitgen_t

from setgames.batch._rng cimport (sg_bitgen_next32, sg_game_seed, sg_interval, sg_lemire, sg_pcg64,
                                  sg_pcg64_next32, sg_pcg64_next32_v, sg_pcg64_next64, sg_pcg64_seed,
                                  sg_pcg64_seed_seq,
                                  sg_slot_seed, sg_tag_seed)


def next64(uint64_t seed, int n):
    """The first ``n`` 64-bit draws of ``PCG64(seed)`` (``bit_generator.random_raw(n)``)."""
    cdef sg_pcg64 r
    sg_pcg64_seed(&r, seed)
    return [sg_pcg64_next64(&r) for _ in range(n)]


def next32(uint64_t seed, int n):
    """The first ``n`` 32-bit draws of ``PCG64(seed)`` (``integers(2**32, dtype=np.uint32)`` one by one)."""
    cdef sg_pcg64 r
    sg_pcg64_seed(&r, seed)
    return [sg_pcg64_next32(&r) for _ in range(n)]


def next64_seq(list ints, int n):
    """The first ``n`` 64-bit draws of ``PCG64(ints)`` seeded in C from a list of 1 to 32 ints below 2**64."""
    cdef sg_pcg64 r
    cdef uint64_t words[32]
    cdef int i
    if not 1 <= len(ints) <= 32:
        raise ValueError(f"{len(ints)} ints: 1 to 32 are read")
    for i in range(len(ints)):
        words[i] = ints[i]
    sg_pcg64_seed_seq(&r, words, len(ints))
    return [sg_pcg64_next64(&r) for _ in range(n)]


def script(uint64_t seed, list ops):
    """Run draws on one ``PCG64(seed)`` stream: ``("shuffle", n)`` returns the shuffled
    ``list(range(n))`` (``Generator.shuffle``), ``("integers", n)`` returns
    ``integers(n)``; one result per op, in order."""
    cdef sg_pcg64 r
    cdef int i, j
    cdef long long n
    sg_pcg64_seed(&r, seed)
    out = []
    for op, n in ops:
        if op == "shuffle":
            x = list(range(n))
            for i in range(n - 1, 0, -1):
                j = sg_interval(sg_pcg64_next32_v, &r, i)
                x[i], x[j] = x[j], x[i]
            out.append(x)
        elif op == "integers":
            if not 1 <= n <= 0xFFFFFFFF:
                raise ValueError(f"integers bound {n!r} must be 1..2**32-1")
            out.append(sg_lemire(sg_pcg64_next32_v, &r, n))
        else:
            raise ValueError(f"unknown op {op!r}")
    return out


def bitgen_integers(rng, list bounds):
    """``[rng.integers(n) for n in bounds]`` drawn in C from ``rng``'s own ``bitgen_t``
    (numpy's capsule), moving ``rng`` as numpy would."""
    cdef bitgen_t *bg = <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
    cdef uint32_t n
    with rng.bit_generator.lock:
        return [sg_lemire(sg_bitgen_next32, bg, n) for n in bounds]


def game_seed(uint64_t master, uint64_t slot, uint64_t index):
    """The C derivation of a slot's ``index``-th game seed (:func:`setgames.batch.seeds.game_seed`)."""
    return sg_game_seed(sg_slot_seed(master, slot), index)


def tag_seed(uint64_t game_seed, uint64_t tag):
    """The C derivation of a game's tagged stream seed (:func:`setgames.batch.seeds.tag_seed`)."""
    return sg_tag_seed(game_seed, tag)
