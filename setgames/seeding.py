"""Seeds to generators, fast: numpy's ``PCG64(seed)`` stream at half its set-up cost.

Every env reset turns a seed into a generator. ``np.random.PCG64(seed)`` spends
about 24 us doing it on the reference machine, two thirds of it in
``SeedSequence.generate_state`` (numpy builds small arrays and enters
``np.errstate`` for a dozen 32-bit multiplications). Games of about 48
steps make that half a microsecond of every step. A game may seed
each later shuffle with a pair ``[seed, draws]``, which numpy reads through a
slower path still.

:class:`IntSeedSequence` takes the entropy pool from numpy's own
``SeedSequence`` and hashes it into output words with Python ints, exactly as
numpy's ``generate_state`` does (or, where the package was compiled, does the
pool mixing and hashing in C: :mod:`setgames._seedhash`, another 5x faster);
:func:`fast_generator` hands it to ``PCG64``, which accepts any registered
``ISeedSequence``. A sequence of ints is first packed into the one int numpy
reads the same 32-bit entropy words from (:func:`entropy_int`), so it takes
the int path too; other seed shapes go through numpy unchanged. The generator
is the very one ``np.random.Generator(np.random.PCG64(seed))`` gives, draw for
draw (``tests/setgames/test_seeding.py`` compares their states over thousands
of seeds and sequences), in about half the time (an eighth, compiled).

>>> import numpy as np
>>> a = fast_generator(2026).integers(1000, size=4)
>>> b = np.random.Generator(np.random.PCG64(2026)).integers(1000, size=4)
>>> bool((a == b).all())
True
>>> c = fast_generator([2**40 + 5, 3]).permutation(10)
>>> bool((c == np.random.Generator(np.random.PCG64([2**40 + 5, 3])).permutation(10)).all())
True
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.random.bit_generator import ISeedSequence

try:  # the compiled pool mixing and hashing (setgames/_seedhash.pyx), when built
    from setgames._seedhash import seed_state64 as _c_state64
    from setgames._seedhash import seed_words32 as _c_words32
except ImportError:  # pragma: no cover - no compiler at install
    _c_state64 = _c_words32 = None

__all__ = ["IntSeedSequence", "entropy_int", "fast_generator", "seed_words"]

_M32 = 0xFFFFFFFF
_INIT_B = 0x8B51F9DD  # numpy's SeedSequence output-hash constants
_MULT_B = 0x58F38DED
_XSHIFT = 16
_POOL_WORDS = 4  # numpy's SeedSequence pool size, in 32-bit words
_C_BITS = 2048  # longest seed the compiled path reads (setgames/_seedhash.pyx: 64 words)


def _hash_consts(init: int, mult: int, count: int) -> tuple[int, ...]:
    # The hash constants of generate_state do not depend on the data: precompute them.
    out = []
    h = init
    for _ in range(count):
        out.append(h)
        h = (h * mult) & _M32
    return tuple(out)


_CONST_B = _hash_consts(_INIT_B, _MULT_B, 65)
_SeedSequence = np.random.SeedSequence
_U32, _U64 = np.dtype(np.uint32), np.dtype(np.uint64)  # dtype objects: np.array skips a lookup


def entropy_int(seed: Any) -> int | None:
    """The int whose 32-bit words numpy's ``SeedSequence`` reads as the entropy of ``seed``.

    numpy reads an int as its 32-bit words, low first (at least one word),
    and a sequence as the words of its items one after another. Packing those
    words little-endian into one int gives the same entropy, save trailing
    zero words, which change nothing while they fit in the 4-word pool: so
    ``SeedSequence(entropy_int(seed))`` is ``SeedSequence(seed)`` in pool and
    output. Returns ``seed`` itself for an int, the packed int for a list or
    tuple of non-negative Python ints, and None for any other shape (numpy
    must read it, and it raises on bad seeds).

    >>> entropy_int([2**40 + 5, 3]) == 2**40 + 5 + (3 << 64)
    True
    >>> entropy_int([0, 7]) == 7 << 32, entropy_int(np.int64(3)), entropy_int("5")
    (True, None, None)
    """
    if type(seed) is int:
        return seed
    if type(seed) is not list and type(seed) is not tuple:
        return None
    packed = shift = 0
    for x in seed:
        if type(x) is not int or x < 0:
            return None
        packed |= x << shift
        shift += ((x.bit_length() + 31) >> 5 or 1) << 5  # numpy gives 0 one word
    if shift > 32 * _POOL_WORDS and not packed >> (shift - 32):
        return None  # a trailing zero word past the pool is mixed in: numpy must read it
    return packed


def seed_words(seed: Any, n_words: int) -> list[int]:
    """numpy's ``SeedSequence(seed).generate_state(n_words, np.uint32)`` as a list of ints.

    ``seed`` is anything ``SeedSequence`` accepts (an int, a sequence of
    ints...). The entropy pool comes from numpy's own ``SeedSequence`` (its
    mixing is compiled and cheap; a list or tuple of ints is handed over
    packed, see :func:`entropy_int`); only the output hashing, which numpy
    runs through small arrays under ``np.errstate``, is done here with Python ints.

    >>> seed_words(0, 2) == np.random.SeedSequence(0).generate_state(2).tolist()
    True
    >>> seed_words([5, 2**33], 3) == np.random.SeedSequence([5, 2**33]).generate_state(3).tolist()
    True
    """
    if not 0 <= n_words < len(_CONST_B):
        raise ValueError(f"n_words {n_words!r} must be 0..{len(_CONST_B) - 1}")
    packed = entropy_int(seed)
    if _c_words32 is not None and packed is not None and packed >= 0 and packed.bit_length() <= _C_BITS:
        return _c_words32(packed, n_words)
    return _py_seed_words(seed if packed is None else packed, n_words)


def _py_seed_words(seed: Any, n_words: int) -> list[int]:
    """:func:`seed_words` with numpy's pool and Python ints (the path without a compiler)."""
    packed = entropy_int(seed)
    pool = _SeedSequence(seed if packed is None else packed).pool.tolist()
    size = len(pool)
    consts = _CONST_B
    out = []
    for i in range(n_words):
        v = ((pool[i % size] ^ consts[i]) * consts[i + 1]) & _M32
        out.append(v ^ (v >> _XSHIFT))
    return out


class IntSeedSequence(ISeedSequence):
    """A seed sequence for one int seed, equal in output to ``np.random.SeedSequence(seed)``.

    Only :meth:`generate_state` is provided (no spawning): it is what bit
    generators call when they are seeded.
    """

    __slots__ = ("seed",)

    def __init__(self, seed: int):
        self.seed = seed

    def generate_state(self, n_words: int, dtype: Any = np.uint32) -> np.ndarray:
        """``n_words`` words of ``dtype`` (``np.uint32`` or ``np.uint64``), as numpy's."""
        # PCG64 asks for np.uint64 itself: an identity test spares a dtype conversion.
        if dtype is np.uint64 or np.dtype(dtype) == np.uint64:
            if _c_state64 is not None and self.seed >= 0 and self.seed.bit_length() <= _C_BITS:
                return _c_state64(self.seed, n_words)
            # little-endian word pairs, as numpy's uint32 -> uint64 view
            w = seed_words(self.seed, 2 * n_words)
            return np.array([w[i] | (w[i + 1] << 32) for i in range(0, 2 * n_words, 2)], dtype=_U64)
        if np.dtype(dtype) == np.uint32:
            return np.array(seed_words(self.seed, n_words), dtype=_U32)
        raise ValueError(f"dtype {np.dtype(dtype)} must be uint32 or uint64")


def fast_generator(seed: Any) -> np.random.Generator:
    """``np.random.Generator(np.random.PCG64(seed))``, built faster for an int seed or a
    list or tuple of ints (see :func:`entropy_int`); numpy builds it for other shapes."""
    packed = entropy_int(seed)
    if packed is None:
        return np.random.Generator(np.random.PCG64(seed))
    return np.random.Generator(np.random.PCG64(IntSeedSequence(packed)))
