"""setgames.bits against brute force; a negative mask (infinitely many bits) is refused."""

from __future__ import annotations

import random

import pytest

from setgames.bits import bit_list, iter_bits, mask_of, popcount, set_bits


def test_bit_helpers_match_brute_force():
    rng = random.Random(3)
    for _ in range(300):
        m = rng.getrandbits(rng.choice([1, 8, 45, 64, 130]))
        expect = [i for i in range(m.bit_length()) if m >> i & 1]
        assert bit_list(m) == list(iter_bits(m)) == expect
        assert popcount(m) == len(expect) and mask_of(expect) == m
        buf = bytearray(m.bit_length() + 2)
        set_bits(buf, 1, m)
        assert [i - 1 for i, b in enumerate(buf) if b] == expect


@pytest.mark.parametrize("mask", [-1, -2, -(1 << 40)])
def test_a_negative_mask_is_refused_not_looped_on(mask):
    with pytest.raises(ValueError, match="negative"):
        bit_list(mask)
    with pytest.raises(ValueError, match="negative"):
        list(iter_bits(mask))
    with pytest.raises(ValueError, match="negative"):
        set_bits(bytearray(8), 0, mask)
