"""The Tet Hsi kernel against a brute-force reading of the rule text
(``tests/tethsi/decktet_oracle.py``, which never imports the library)."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setgames.kernels import tethsi as k
from tests.tethsi.decktet_oracle import oracle_kind

ALL_TRIPLES = list(itertools.combinations(range(36), 3))
ORACLE = {t: oracle_kind(*t) for t in ALL_TRIPLES}


def oracle_pairs(hand_cards: set[int], card: int) -> list[tuple[int, int]]:
    return sorted(
        (x, y) for x, y in itertools.combinations(sorted(hand_cards - {card}), 2)
        if ORACLE[tuple(sorted((x, y, card)))] is not None
    )


def test_all_7140_triples_match_the_oracle_in_every_order():
    assert len(ALL_TRIPLES) == 7140
    for t, want in ORACLE.items():
        for order in itertools.permutations(t):
            assert k.set_kind(*order) == want, (order, want)


def test_exactly_371_sets():
    assert sum(v is not None for v in ORACLE.values()) == 371
    assert len(k.VALID_SETS) == 371 == len(k.SET_KINDS)


def test_valid_sets_table_is_sorted_and_equals_the_oracle():
    rows = [tuple(r) for r in k.VALID_SETS.tolist()]
    assert rows == sorted(rows) and all(a < b < c for a, b, c in rows)
    assert dict(zip(rows, k.SET_KINDS, strict=True)) == {t: v for t, v in ORACLE.items() if v}
    assert k.VALID_SETS.dtype.kind == "i" and k.VALID_SETS.shape == (371, 3)


def test_kind_counts_per_kind():
    # Hand-counted from the deck: Kvar 3 pairs x 3 (two of three cards) x 4 (Ace or Crown of
    # either suit) = 36 plus 6 pairs shown twice x 4 = 24.
    assert Counter(k.SET_KINDS)["Kvar"] == 60
    assert Counter(k.SET_KINDS) == Counter(v for v in ORACLE.values() if v)


def test_kvar_aa_ab_ab_is_accepted_and_aa_aa_bb_refused():
    # Ace of Moons + Mountain + Diplomat (both Moons-Suns).
    assert k.set_kind(0, 12, 24) == "Kvar"
    # Ace of Moons + Crown of Moons + Ace of Suns: also four Moons and two Suns, but no Set.
    assert k.set_kind(0, 30, 1) is None


def test_ciao_only_with_the_missing_suit_pairs():
    # Ace of Moons + Forest (Moons, Leaves) + Lunatic (Moons, Waves): AAAABC with Leaves-Waves.
    assert k.set_kind(0, 15, 18) is None
    # Ace of Suns + Mountain (Moons, Suns) + Penitent (Suns, Wyrms): BC = Moons-Wyrms.
    assert k.set_kind(1, 12, 19) == "Ciao"


def test_five_bharg_and_phen_examples():
    assert k.set_kind(2, 32, 16) == "Five"  # Ace + Crown of Waves + Discovery (Suns, Waves)
    assert k.set_kind(6, 7, 8) == "Bharg"  # Author, Desert, Origin
    assert k.set_kind(12, 24, 27) == "Phen"  # Mountain, Diplomat, Pact
    assert k.set_kind(0, 12, 31) == "Phen"  # Ace of Moons, Mountain, Crown of Suns


@pytest.mark.parametrize("bad", [-1, 36, 44, 1.5, "3", None, True])
def test_set_kind_bad_card_raises_naming_it(bad):
    with pytest.raises(ValueError, match=repr(bad) if not isinstance(bad, int) else str(bad)):
        k.set_kind(bad, 1, 2)


def test_set_kind_repeated_card_raises():
    with pytest.raises(ValueError, match=r"\(5, 7, 5\)"):
        k.set_kind(5, 7, 5)


def test_pair_tables_list_every_completing_pair_once():
    for card in range(36):
        want = oracle_pairs(set(range(36)), card)
        n = int(k.PAIR_COUNTS[card])
        assert n == len(want)
        assert [tuple(p) for p in k.PAIR_CARDS[card, :n].tolist()] == want
        assert (k.PAIR_CARDS[card, n:] == -1).all()
        assert k.pairs_completing((1 << 36) - 1, card) == want
    assert int(k.PAIR_COUNTS.max()) == k.MAX_PAIRS


def _batch_pairs(hand: int, card: int) -> list[tuple[int, int]]:
    m = k.pairs_completing_batch(np.array([hand], np.uint64), np.array([card]))[0]
    return [tuple(p) for p in k.PAIR_CARDS[card][m].tolist()]


hand_and_card = st.tuples(st.sets(st.integers(0, 35), max_size=36), st.integers(0, 35))


@settings(max_examples=300, deadline=None)
@given(hand_and_card)
def test_pairs_completing_scalar_equals_batch_equals_oracle(case):
    cards, card = case
    hand = sum(1 << c for c in cards)
    want = oracle_pairs(cards, card)
    assert k.pairs_completing(hand, card) == want
    assert _batch_pairs(hand, card) == want


@settings(max_examples=30, deadline=None)
@given(st.lists(hand_and_card, min_size=0, max_size=40))
def test_batch_over_many_rows_matches_scalar(cases):
    hands = np.array([sum(1 << c for c in cs) for cs, _ in cases], dtype=np.uint64)
    cards = np.array([c for _, c in cases], dtype=np.int64)
    mat = k.pairs_completing_batch(hands, cards)
    counts = k.count_pairs_completing_batch(hands, cards)
    assert mat.shape == (len(cases), k.MAX_PAIRS) and mat.dtype == np.bool_
    for i, (cs, c) in enumerate(cases):
        want = oracle_pairs(cs, c)
        assert int(counts[i]) == len(want)
        assert [tuple(p) for p in k.PAIR_CARDS[c][mat[i]].tolist()] == want


def test_eight_card_hands_and_edge_hands():
    rng = np.random.default_rng(7)
    for _ in range(200):
        cs = rng.choice(36, 9, replace=False).tolist()
        hand = sum(1 << c for c in cs[:8])
        assert k.pairs_completing(hand, cs[8]) == oracle_pairs(set(cs[:8]), cs[8])
    # A hand holding the card itself never pairs the card with itself.
    assert all(card not in p for card in range(36) for p in k.pairs_completing((1 << 36) - 1, card))
    assert k.pairs_completing(np.uint64(0b11), np.int64(0)) == k.pairs_completing(3, 0)


@pytest.mark.parametrize(
    ("hand", "card", "needle"),
    [(-1, 0, "-1"), (1 << 36, 0, str(1 << 36)), (3, 36, "36"), (3, -2, "-2"), (2.0, 0, "2.0"),
     (3, "x", "'x'"), (True, 0, "True")],
)
def test_pairs_completing_bad_input_raises_naming_it(hand, card, needle):
    with pytest.raises(ValueError, match=needle):
        k.pairs_completing(hand, card)


def test_batch_bad_input_raises_naming_it():
    good_h, good_c = np.array([3], np.uint64), np.array([0])
    with pytest.raises(ValueError, match="int64"):
        k.pairs_completing_batch(good_h.astype(np.int64), good_c)
    with pytest.raises(ValueError, match=r"\(1, 1\)"):
        k.pairs_completing_batch(good_h.reshape(1, 1), good_c)
    with pytest.raises(ValueError, match="float64"):
        k.pairs_completing_batch(good_h, good_c.astype(np.float64))
    with pytest.raises(ValueError, match=r"\(2,\)"):
        k.pairs_completing_batch(good_h, np.array([0, 1]))
    with pytest.raises(ValueError, match="card 40"):
        k.count_pairs_completing_batch(good_h, np.array([40]))
    with pytest.raises(ValueError, match=str(1 << 40)):
        k.pairs_completing_batch(np.array([1 << 40], np.uint64), good_c)
    with pytest.raises(ValueError, match="list"):
        k.pairs_completing_batch([3], good_c)


def test_empty_batch():
    out = k.pairs_completing_batch(np.zeros(0, np.uint64), np.zeros(0, np.int64))
    assert out.shape == (0, k.MAX_PAIRS)


def test_tables_are_read_only():
    for arr in (k.VALID_SETS, k.PAIR_CARDS, k.PAIR_MASKS, k.PAIR_COUNTS):
        assert not arr.flags.writeable


def test_generator_lives_in_the_package_and_rebuilds_the_table():
    rows = [(a, b, c) for a, b, c, _ in k.generate_valid_sets()]
    assert rows == [tuple(r) for r in k.VALID_SETS.tolist()]
