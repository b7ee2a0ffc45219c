"""Tet Hsi set-checking kernel: which three standard Decktet cards form a Set.

Rules applied (``tethsi_env/README.md``, rules choices 8, 9 and 10): only the 36 standard cards (ids
0..35) take part. Aces and Crowns count their one suit twice, so every card
shows two suit symbols and a triple shows six. With letters for distinct suits:

- **Five** ``AAAAAB``;
- **Bharg** ``ABCDEF``;
- **Kvar** ``AA+AB+AB`` card by card: one Ace or Crown of A and two number
  cards whose suits are both {A, B} (``AA+AA+BB`` is *not* a set);
- **Ciao** ``AAAABC`` where {B, C} is Moons-Wyrms, Suns-Leaves or Waves-Knots
  (the suit pairs no number card has);
- **Phen** ``AAABBB``.

The standard deck holds exactly 371 such triples. :func:`generate_valid_sets`
derives them from the definition above at import; everything else reads the
tables it builds:

- ``KIND_BY_MASK``: 3-card bitmask -> kind index, for the Sets only: the
  unchecked lookup for hot paths that already hold a valid triple (a game's
  ``apply``); :func:`set_kind_index` is the checked form;
- ``VALID_SETS`` ``(371, 3)`` int16, rows ``a < b < c`` sorted, and
  ``SET_KINDS`` (kind names aligned with the rows);
- per card, the padded table of the pairs that complete it to a Set:
  ``PAIR_CARDS`` ``(36, MAX_PAIRS, 2)`` int16 (``-1`` padding),
  ``PAIR_MASKS`` ``(36, MAX_PAIRS)`` uint64 (padding holds bit 63, which no hand
  of standard cards has, so it never matches) and ``PAIR_COUNTS`` ``(36,)``.

Scalar paths take Python ints (a hand is a 36-bit card bitmask); batch paths
take numpy arrays and answer with the same tables.

>>> set_kind(0, 30, 12)        # Ace of Moons, Crown of Moons, Mountain (Moons, Suns)
'Five'
>>> set_kind(0, 12, 24), set_kind(0, 30, 1)   # Kvar; AA+AA+BB is no set
('Kvar', None)
>>> len(VALID_SETS), VALID_SETS[0].tolist(), SET_KINDS[0]   # Ace of Moons, Ace of Suns, Mountain
(371, [0, 1, 12], 'Phen')
>>> pairs_completing((1 << 30) | (1 << 12) | (1 << 24), 0)
[(12, 24), (12, 30), (24, 30)]
"""

from __future__ import annotations

import operator
from collections.abc import Iterator

import numpy as np

from setgames.cards import DECKTET_KINDS, DECKTET_SUIT_MASKS, NUM_STANDARD, CardKind

__all__ = [
    "CIAO_PAIRS",
    "KIND_BY_MASK",
    "KIND_NAMES",
    "MAX_PAIRS",
    "PAIRS_BY_CARD",
    "PAIR_CARDS",
    "PAIR_COUNTS",
    "PAIR_MASKS",
    "SET_KINDS",
    "VALID_SETS",
    "count_pairs_completing_batch",
    "generate_valid_sets",
    "kind_of_counts",
    "pairs_completing",
    "pairs_completing_batch",
    "set_kind",
    "set_kind_index",
]

KIND_NAMES = ("Five", "Bharg", "Kvar", "Ciao", "Phen")  # kind index 0..4
CIAO_PAIRS = frozenset({(0, 4), (1, 3), (2, 5)})  # Moons-Wyrms, Suns-Leaves, Waves-Knots (suit ids)
_FULL_HAND = (1 << NUM_STANDARD) - 1
_PAD_MASK = 1 << 63  # bit no standard-card hand has: padded pair slots never match


def _symbols(card: int) -> list[int]:
    """The two suit symbols ``card`` shows (an Ace or Crown shows its suit twice)."""
    suits = [s for s in range(6) if DECKTET_SUIT_MASKS[card] >> s & 1]
    return suits * 2 if len(suits) == 1 else suits


def kind_of_counts(counts: list[int], singles: int) -> int | None:
    """Kind index of a triple from its per-suit symbol counts (6 entries summing
    to 6) and the number of its cards that show one suit twice; None if no Set.

    >>> KIND_NAMES[kind_of_counts([4, 2, 0, 0, 0, 0], singles=1)]
    'Kvar'
    >>> kind_of_counts([4, 2, 0, 0, 0, 0], singles=3) is None   # AA+AA+BB
    True
    """
    shape = sorted((c for c in counts if c), reverse=True)
    if shape == [5, 1]:
        return 0
    if shape == [1, 1, 1, 1, 1, 1]:
        return 1
    if shape == [4, 2]:
        # Card by card AA+AB+AB has one single-suit card; AA+AA+BB has three.
        return 2 if singles == 1 else None
    if shape == [4, 1, 1]:
        b, c = (s for s in range(6) if counts[s] == 1)
        return 3 if (b, c) in CIAO_PAIRS else None
    if shape == [3, 3]:
        return 4
    return None


def generate_valid_sets() -> Iterator[tuple[int, int, int, int]]:
    """Every Set of the standard deck as ``(a, b, c, kind index)``, ``a < b < c``,
    in lexicographic order, derived from the rule definition."""
    symbols = [_symbols(c) for c in range(NUM_STANDARD)]
    single = [DECKTET_KINDS[c] in (CardKind.ACE, CardKind.CROWN) for c in range(NUM_STANDARD)]
    for a in range(NUM_STANDARD):
        for b in range(a + 1, NUM_STANDARD):
            for c in range(b + 1, NUM_STANDARD):
                counts = [0] * 6
                for card in (a, b, c):
                    for s in symbols[card]:
                        counts[s] += 1
                kind = kind_of_counts(counts, single[a] + single[b] + single[c])
                if kind is not None:
                    yield a, b, c, kind


def _build_tables() -> tuple:
    rows = list(generate_valid_sets())
    valid = np.array([r[:3] for r in rows], dtype=np.int16).reshape(-1, 3)
    kinds = tuple(KIND_NAMES[r[3]] for r in rows)
    kind_by_mask = {(1 << a) | (1 << b) | (1 << c): k for a, b, c, k in rows}
    pairs: list[list[tuple[int, int, int]]] = [[] for _ in range(NUM_STANDARD)]
    for a, b, c, _ in rows:
        for card, x, y in ((a, b, c), (b, a, c), (c, a, b)):
            pairs[card].append(((1 << x) | (1 << y), x, y))
    for lst in pairs:
        lst.sort(key=lambda t: (t[1], t[2]))
    width = max(len(lst) for lst in pairs)
    cards = np.full((NUM_STANDARD, width, 2), -1, dtype=np.int16)
    masks = np.full((NUM_STANDARD, width), _PAD_MASK, dtype=np.uint64)
    counts = np.zeros(NUM_STANDARD, dtype=np.int16)
    for card, lst in enumerate(pairs):
        counts[card] = len(lst)
        for j, (m, x, y) in enumerate(lst):
            cards[card, j] = (x, y)
            masks[card, j] = m
    for arr in (valid, cards, masks, counts):
        arr.flags.writeable = False
    # Per card, per hand card x: bitmask of the cards y with {x, y, card} a Set.
    # The scalar path walks the hand's bits through it instead of every pair.
    partners = [[0] * NUM_STANDARD for _ in range(NUM_STANDARD)]
    for card, lst in enumerate(pairs):
        for _, x, y in lst:
            partners[card][x] |= 1 << y
            partners[card][y] |= 1 << x
    partner_masks = tuple(tuple(p) for p in partners)
    any_masks = tuple(_or_all(p) for p in partners)
    return (valid, kinds, kind_by_mask, tuple(tuple(lst) for lst in pairs), cards, masks, counts, width,
            partner_masks, any_masks)


def _or_all(masks: list[int]) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


(
    VALID_SETS,  # (371, 3) int16, rows a < b < c, sorted
    SET_KINDS,  # tuple of 371 kind names aligned with VALID_SETS
    KIND_BY_MASK,  # 3-card bitmask -> kind index, Sets only (read-only by convention)
    PAIRS_BY_CARD,  # per card: ((pair_mask, x, y), ...) sorted by (x, y)
    PAIR_CARDS,  # (36, MAX_PAIRS, 2) int16 card ids, -1 padding
    PAIR_MASKS,  # (36, MAX_PAIRS) uint64 pair bitmasks, bit-63 padding
    PAIR_COUNTS,  # (36,) int16 real pairs per card
    MAX_PAIRS,  # width of the padded pair tables
    _PARTNERS,  # [card][x] -> bitmask of y with {x, y, card} a Set
    _IN_ANY_PAIR,  # [card] -> bitmask of cards in some pair completing card
) = _build_tables()


# --------------------------------------------------------------------------- validation
def _card(value: object, what: str = "card") -> int:
    if isinstance(value, bool):
        raise ValueError(f"{what} {value!r} is not a card id")
    try:
        c = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(f"{what} {value!r} is not an integer card id") from None
    if not 0 <= c < NUM_STANDARD:
        raise ValueError(f"{what} {c!r} is out of range 0..{NUM_STANDARD - 1} (standard deck)")
    return c


def _hand(value: object) -> int:
    if isinstance(value, bool):
        raise ValueError(f"hand_mask {value!r} is not a card bitmask")
    try:
        h = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(f"hand_mask {value!r} is not an integer bitmask") from None
    if not 0 <= h <= _FULL_HAND:
        raise ValueError(f"hand_mask {h!r} holds bits outside the standard cards 0..35")
    return h


# --------------------------------------------------------------------------- scalar paths
def set_kind_index(a: int, b: int, c: int) -> int | None:
    """Kind index (into :data:`KIND_NAMES`) of the triple, or None if it is no Set.

    >>> set_kind_index(0, 1, 2) is None, set_kind_index(12, 24, 27)   # Phen: three Moons-Suns
    (True, 4)
    """
    a, b, c = _card(a, "card a"), _card(b, "card b"), _card(c, "card c")
    if a in (b, c) or b == c:
        raise ValueError(f"cards ({a}, {b}, {c}) repeat a card; a Set has three different cards")
    return KIND_BY_MASK.get((1 << a) | (1 << b) | (1 << c))


def set_kind(a: int, b: int, c: int) -> str | None:
    """Kind name ("Five", "Bharg", "Kvar", "Ciao", "Phen") of three different
    standard cards, in any order, or None when they form no Set.

    Raises:
        ValueError: a card id out of 0..35, not an integer, or repeated.

    >>> set_kind(6, 7, 8)     # Author, Desert, Origin: all six suits
    'Bharg'
    >>> set_kind(0, 1, 16)    # Ace of Moons, Ace of Suns, Discovery (Suns, Waves): AAABBC
    >>> set_kind(0, 0, 1)
    Traceback (most recent call last):
    ...
    ValueError: cards (0, 0, 1) repeat a card; a Set has three different cards
    """
    k = set_kind_index(a, b, c)
    return None if k is None else KIND_NAMES[k]


def pairs_completing(hand_mask: int, card: int) -> list[tuple[int, int]]:
    """Every pair ``(x, y)``, ``x < y``, of cards in ``hand_mask`` that forms a
    Set with ``card``, sorted. ``card`` itself is never part of a pair.

    Args:
        hand_mask: 36-bit bitmask of standard cards (bit ``i`` = card ``i``).
        card: the third card, 0..35.

    >>> hand = (1 << 0) | (1 << 30) | (1 << 24) | (1 << 27) | (1 << 5)
    >>> pairs_completing(hand, 12)    # Mountain (Moons, Suns)
    [(0, 24), (0, 27), (0, 30), (24, 27), (24, 30), (27, 30)]
    >>> pairs_completing(0, 12)
    []
    """
    if not (type(hand_mask) is int and 0 <= hand_mask <= _FULL_HAND):
        hand_mask = _hand(hand_mask)
    if not (type(card) is int and 0 <= card < NUM_STANDARD):
        card = _card(card)
    partners = _PARTNERS[card]
    rest = hand_mask & _IN_ANY_PAIR[card]
    out = []
    while rest:
        low = rest & -rest
        rest ^= low
        ys = partners[low.bit_length() - 1] & rest  # partners above x still in the hand
        if ys:
            x = low.bit_length() - 1
            while ys:
                y_low = ys & -ys
                out.append((x, y_low.bit_length() - 1))
                ys ^= y_low
    return out


# --------------------------------------------------------------------------- batch paths
def _batch_args(hands: np.ndarray, cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(hands, np.ndarray) or hands.dtype != np.uint64 or hands.ndim != 1:
        desc = f"{hands.dtype} {hands.shape}" if isinstance(hands, np.ndarray) else type(hands).__name__
        raise ValueError(f"hands must be a 1-D uint64 array, got {desc}")
    if not isinstance(cards, np.ndarray) or cards.dtype.kind not in "iu" or cards.shape != hands.shape:
        desc = f"{cards.dtype} {cards.shape}" if isinstance(cards, np.ndarray) else type(cards).__name__
        raise ValueError(f"cards must be an integer array of shape {hands.shape}, got {desc}")
    if cards.size:
        lo, hi = int(cards.min()), int(cards.max())
        if lo < 0 or hi >= NUM_STANDARD:
            bad = lo if lo < 0 else hi
            raise ValueError(f"card {bad} is out of range 0..{NUM_STANDARD - 1} (standard deck)")
        over = hands >> np.uint64(NUM_STANDARD)
        if over.any():
            i = int(np.flatnonzero(over)[0])
            raise ValueError(f"hand_mask {int(hands[i])} (row {i}) holds bits outside cards 0..35")
    return hands, cards.astype(np.intp, copy=False)


def pairs_completing_batch(hands: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """Batch form of :func:`pairs_completing`: a ``(B, MAX_PAIRS)`` bool matrix.

    Entry ``[i, j]`` is True when both cards of pair ``PAIR_CARDS[cards[i], j]``
    are in ``hands[i]``; padded columns (``j >= PAIR_COUNTS[cards[i]]``) are
    always False. ``PAIR_CARDS[cards[i]][row_i]`` lists the pairs in the same
    order as the scalar path.

    Args:
        hands: ``(B,)`` uint64 bitmasks of standard cards.
        cards: ``(B,)`` integer card ids 0..35.

    >>> hands = np.array([(1 << 30) | (1 << 12), 0], dtype=np.uint64)
    >>> m = pairs_completing_batch(hands, np.array([0, 0]))
    >>> m.shape == (2, MAX_PAIRS), PAIR_CARDS[0][m[0]].tolist(), int(m[1].sum())
    (True, [[12, 30]], 0)
    """
    hands, idx = _batch_args(hands, cards)
    masks = PAIR_MASKS[idx]
    return (hands[:, None] & masks) == masks


def count_pairs_completing_batch(hands: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """Per row, how many pairs of ``hands[i]`` form a Set with ``cards[i]``: ``(B,)`` int64.

    >>> hand = (1 << 0) | (1 << 30) | (1 << 24) | (1 << 27) | (1 << 5)
    >>> count_pairs_completing_batch(np.array([hand, hand], np.uint64), np.array([12, 35])).tolist()
    [6, 0]
    """
    return pairs_completing_batch(hands, cards).sum(axis=1, dtype=np.int64)
