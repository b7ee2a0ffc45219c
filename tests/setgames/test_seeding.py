"""The fast seed path gives numpy's own PCG64 generator, state for state."""

from __future__ import annotations

import random

import numpy as np
import pytest

from setgames.game import rng_from_seed
from setgames.seeding import IntSeedSequence, fast_generator, seed_words

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


def test_rng_from_seed_is_the_fast_generator():
    assert rng_from_seed(99).bit_generator.state == np.random.PCG64(99).state


def test_bad_seeds_and_sizes_raise_value_errors():
    with pytest.raises(ValueError):
        fast_generator(-1)
    with pytest.raises(ValueError, match="n_words"):
        seed_words(1, 10_000)
    with pytest.raises(ValueError, match="dtype"):
        IntSeedSequence(1).generate_state(2, np.float64)
