"""The standard Decktet and the Tet Hsi Set rule, written out independently
of the library (the Decktet's own card list; ``tethsi_env/README.md``,
rules choices 8, 9 and 10) for brute-force oracles.

Nothing here imports ``setgames``: the tests compare the library against it.
"""

from __future__ import annotations

import itertools
from collections import Counter

SUITS = ("Moons", "Suns", "Waves", "Leaves", "Wyrms", "Knots")

# (name, suits) for ids 0..35, transcribed by hand from the Decktet's card list.
STANDARD_DECK = (
    [(f"Ace of {s}", (s,)) for s in SUITS]
    + [
        ("Author", ("Moons", "Knots")), ("Desert", ("Suns", "Wyrms")), ("Origin", ("Waves", "Leaves")),
        ("Journey", ("Moons", "Waves")), ("Painter", ("Suns", "Knots")), ("Savage", ("Leaves", "Wyrms")),
        ("Mountain", ("Moons", "Suns")), ("Sailor", ("Waves", "Leaves")), ("Battle", ("Wyrms", "Knots")),
        ("Forest", ("Moons", "Leaves")), ("Discovery", ("Suns", "Waves")), ("Soldier", ("Wyrms", "Knots")),
        ("Lunatic", ("Moons", "Waves")), ("Penitent", ("Suns", "Wyrms")), ("Market", ("Leaves", "Knots")),
        ("Chance Meeting", ("Moons", "Leaves")), ("Castle", ("Suns", "Knots")), ("Cave", ("Waves", "Wyrms")),
        ("Diplomat", ("Moons", "Suns")), ("Mill", ("Waves", "Leaves")), ("Betrayal", ("Wyrms", "Knots")),
        ("Pact", ("Moons", "Suns")), ("Darkness", ("Waves", "Wyrms")), ("Merchant", ("Leaves", "Knots")),
    ]
    + [(f"Crown of {s}", (s,)) for s in SUITS]
)
NUMBER_RANKS = [r for r in range(2, 10) for _ in range(3)]  # ranks of ids 6..29
CIAO_BC = ({"Moons", "Wyrms"}, {"Suns", "Leaves"}, {"Waves", "Knots"})


def symbols(card: int) -> list[str]:
    """The two suit symbols a card shows; Aces and Crowns show their suit twice."""
    suits = list(STANDARD_DECK[card][1])
    return suits * 2 if len(suits) == 1 else suits


def _matches(pattern: str, syms: list[str]) -> dict[str, str] | None:
    """A letter->suit assignment (distinct letters, distinct suits) under which
    the multiset of ``syms`` equals ``pattern``, or None.

    Letters are interchangeable, so one exists exactly when the letter counts
    and the suit counts agree once sorted; letters are then given to suits
    count by count.
    """
    letter_counts = Counter(pattern)
    suit_counts = Counter(syms)
    if sorted(letter_counts.values()) != sorted(suit_counts.values()):
        return None
    letters = sorted(letter_counts, key=lambda ch: (letter_counts[ch], ch))
    suits = sorted(suit_counts, key=lambda s: (suit_counts[s], s))
    return dict(zip(letters, suits, strict=True))


def oracle_kind(a: int, b: int, c: int) -> str | None:
    """Kind of Set formed by three different standard cards, by reading the rule text literally."""
    cards = (a, b, c)
    syms = [s for card in cards for s in symbols(card)]
    if _matches("AAAAAB", syms):
        return "Five"
    if _matches("ABCDEF", syms):
        return "Bharg"
    # Kvar: card by card AA, AB, AB (in some order of the three cards).
    for aa, ab1, ab2 in itertools.permutations(cards):
        x, y = symbols(aa)
        ab = set(symbols(ab1))
        if x == y and ab == set(symbols(ab2)) and x in ab and len(ab) == 2:
            return "Kvar"
    assign = _matches("AAAABC", syms)
    if assign and {assign["B"], assign["C"]} in CIAO_BC:
        return "Ciao"
    if _matches("AAABBB", syms):
        return "Phen"
    return None
