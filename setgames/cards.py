"""Card tables for the Decktet (Tet Hsi, Bharg) and the Tu Sac chess cards.

Everything here is data, built once at import, exactly as the Decktet page
(``docs/games/decktet.md``) and ``tusac_env/README.md``, rules choice 15 (Tu Sac),
give it. Two parallel views exist of every table: plain Python tuples for per-step
code (an index costs ~0.1 us) and read-only numpy arrays for batch code.

Decktet card ids (``card``): 0-35 the standard deck, 36-39 Pawns, 40-43
Courts, 44 the Excuse. Suit index 0..5 = Moons, Suns, Waves, Leaves, Wyrms,
Knots; a card's suits are a 6-bit ``suit_mask``.

Tu Sac card type ids (``ttype``) = color * 7 + piece, colors red, yellow,
green, white and pieces king, guard, minister, rook, cannon, knight, pawn;
four identical copies of each of the 28 types make the 112-card deck.

>>> DECKTET_NAMES[21], DECKTET_RANKS[21], suits_of(21)
('Chance Meeting', 7, ('Moons', 'Leaves'))
>>> TUSAC_NAMES[3 * 7 + 6]
'white pawn'
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

__all__ = [
    "BHARG_VALUES",
    "COURT_IDS",
    "DECKTET_KINDS",
    "DECKTET_NAMES",
    "DECKTET_RANKS",
    "DECKTET_SHORT",
    "DECKTET_SUIT_MASKS",
    "EXCUSE_ID",
    "NUM_DECKTET",
    "NUM_STANDARD",
    "NUM_TUSAC_TYPES",
    "PAWN_IDS",
    "SUIT_NAMES",
    "SUIT_SYMBOLS",
    "TUSAC_COLORS",
    "TUSAC_COPIES",
    "TUSAC_NAMES",
    "TUSAC_PIECES",
    "CardKind",
    "Piece",
    "card_from_name",
    "decktet_arrays",
    "decktet_table",
    "suits_of",
    "tusac_color",
    "tusac_piece",
    "tusac_type",
]

SUIT_NAMES = ("Moons", "Suns", "Waves", "Leaves", "Wyrms", "Knots")
SUIT_SYMBOLS = ("M", "S", "V", "L", "Y", "K")  # one letter a suit, for compact renders
MOONS, SUNS, WAVES, LEAVES, WYRMS, KNOTS = range(6)

NUM_STANDARD = 36  # ids 0..35
NUM_DECKTET = 45  # ids 0..44, extended cards included
PAWN_IDS = (36, 37, 38, 39)
COURT_IDS = (40, 41, 42, 43)
EXCUSE_ID = 44


class CardKind(IntEnum):
    """What sort of Decktet card an id is."""

    ACE = 0
    NUMBER = 1
    CROWN = 2
    PAWN = 3
    COURT = 4
    EXCUSE = 5


def _mask(*suits: int) -> int:
    m = 0
    for s in suits:
        m |= 1 << s
    return m


# (name, rank, suits, kind). Rank 0 means "no rank" (Pawns, Courts, the Excuse).
_NUMBER_CARDS = (
    (2, ("Author", (MOONS, KNOTS)), ("Desert", (SUNS, WYRMS)), ("Origin", (WAVES, LEAVES))),
    (3, ("Journey", (MOONS, WAVES)), ("Painter", (SUNS, KNOTS)), ("Savage", (LEAVES, WYRMS))),
    (4, ("Mountain", (MOONS, SUNS)), ("Sailor", (WAVES, LEAVES)), ("Battle", (WYRMS, KNOTS))),
    (5, ("Forest", (MOONS, LEAVES)), ("Discovery", (SUNS, WAVES)), ("Soldier", (WYRMS, KNOTS))),
    (6, ("Lunatic", (MOONS, WAVES)), ("Penitent", (SUNS, WYRMS)), ("Market", (LEAVES, KNOTS))),
    (
        7,
        ("Chance Meeting", (MOONS, LEAVES)),
        ("Castle", (SUNS, KNOTS)),
        ("Cave", (WAVES, WYRMS)),
    ),
    (8, ("Diplomat", (MOONS, SUNS)), ("Mill", (WAVES, LEAVES)), ("Betrayal", (WYRMS, KNOTS))),
    (9, ("Pact", (MOONS, SUNS)), ("Darkness", (WAVES, WYRMS)), ("Merchant", (LEAVES, KNOTS))),
)


def _build_decktet() -> list[tuple[str, int, int, CardKind]]:
    cards: list[tuple[str, int, int, CardKind]] = []
    for s in range(6):
        cards.append((f"Ace of {SUIT_NAMES[s]}", 1, _mask(s), CardKind.ACE))
    for rank, *named in _NUMBER_CARDS:
        for name, suits in named:
            cards.append((name, rank, _mask(*suits), CardKind.NUMBER))
    for s in range(6):
        cards.append((f"Crown of {SUIT_NAMES[s]}", 10, _mask(s), CardKind.CROWN))
    cards += [
        ("Watchman", 0, _mask(MOONS, LEAVES, WYRMS), CardKind.PAWN),
        ("Light Keeper", 0, _mask(SUNS, WAVES, KNOTS), CardKind.PAWN),
        ("Borderland", 0, _mask(WAVES, LEAVES, WYRMS), CardKind.PAWN),
        ("Harvest", 0, _mask(MOONS, SUNS, LEAVES), CardKind.PAWN),
        ("Consul", 0, _mask(MOONS, WAVES, KNOTS), CardKind.COURT),
        ("Window", 0, _mask(SUNS, LEAVES, KNOTS), CardKind.COURT),
        ("Island", 0, _mask(SUNS, WAVES, WYRMS), CardKind.COURT),
        ("Rite", 0, _mask(MOONS, LEAVES, WYRMS), CardKind.COURT),
        ("The Excuse", 0, 0, CardKind.EXCUSE),
    ]
    return cards


_DECKTET = _build_decktet()
DECKTET_NAMES: tuple[str, ...] = tuple(c[0] for c in _DECKTET)
DECKTET_RANKS: tuple[int, ...] = tuple(c[1] for c in _DECKTET)  # 0 = no rank
DECKTET_SUIT_MASKS: tuple[int, ...] = tuple(c[2] for c in _DECKTET)  # 6-bit
DECKTET_KINDS: tuple[CardKind, ...] = tuple(c[3] for c in _DECKTET)


def _bharg_value(rank: int, kind: CardKind) -> int:
    if kind in (CardKind.PAWN, CardKind.COURT):
        return 10
    if kind is CardKind.EXCUSE:
        return 0
    return rank


BHARG_VALUES: tuple[int, ...] = tuple(
    _bharg_value(r, k) for r, k in zip(DECKTET_RANKS, DECKTET_KINDS, strict=True)
)


def _short(card: int) -> str:
    kind = DECKTET_KINDS[card]
    letters = "".join(SUIT_SYMBOLS[s] for s in range(6) if DECKTET_SUIT_MASKS[card] >> s & 1)
    if kind is CardKind.ACE:
        return f"A{letters}"
    if kind is CardKind.CROWN:
        return f"C{letters}"
    if kind is CardKind.NUMBER:
        return f"{DECKTET_RANKS[card]}{letters}"
    if kind is CardKind.PAWN:
        return f"P{letters}"
    if kind is CardKind.COURT:
        return f"T{letters}"
    return "X"


DECKTET_SHORT: tuple[str, ...] = tuple(_short(c) for c in range(NUM_DECKTET))
"""Compact unique codes, e.g. ``'7ML'`` for Chance Meeting, ``'AS'`` for the Ace of Suns."""

_BY_NAME = {}
for _c in range(NUM_DECKTET):
    _BY_NAME[DECKTET_NAMES[_c].lower()] = _c
    _BY_NAME[DECKTET_SHORT[_c].lower()] = _c


def card_from_name(text: str) -> int:
    """Decktet card id from its full name or short code (case-insensitive).

    >>> card_from_name("Chance Meeting"), card_from_name("ay")
    (21, 4)
    """
    try:
        return _BY_NAME[text.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown Decktet card {text!r}") from None


def suits_of(card: int) -> tuple[str, ...]:
    """Names of the suits of Decktet card ``card``."""
    if not 0 <= card < NUM_DECKTET:
        raise ValueError(f"Decktet card id {card!r} out of range 0..{NUM_DECKTET - 1}")
    return tuple(SUIT_NAMES[s] for s in range(6) if DECKTET_SUIT_MASKS[card] >> s & 1)


def decktet_arrays() -> dict[str, np.ndarray]:
    """The Decktet table as read-only numpy arrays (``rank``, ``suit_mask``, ``kind``, ``value``)."""
    out = {
        "rank": np.array(DECKTET_RANKS, dtype=np.int8),
        "suit_mask": np.array(DECKTET_SUIT_MASKS, dtype=np.uint8),
        "kind": np.array([int(k) for k in DECKTET_KINDS], dtype=np.int8),
        "value": np.array(BHARG_VALUES, dtype=np.int8),
    }
    for a in out.values():
        a.flags.writeable = False
    return out


# --------------------------------------------------------------------------- Tu Sac

TUSAC_COLORS = ("red", "yellow", "green", "white")
TUSAC_PIECES = ("king", "guard", "minister", "rook", "cannon", "knight", "pawn")
NUM_TUSAC_TYPES = 28
TUSAC_COPIES = 4  # identical copies of each type


class Piece(IntEnum):
    """Tu Sac piece index within a color."""

    KING = 0
    GUARD = 1
    MINISTER = 2
    ROOK = 3
    CANNON = 4
    KNIGHT = 5
    PAWN = 6


def tusac_type(color: int, piece: int) -> int:
    """Card type id of ``color`` and ``piece`` (``color * 7 + piece``)."""
    if not (0 <= color < 4 and 0 <= piece < 7):
        raise ValueError(f"Tu Sac color {color!r} / piece {piece!r} out of range")
    return color * 7 + piece


def tusac_color(ttype: int) -> int:
    """Color index (0 red, 1 yellow, 2 green, 3 white) of card type ``ttype``."""
    return ttype // 7


def tusac_piece(ttype: int) -> int:
    """Piece index (0 king .. 6 pawn) of card type ``ttype``."""
    return ttype % 7


TUSAC_NAMES: tuple[str, ...] = tuple(
    f"{TUSAC_COLORS[t // 7]} {TUSAC_PIECES[t % 7]}" for t in range(NUM_TUSAC_TYPES)
)


def decktet_table() -> str:
    """The Markdown table of the Decktet's card ids (both Decktet games use them).

    >>> decktet_table().splitlines()[2]
    '| 0 | `AM` | Ace of Moons | 1 | Moons | Ace | 1 |'
    """
    lines = ["| id | short | name | rank | suits | kind | Bharg value |", "|--:|---|---|--:|---|---|--:|"]
    for card in range(NUM_DECKTET):
        rank = DECKTET_RANKS[card]
        lines.append(f"| {card} | `{DECKTET_SHORT[card]}` | {DECKTET_NAMES[card]} | "
                     f"{rank if rank else '-'} | {', '.join(suits_of(card)) or '-'} | "
                     f"{CardKind(DECKTET_KINDS[card]).name.capitalize()} | "
                     f"{BHARG_VALUES[card]} |")
    return "\n".join(lines)
