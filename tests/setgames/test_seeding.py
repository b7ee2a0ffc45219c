"""The fast seed path gives numpy's own PCG64 generator, state for state."""

from __future__ import annotations

import random

import numpy as np
import pytest

from setgames.game import rng_from_seed
from setgames.seeding import IntSeedSequence, entropy_int, fast_generator, seed_words

EDGE_SEEDS = [0, 1, 2**31, 2**32 - 1, 2**32, 2**63 - 1, 2**64 - 1, 2**64, 2**128 + 5, 2**200 + 3]


def _seeds() -> list[int]:
    r = random.Random(20261129)
    return EDGE_SEEDS + list(range(300)) + [r.getrandbits(63) for _ in range(2000)]


def test_fast_generator_state_equals_numpy_pcg64_for_every_seed():
    for s in _seeds():
        assert fast_generator(s).bit_generator.state == np.random.PCG64(s).state, s


def test_fast_generator_draws_equal_numpy_draws():
    for s in (0, 7, 2**40 + 3):
        ours, ref = fast_generator(s), np.random.Generator(np.random.PCG64(s))
        assert ours.permutation(112).tolist() == ref.permutation(112).tolist()
        assert ours.integers(2**63, size=50).tolist() == ref.integers(2**63, size=50).tolist()
        assert ours.random(20).tolist() == ref.random(20).tolist()


def test_seed_words_equal_numpy_seed_sequence_output():
    for s in _seeds()[:500]:
        for n in (1, 4, 8, 13):
            assert seed_words(s, n) == np.random.SeedSequence(s).generate_state(n).tolist()


def test_int_seed_sequence_uint64_output_is_numpy_word_pairs():
    for s in EDGE_SEEDS:
        ref = np.random.SeedSequence(s).generate_state(3, np.uint64)
        assert IntSeedSequence(s).generate_state(3, np.uint64).tolist() == ref.tolist()


def _int_sequences() -> list[list[int]]:
    """Sequences of ints of every shape numpy reads: a 64-bit seed and a small counter
    (Bharg's ``[seed, draws]``), zeros anywhere, items of 1 to 3 words, 0 to 6 items."""
    r = random.Random(8)
    out = [[], [0], [0, 0], [0] * 5, [1, 0, 0, 0, 0], [2**32, 0], [2**64 - 1, 2**32 - 1], [2**64, 3],
           [2**96 + 1, 2**64, 0], [1, 2, 3, 4, 5, 0], [0, 0, 0, 0, 7], [2**32 - 1, 2**32]]
    for i in range(1500):
        if i % 2:  # the rules' shape: a seed below 2**63, the shuffles drawn so far
            draws = r.randrange(60) if i % 3 else r.getrandbits(40)
            out.append([r.getrandbits(63) >> r.randrange(64), draws])
        else:
            out.append([r.getrandbits(r.choice((1, 31, 32, 33, 64, 65, 96))) * r.randrange(2)
                        for _ in range(r.randrange(7))])
    return out


def test_fast_generator_of_int_sequences_equals_numpy_pcg64():
    for seq in _int_sequences():
        ref = np.random.PCG64(seq).state
        assert fast_generator(seq).bit_generator.state == ref, seq
        assert fast_generator(tuple(seq)).bit_generator.state == ref, seq


def test_seed_words_of_int_sequences_equal_numpy_seed_sequence_output():
    for seq in _int_sequences()[:400]:
        assert seed_words(seq, 8) == np.random.SeedSequence(seq).generate_state(8).tolist(), seq


def test_entropy_int_gives_numpy_the_same_entropy_pool():
    # Where it packs, numpy's SeedSequence of the packed int has the sequence's own pool.
    packed_some = 0
    for seq in _int_sequences():
        packed = entropy_int(seq)
        if packed is not None:
            packed_some += 1
            assert (np.random.SeedSequence(packed).pool == np.random.SeedSequence(seq).pool).all(), seq
    assert packed_some > 1000


def test_entropy_int_declines_what_numpy_must_read():
    # trailing zero words past the 4-word pool change the pool; other types are numpy's to read
    assert entropy_int([1, 2, 3, 4, 0]) is None and entropy_int([2**96, 0, 0]) is None
    assert entropy_int([1, 2, 3, 0]) == 1 | 2 << 32 | 3 << 64
    for seed in (np.int64(3), [np.int64(3)], [1, -1], [1.0], "7", np.array([1, 2], dtype=np.uint32), True):
        assert entropy_int(seed) is None, seed


def test_fast_generator_hands_other_seed_shapes_to_numpy():
    for seed in (np.int64(3), [np.uint32(5), 2**40], np.array([1, 2], dtype=np.uint32), [1, 2, 3, 4, 0]):
        assert fast_generator(seed).bit_generator.state == np.random.PCG64(seed).state
    with pytest.raises(ValueError):
        fast_generator([3, -1])


def test_rng_from_seed_is_the_fast_generator():
    assert rng_from_seed(99).bit_generator.state == np.random.PCG64(99).state


def test_bad_seeds_and_sizes_raise_value_errors():
    with pytest.raises(ValueError):
        fast_generator(-1)
    with pytest.raises(ValueError, match="n_words"):
        seed_words(1, 10_000)
    with pytest.raises(ValueError, match="dtype"):
        IntSeedSequence(1).generate_state(2, np.float64)


def test_compiled_seed_hashing_equals_the_python_path_and_numpy():
    from setgames import seeding

    if seeding._c_words32 is None:
        pytest.skip("setgames._seedhash is not built")
    long_seeds = [2**2048 - 1, 2**1000 + 12345, 3**500]
    for s in _seeds()[:800] + long_seeds:
        for n in (1, 4, 9):
            want = np.random.SeedSequence(s).generate_state(n).tolist()
            assert seeding._c_words32(s, n) == want == seeding._py_seed_words(s, n), s
        assert seeding._c_state64(s, 4).tolist() == np.random.SeedSequence(s).generate_state(
            4, np.uint64).tolist(), s
    # past the compiled path's 2048 bits numpy reads the seed
    big = 2**2100 + 1
    assert seed_words(big, 4) == np.random.SeedSequence(big).generate_state(4).tolist()
    with pytest.raises(ValueError, match="too long"):
        seeding._c_words32(big, 4)
