"""The C random numbers of the batched engines (``setgames/batch/_rng.pxd``) against numpy itself,
and the C seed derivation against its Python twin (:mod:`setgames.batch.seeds`)."""

from __future__ import annotations

import numpy as np
import pytest

from setgames.batch import seeds

_rng = pytest.importorskip("setgames.batch._rng", reason="setgames.batch._rng is not built")

# Small, word-boundary and largest seeds, then a spread of random ones.
SEEDS = [0, 1, 2, 2**32 - 1, 2**32, 2**32 + 1, 2**63 - 1, 2**64 - 1] + [
    int(x) for x in np.random.default_rng(17).integers(0, 2**63, size=300, dtype=np.uint64)]


def _numpy(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))


@pytest.mark.parametrize("seed", SEEDS[:40])
def test_pcg64_raw_draws_equal_numpy(seed):
    assert _rng.next64(seed, 50) == _numpy(seed).bit_generator.random_raw(50).tolist()


@pytest.mark.parametrize("seed", SEEDS[:40])
def test_pcg64_32_bit_draws_are_numpys_halves(seed):
    # numpy's 32-bit draws of PCG64 are the two halves of one 64-bit draw, low first.
    want = _numpy(seed).integers(0, 2**32, size=41, dtype=np.uint32).tolist()
    assert _rng.next32(seed, 41) == want


def test_shuffle_and_integers_equal_numpy_over_many_seeds():
    bounds = [1, 2, 3, 7, 36, 704, 2**20 + 3, 2**31 + 1, 2**32 - 1]
    for seed in SEEDS:
        g = _numpy(seed)
        deck = list(range(36))
        g.shuffle(deck)
        want = [deck, int(g.integers(2))] + [int(g.integers(n)) for n in bounds]
        want.append(g.permutation(13).tolist())
        ops = [("shuffle", 36), ("integers", 2)] + [("integers", n) for n in bounds] + [("shuffle", 13)]
        assert _rng.script(seed, ops) == want, seed


def test_integers_rejects_out_of_range_bounds():
    with pytest.raises(ValueError, match="integers bound 0"):
        _rng.script(1, [("integers", 0)])


def test_lemire_on_a_numpy_bitgen_moves_it_as_numpy_does():
    bounds = [1, 2, 3, 5, 704, 2**31 + 7] * 50
    a, b = np.random.default_rng(99), np.random.default_rng(99)
    assert _rng.bitgen_integers(a, bounds) == [int(b.integers(n)) for n in bounds]
    assert a.bit_generator.state == b.bit_generator.state


def test_seed_derivation_in_c_equals_python():
    g = np.random.default_rng(3)
    for _ in range(500):
        master = int(g.integers(0, 2**63))
        slot, index = int(g.integers(0, 10_000)), int(g.integers(0, 10**6))
        want = seeds.game_seed(master, slot, index)
        assert _rng.game_seed(master, slot, index) == want
        assert 0 <= want < 2**63
        assert _rng.tag_seed(want, seeds.TAG_OPPONENTS) == seeds.tag_seed(want, seeds.TAG_OPPONENTS)


def test_first_game_of_slot_i_is_master_plus_i_and_later_games_differ():
    assert [seeds.game_seed(100, i, 0) for i in range(4)] == [100, 101, 102, 103]
    assert seeds.game_seed(2**63 - 1, 1, 0) == 0  # wraps modulo 2**63
    later = {seeds.game_seed(100, i, k) for i in range(50) for k in range(50)}
    assert len(later) == 2500


def test_pcg64_seeded_from_a_list_of_ints_equals_numpy():
    # Bharg's [seed, draws] seeds, word boundaries included: numpy reads each int as its
    # 32-bit words (one at least), low first, the words of the ints one after another.
    rng = np.random.default_rng(20)
    lists = [[0], [5], [5, 0], [0, 0], [2**32 - 1, 1], [2**32, 0], [2**63 - 1, 7], [2**64 - 1, 2**64 - 1],
             [1, 2, 3], [2**40, 2**33, 9, 0, 4]]
    lists += [[int(rng.integers(2**63)), int(rng.integers(50))] for _ in range(300)]
    for ints in lists:
        want = np.random.PCG64(ints).random_raw(12).tolist()
        assert _rng.next64_seq(ints, 12) == want, ints
