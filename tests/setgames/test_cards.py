"""The Decktet table of ``setgames.cards`` against the deck transcribed independently in
``tests/tethsi/decktet_oracle.py``, and the sanity facts the Decktet page states
(``docs/games/decktet.md``)."""

from __future__ import annotations

from collections import Counter

import pytest

from setgames import cards
from tests.tethsi.decktet_oracle import NUMBER_RANKS, STANDARD_DECK, SUITS


def _suit_names(card: int) -> tuple[str, ...]:
    return tuple(s for i, s in enumerate(SUITS) if cards.DECKTET_SUIT_MASKS[card] >> i & 1)


def test_standard_cards_match_the_rulings_table():
    assert cards.SUIT_NAMES == SUITS
    for card, (name, suits) in enumerate(STANDARD_DECK):
        assert cards.DECKTET_NAMES[card] == name
        assert set(_suit_names(card)) == set(suits)
        assert cards.suits_of(card) == _suit_names(card)
    assert [cards.DECKTET_RANKS[c] for c in range(6, 30)] == NUMBER_RANKS
    assert all(cards.DECKTET_RANKS[c] == 1 and cards.DECKTET_KINDS[c] is cards.CardKind.ACE for c in range(6))
    assert all(cards.DECKTET_RANKS[c] == 10 and cards.DECKTET_KINDS[c] is cards.CardKind.CROWN
               for c in range(30, 36))
    assert cards.NUM_STANDARD == 36


def _number_pairs() -> Counter:
    numbers = [c for c in range(36) if cards.DECKTET_KINDS[c] is cards.CardKind.NUMBER]
    return Counter(frozenset(_suit_names(c)) for c in numbers)


def test_24_number_cards_use_12_distinct_suit_pairs():
    pairs = _number_pairs()
    assert sum(pairs.values()) == 24 and len(pairs) == 12
    assert all(len(p) == 2 for p in pairs)


def test_three_pairs_appear_three_times_each():
    pairs = _number_pairs()
    thrice = {p for p, n in pairs.items() if n == 3}
    assert thrice == {frozenset(x) for x in (("Moons", "Suns"), ("Waves", "Leaves"), ("Wyrms", "Knots"))}


def test_three_pairs_never_appear():
    pairs = _number_pairs()
    for x in (("Moons", "Wyrms"), ("Suns", "Leaves"), ("Waves", "Knots")):
        assert frozenset(x) not in pairs
    # 15 possible pairs, 12 used: exactly those three are missing.
    assert len(pairs) + 3 == 15


def test_short_codes_and_names_are_unique_and_parse_back():
    for card in range(cards.NUM_DECKTET):
        assert cards.card_from_name(cards.DECKTET_NAMES[card]) == card
        assert cards.card_from_name(cards.DECKTET_SHORT[card]) == card
    assert len(set(cards.DECKTET_SHORT)) == cards.NUM_DECKTET


def test_extended_cards_match_the_rulings_table():
    want = {
        36: ("Watchman", {"Moons", "Leaves", "Wyrms"}), 37: ("Light Keeper", {"Suns", "Waves", "Knots"}),
        38: ("Borderland", {"Waves", "Leaves", "Wyrms"}), 39: ("Harvest", {"Moons", "Suns", "Leaves"}),
        40: ("Consul", {"Moons", "Waves", "Knots"}), 41: ("Window", {"Suns", "Leaves", "Knots"}),
        42: ("Island", {"Suns", "Waves", "Wyrms"}), 43: ("Rite", {"Moons", "Leaves", "Wyrms"}),
        44: ("The Excuse", set()),
    }
    for card, (name, suits) in want.items():
        assert cards.DECKTET_NAMES[card] == name and set(_suit_names(card)) == suits
    assert cards.PAWN_IDS == (36, 37, 38, 39) and cards.COURT_IDS == (40, 41, 42, 43)
    assert cards.EXCUSE_ID == 44


def test_unknown_card_name_and_out_of_range_id_raise_naming_them():
    with pytest.raises(ValueError, match="'Zeppelin'"):
        cards.card_from_name("Zeppelin")
    with pytest.raises(ValueError, match="45"):
        cards.suits_of(45)
