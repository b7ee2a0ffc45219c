"""Bharg set-checking kernel: bharg sets, bound cards and unbound value.

Rules applied (``docs/games/decktet.md``; ``bharg_env/README.md``, rules choices 11, 12 and 13):

- a **set** is three or more cards whose suits, together, show every one of
  the six suits exactly once (Pawns and Courts give all three of their suits;
  the Excuse, with no suit, is in no set). A Pawn and the Court or Pawn with
  the three other suits cover the six suits with *two* cards: no set;
- a card is **bound** if it is in one of a collection of disjoint sets drawn
  from the hand, or shares a suit with the top card of the Ace Pile, or is the
  Excuse. The holder arranges the sets as they like;
- :func:`evaluate` gives, for one hand (a card bitmask of at most 9 of the 45
  card ids) and the Ace Pile's top card (an Ace id 0..5, or None / -1 for no
  Ace Pile): the largest number of bound cards, whether all are bound, and the
  lowest total Bharg value of the unbound cards (values ``BHARG_VALUES``: Ace
  1, number cards their rank, Crown 10, Pawn and Court 10, Excuse 0). The
  arrangement with the lowest unbound value may bind fewer cards than the one
  that binds most; each figure is the best for the holder on its own.

How the tables work. Cards with the same suit mask (*pattern*; 25 patterns
among ids 0..43) are interchangeable in sets. With an Ace Pile top of suit
``s``, every set holds exactly one card showing ``s`` (an *anchor*, already
bound), so a hand is all-bound exactly when its non-anchor, non-Excuse cards
``N`` plus some of its anchors form a union of disjoint sets. The generator
:func:`generate_unions` lists every pattern multiset that is a union of 1-3
disjoint sets of at most 9 cards; :func:`_build_tables` keys them by
``(anchor suit, pattern code of N)`` and keeps, for each key, the minimal
anchor multisets needed. A pattern code packs the count of each pattern in 2
bits (no pattern has more than 3 cards), so it is the sum of six byte-table
lookups; anchor codes use 3-bit fields, compared all at once with the guard
bit trick ``((a | G) - r) & G == G`` (every field of ``a`` >= ``r``). Without
an Ace Pile there are no anchors and ``N`` itself must be such a union.

- :func:`all_bound` / :func:`all_bound_batch`: the table lookup (scalar: a
  dict; batch: ``searchsorted`` over the sorted keys).
- :func:`evaluate` (scalar): the pattern-level sets the hand holds are one
  AND of five lookups on its pattern code (``_FITTAB``); a collection of up
  to three binds the hand's highest-valued cards of each pattern it uses
  (layers found with ``_WORSE``), and when no pattern is held twice the
  collections are disjoint sets whose gains simply add up.
- :func:`evaluate_batch`: vectorised. A hand's collections of disjoint sets
  are sums of at most three of the 74 pattern-level sets that fit in it
  (found sparsely, a few per hand); a collection binds, of each pattern, its
  count of the hand's highest-valued cards; the best count and value are
  maximised per hand.

>>> from setgames.cards import card_from_name as C
>>> hand = (1 << C("Lunatic")) | (1 << C("Penitent")) | (1 << C("Market"))   # the three 6s
>>> is_set(hand)
True
>>> evaluate(hand | 1 << C("Crown of Moons"), None)
BhargEval(bound=3, all_bound=False, unbound_value=10)
>>> evaluate(hand | 1 << C("Crown of Moons"), C("Ace of Moons"))   # the Crown shares Moons
BhargEval(bound=4, all_bound=True, unbound_value=0)
>>> is_set((1 << C("Watchman")) | (1 << C("Light Keeper")))        # two cards: no set
False
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from setgames.cards import BHARG_VALUES, DECKTET_SUIT_MASKS, EXCUSE_ID, NUM_DECKTET

__all__ = [
    "ANCHOR_MASKS",
    "CARD_CODES",
    "MAX_HAND",
    "NUM_PATTERNS",
    "PATTERNS",
    "BhargEval",
    "all_bound",
    "all_bound_batch",
    "all_bound_code",
    "all_bound_trusted",
    "bound_count",
    "bound_count_batch",
    "evaluate",
    "evaluate_batch",
    "generate_unions",
    "is_set",
    "is_set_batch",
    "min_unbound_value",
    "min_unbound_value_batch",
    "pattern_code",
    "sets_in_hand",
]

MAX_HAND = 9  # cards a hand may hold for these kernels
ALL_SUITS = 0b111111
_FULL = (1 << NUM_DECKTET) - 1  # 45-bit mask of every card id
_EXCUSE_BIT = 1 << EXCUSE_ID
_SM = DECKTET_SUIT_MASKS

# ----------------------------------------------------------------- patterns
PATTERNS: tuple[int, ...] = tuple(sorted({_SM[c] for c in range(NUM_DECKTET) if _SM[c]}))
"""The distinct suit masks of the suited cards (ids 0..43), ascending."""
NUM_PATTERNS = len(PATTERNS)  # 25
_PIDX = {p: i for i, p in enumerate(PATTERNS)}
_AVAIL = [sum(1 for c in range(NUM_DECKTET) if _SM[c] == p) for p in PATTERNS]  # cards per pattern

# Suit s -> mask of cards showing s; index 0 is "no Ace Pile" (no anchors).
ANCHOR_MASKS: tuple[int, ...] = (
    0, *(sum(1 << c for c in range(NUM_DECKTET) if _SM[c] >> s & 1) for s in range(6))
)
"""``ANCHOR_MASKS[s + 1]``: cards sharing suit ``s`` (bound by an Ace of ``s``); ``[0]`` is 0."""
_SUIT_CARDS = ANCHOR_MASKS[1:]

# Per Ace Pile state (0 = none, 1 + suit): the 2-bit pattern-code fields of the
# patterns that do not show the suit (cards that still need a set).
_NONANCHOR_FIELDS: tuple[int, ...] = tuple(
    sum(3 << (2 * i) for i, p in enumerate(PATTERNS) if not (a and p >> (a - 1) & 1)) for a in range(7)
)
# Anchor counts are compared field by field with the guard-bit trick, on the
# even and the odd fields apart so that each 2-bit field has 2 free bits above.
_EVEN = sum(3 << (4 * i) for i in range((NUM_PATTERNS + 1) // 2))
_GUARD = sum(4 << (4 * i) for i in range((NUM_PATTERNS + 1) // 2))


def _fits(have: int, req: int) -> bool:
    """True when every pattern count of code ``have`` is >= that of code ``req``."""
    g = _GUARD
    return (((have & _EVEN | g) - (req & _EVEN)) & g == g
            and (((have >> 2) & _EVEN | g) - ((req >> 2) & _EVEN)) & g == g)


def _build_byte_tables() -> tuple[list[list[int]], list[list[int]]]:
    """Per byte of a hand: its pattern-code and value contributions."""
    ncode = [[0] * 256 for _ in range(6)]
    value = [[0] * 256 for _ in range(6)]
    for j in range(6):
        for b in range(256):
            for k in range(8):
                c = 8 * j + k
                if not (b >> k & 1) or c >= NUM_DECKTET:
                    continue
                value[j][b] += BHARG_VALUES[c]
                if _SM[c]:
                    ncode[j][b] += 1 << (2 * _PIDX[_SM[c]])
    return ncode, value


_NTAB, _VTAB = _build_byte_tables()


def _value(m: int) -> int:
    t = _VTAB
    return (t[0][m & 255] + t[1][m >> 8 & 255] + t[2][m >> 16 & 255] + t[3][m >> 24 & 255]
            + t[4][m >> 32 & 255] + t[5][m >> 40 & 255])


# ----------------------------------------------------------------- generators
def _pattern_covers() -> list[tuple[int, ...]]:
    """Every set at pattern level: >= 3 distinct patterns partitioning the six suits."""
    out: list[tuple[int, ...]] = []

    def rec(uncovered: int, chosen: tuple[int, ...]) -> None:
        if not uncovered:
            if len(chosen) >= 3:
                out.append(chosen)
            return
        low = uncovered & -uncovered
        for i, p in enumerate(PATTERNS):
            if p & low and p & uncovered == p:
                rec(uncovered ^ p, (*chosen, i))

    rec(ALL_SUITS, ())
    return out


def generate_unions() -> Iterator[tuple[int, ...]]:
    """Every pattern multiset (as a count per pattern) that is a union of 1, 2 or 3
    disjoint sets of at most :data:`MAX_HAND` cards in all, using no pattern more
    often than the deck holds it. Unions reached in several ways are yielded once.

    >>> unions = list(generate_unions())
    >>> len(unions) > 1000, max(sum(u) for u in unions)
    (True, 9)
    """
    covers = _pattern_covers()
    seen: set[tuple[int, ...]] = set()
    vecs = []
    for cov in covers:
        v = [0] * NUM_PATTERNS
        for i in cov:
            v[i] += 1
        vecs.append(v)

    def emit(parts: list[list[int]]) -> tuple[int, ...] | None:
        tot = tuple(sum(col) for col in zip(*parts, strict=True))
        if sum(tot) > MAX_HAND or any(t > a for t, a in zip(tot, _AVAIL, strict=True)):
            return None
        if tot in seen:
            return None
        seen.add(tot)
        return tot

    sizes = [sum(v) for v in vecs]
    for i, vi in enumerate(vecs):
        u = emit([vi])
        if u is not None:
            yield u
        for j in range(i, len(vecs)):
            if sizes[i] + sizes[j] > MAX_HAND:
                continue
            u = emit([vi, vecs[j]])
            if u is not None:
                yield u
            if sizes[i] + sizes[j] + 3 > MAX_HAND:
                continue
            for k in range(j, len(vecs)):
                if sizes[i] + sizes[j] + sizes[k] <= MAX_HAND:
                    u = emit([vi, vecs[j], vecs[k]])
                    if u is not None:
                        yield u


_HASH_MULTS = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F)  # the two cuckoo hash functions
_HASH_BITS = 15  # two tables of 32,768 slots for ~25,000 keys
_NO_KEY = 1 << 63  # empty slot; real keys use 53 bits
_M64 = (1 << 64) - 1


def _slot(key: int, i: int) -> int:
    return ((key * _HASH_MULTS[i]) & _M64) >> (64 - _HASH_BITS)


def _cuckoo(keys: list[int]) -> tuple[list[list[int]], list[list[int]]]:
    """Place every key in one of its two slots (cuckoo hashing: two probes a lookup)."""
    size = 1 << _HASH_BITS
    slot_key = [[_NO_KEY] * size for _ in range(2)]
    slot_row = [[0] * size for _ in range(2)]
    for row, key in enumerate(keys):
        k, r, side = key, row, 0
        for _ in range(1000):
            j = _slot(k, side)
            k, slot_key[side][j] = slot_key[side][j], k
            r, slot_row[side][j] = slot_row[side][j], r
            if k == _NO_KEY:
                break
            side ^= 1
        else:  # pragma: no cover - the generator fixes the keys; tests build this table
            raise RuntimeError("cuckoo table construction failed; change _HASH_MULTS")
    return slot_key, slot_row


def _build_tables() -> tuple[dict[int, tuple[int, ...]], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The all-bound table, as a dict for the scalar path and arrays for the batch path.

    Key ``(a << 50) | code(N)`` (``a`` = 0 for no Ace Pile, else 1 + its suit;
    ``N`` the cards that need a set) -> the minimal anchor pattern codes that,
    added to ``N``, make a union of disjoint sets. Batch arrays: the two cuckoo
    tables of keys ``(2, 32768)`` and their row numbers, and the requirements
    ``(R, rows)`` split into even and odd pattern fields (rows with fewer than
    ``R`` requirements repeat their first one, which changes no answer).
    """
    reqs: dict[int, set[int]] = {}
    for union in generate_unions():
        code = sum(cnt << (2 * i) for i, cnt in enumerate(union))
        for a in range(7):
            ncode = code & _NONANCHOR_FIELDS[a]
            if a and not ncode:
                continue  # nothing needs a set: answered before any lookup
            reqs.setdefault(a << 50 | ncode, set()).add(code ^ ncode)
    table: dict[int, tuple[int, ...]] = {}
    for key, rs in reqs.items():
        table[key] = tuple(sorted(r for r in rs if not any(o != r and _fits(r, o) for o in rs)))
    keys = sorted(table)
    width = max(len(v) for v in table.values())
    req = np.array([[*table[k], *[table[k][0]] * (width - len(table[k]))] for k in keys],
                   dtype=np.uint64).T
    req_split = np.stack([req & np.uint64(_EVEN), (req >> np.uint64(2)) & np.uint64(_EVEN)])
    slot_key, slot_row = _cuckoo(keys)
    ck_key = np.array(slot_key, dtype=np.uint64)
    ck_row = np.array(slot_row, dtype=np.intp)
    for arr in (ck_key, ck_row, req_split):
        arr.flags.writeable = False
    return table, ck_key, ck_row, req_split


_TABLE, _CK_KEY, _CK_ROW, _REQ_SPLIT = _build_tables()
_NTAB_NP = np.array(_NTAB, dtype=np.uint64).reshape(-1)  # (6 * 256,) pattern code per byte
_NONANCHOR_NP = np.array(_NONANCHOR_FIELDS, dtype=np.uint64)
_SM_NP = np.array(_SM, dtype=np.uint64)
for _arr in (_NTAB_NP, _NONANCHOR_NP, _SM_NP):
    _arr.flags.writeable = False


def _build_eval_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Tables of the vectorised :func:`evaluate_batch`.

    Returns the pattern codes of the sets at pattern level ``(C,)`` (every
    collection of disjoint sets of a hand is a sum of at most three of them),
    their even and odd fields apart ``(2, C)``, and per pattern ``p``: its card
    ids by falling value ``(P, 3)`` (-1 pads) and the value of its ``k`` best
    cards held, indexed by ``p * 32 + held * 4 + k`` where bit ``i`` of
    ``held`` says the ``i``-th of those cards is in the hand ``(P * 32,)``.
    """
    covers = np.array([sum(1 << (2 * i) for i in cov) for cov in _pattern_covers()], dtype=np.uint64)
    split = np.stack([covers & np.uint64(_EVEN), (covers >> np.uint64(2)) & np.uint64(_EVEN)])
    by_value = np.full((NUM_PATTERNS, 3), -1, dtype=np.int64)
    topk = np.zeros(NUM_PATTERNS * 32, dtype=np.int64)
    for p, pat in enumerate(PATTERNS):
        ids = sorted((c for c in range(NUM_DECKTET) if _SM[c] == pat), key=lambda c: -BHARG_VALUES[c])
        by_value[p, : len(ids)] = ids
        for held in range(8):
            vals = [BHARG_VALUES[c] for i, c in enumerate(ids) if held >> i & 1]
            for k in range(4):
                topk[p * 32 + held * 4 + k] = sum(vals[:k])
    return covers, split, by_value, topk, np.array(_VTAB, dtype=np.int64).reshape(-1)


_COVER_CODES, _COVER_SPLIT, _PATTERN_CARDS, _TOPK_VALUE, _VTAB_NP = _build_eval_tables()
for _arr in (_COVER_CODES, _COVER_SPLIT, _PATTERN_CARDS, _TOPK_VALUE, _VTAB_NP):
    _arr.flags.writeable = False
_ANCHOR_NP = np.array(ANCHOR_MASKS, dtype=np.uint64)
_ANCHOR_NP.flags.writeable = False
_EVAL_CHUNK = 16_384  # rows evaluated at once (bounds the (rows, covers) temporaries)
_EVAL_SCALAR_BELOW = 8  # smaller batches run the scalar path (fixed numpy costs ~1 ms)
_LOW_BITS = sum(1 << (2 * i) for i in range(NUM_PATTERNS))  # low bit of every 2-bit field
_CODE_BITS = 2 * NUM_PATTERNS  # a pattern code's width; the scalar tables keep the value above it
_CODE_MASK = (1 << _CODE_BITS) - 1
_FIT_CHUNK = 10  # pattern-code bits (5 patterns) per lookup of the scalar fit table


def _build_scalar_eval_tables() -> tuple[list[list[int]], list[list[int]], list[int], list[int],
                                         list[list[int]]]:
    """Tables of the scalar :func:`evaluate` (Python ints throughout).

    Returns:
        code_value: per byte ``j`` of a hand and byte value ``b``: the pattern
            code of those cards plus their Bharg value shifted above it (6 x 256).
        fit: per 10-bit chunk ``k`` of a pattern code: the mask of the sets at
            pattern level (bit ``i`` = the ``i``-th of :func:`_pattern_covers`)
            none of whose patterns in the chunk is missing (5 x 1024); a hand
            holds set ``i`` exactly when bit ``i`` is in all five lookups.
        cover_cards: per pattern-level set, the mask of every card of its patterns.
        cover_size: per pattern-level set, its number of cards.
        worse: per byte ``j`` and byte value ``b``: the cards of the same pattern
            as one of those cards and of lower value (ties: higher id) (6 x 256).
    """
    covers = _pattern_covers()
    code_value = [[_NTAB[j][b] | _VTAB[j][b] << _CODE_BITS for b in range(256)] for j in range(6)]
    per = _FIT_CHUNK // 2
    fit = []
    for k in range((NUM_PATTERNS + per - 1) // per):
        need = [sum(1 << (p - per * k) for p in cov if per * k <= p < per * (k + 1)) for cov in covers]
        by_present = [sum(1 << i for i, r in enumerate(need) if r & pres == r) for pres in range(1 << per)]
        fit.append([by_present[sum(1 << i for i in range(per) if x >> (2 * i) & 3)]
                    for x in range(1 << _FIT_CHUNK)])
    cover_cards = [sum(1 << c for c in range(NUM_DECKTET) if _SM[c] and _PIDX[_SM[c]] in cov)
                   for cov in covers]
    cover_size = [len(cov) for cov in covers]
    worse_card = [sum(1 << d for d in range(NUM_DECKTET)
                      if d != c and _SM[d] == _SM[c] and _SM[c]
                      and (BHARG_VALUES[d], -d) < (BHARG_VALUES[c], -c))
                  for c in range(NUM_DECKTET)]
    worse = [[0] * 256 for _ in range(6)]
    for j in range(6):
        for b in range(256):
            for i in range(8):
                if b >> i & 1 and 8 * j + i < NUM_DECKTET:
                    worse[j][b] |= worse_card[8 * j + i]
    return code_value, fit, cover_cards, cover_size, worse


_CVTAB, _FITTAB, _COVER_CARDS, _COVER_SIZE, _WORSE = _build_scalar_eval_tables()


# ----------------------------------------------------------------- validation
def _hand(hand: object, limit: int | None = MAX_HAND) -> int:
    if isinstance(hand, (bool, np.bool_)) or not isinstance(hand, (int, np.integer)):
        raise ValueError(f"hand {hand!r} is not an integer card bitmask")
    h = int(hand)
    if h < 0 or h > _FULL:
        raise ValueError(f"hand {h:#x} holds card ids outside 0..{NUM_DECKTET - 1}")
    if limit is not None and h.bit_count() > limit:
        raise ValueError(f"hand {h:#x} holds {h.bit_count()} cards; at most {limit} allowed")
    return h


def _ace(ace_top: object, hand: int) -> int:
    """Ace Pile state index: 0 for none, else 1 + suit."""
    if ace_top is None:
        return 0
    if isinstance(ace_top, (bool, np.bool_)) or not isinstance(ace_top, (int, np.integer)):
        raise ValueError(f"ace_top {ace_top!r} is not None or an Ace id 0..5")
    a = int(ace_top)
    if a == -1:
        return 0
    if not 0 <= a < 6:
        raise ValueError(f"ace_top {a} is not an Ace id 0..5 (or -1 / None for no Ace Pile)")
    if hand >> a & 1:
        raise ValueError(f"ace_top {a} is also in the hand {hand:#x}")
    return a + 1


# ----------------------------------------------------------------- scalar paths
class BhargEval(NamedTuple):
    """What a hand is worth to its holder under the best arrangements.

    Attributes:
        bound: the largest number of bound cards.
        all_bound: True when every card can be bound at once (a winning hand).
        unbound_value: the lowest possible total value of the unbound cards.
    """

    bound: int
    all_bound: bool
    unbound_value: int


_new_eval = tuple.__new__  # builds a BhargEval without NamedTuple.__new__'s keyword handling


def is_set(cards_mask: int) -> bool:
    """True when the cards form one bharg set: >= 3 cards showing each suit exactly once.

    >>> is_set(0b111 << 18)            # Lunatic, Penitent, Market (the 6s)
    True
    >>> is_set(0b111 << 18 | 1 << 44)  # the Excuse is in no set
    False
    """
    m = _hand(cards_mask, None)
    if m & _EXCUSE_BIT or m.bit_count() < 3:
        return False
    seen = 0
    while m:
        low = m & -m
        s = _SM[low.bit_length() - 1]
        if seen & s:
            return False
        seen |= s
        m ^= low
    return seen == ALL_SUITS


def all_bound(hand: int, ace_top: int | None = None) -> bool:
    """True when every card of ``hand`` can be bound at once (the Bharg win check).

    Args:
        hand: card bitmask (bit ``c`` = card id ``c``), at most 9 cards.
        ace_top: the Ace Pile's top card (an Ace id 0..5), or None / -1.

    >>> all_bound(0b111 << 18 | 1 << 44)            # the three 6s and the Excuse
    True
    >>> all_bound(1 << 21, 0), all_bound(1 << 21)   # Chance Meeting shows Moons
    (True, False)
    """
    h = _hand(hand)
    return all_bound_trusted(h, _ace(ace_top, h) - 1)


def all_bound_trusted(hand: int, ace_top: int) -> bool:
    """:func:`all_bound` without input checks, for per-step code whose state is
    already valid: ``hand`` a card bitmask of at most 9 cards, ``ace_top`` an
    Ace id 0..5 not in the hand, or -1.

    >>> all_bound_trusted(1 << 21, 0)
    True
    """
    return all_bound_code(pattern_code(hand), ace_top)


CARD_CODES: tuple[int, ...] = tuple(_NTAB[c >> 3][1 << (c & 7)] for c in range(NUM_DECKTET))
"""Per card id, its term of a hand's pattern code (:func:`pattern_code`); 0 for the Excuse."""


def pattern_code(hand: int) -> int:
    """The pattern code of card bitmask ``hand`` (no input checks): the sum of the
    :data:`CARD_CODES` of its cards. Per-step code can keep it current as cards
    come and go and ask :func:`all_bound_code` instead of :func:`all_bound_trusted`.

    >>> pattern_code(0b111 << 18) == CARD_CODES[18] + CARD_CODES[19] + CARD_CODES[20]
    True
    """
    t = _NTAB
    return (t[0][hand & 255] + t[1][hand >> 8 & 255] + t[2][hand >> 16 & 255]
            + t[3][hand >> 24 & 255] + t[4][hand >> 32 & 255] + t[5][hand >> 40 & 255])


def all_bound_code(code: int, ace_top: int) -> bool:
    """:func:`all_bound_trusted` of the hand whose :func:`pattern_code` is ``code``
    (cards of one suit pattern are interchangeable, so the code decides).

    >>> all_bound_code(pattern_code(1 << 21), 0), all_bound_code(pattern_code(1 << 21), -1)
    (True, False)
    """
    a = ace_top + 1
    ncode = code & _NONANCHOR_FIELDS[a]
    if not ncode:
        return True
    reqs = _TABLE.get(a << 50 | ncode)
    if reqs is None:
        return False
    have = code ^ ncode
    g = _GUARD
    he = have & _EVEN | g
    ho = (have >> 2) & _EVEN | g
    for r in reqs:  # noqa: SIM110 - a plain loop is cheaper than any() on a generator
        if (he - (r & _EVEN)) & g == g and (ho - ((r >> 2) & _EVEN)) & g == g:
            return True
    return False


def sets_in_hand(hand: int) -> list[int]:
    """Every bharg set inside ``hand`` as a card bitmask (any order).

    >>> [bin(s) for s in sets_in_hand(0b111 << 18 | 1)]
    ['0b111000000000000000000']
    """
    h = _hand(hand, None)
    by_suit = [h & m for m in _SUIT_CARDS]
    out: list[int] = []
    # Suit-ordered exact cover: the card covering the lowest open suit is
    # chosen next, so each set is reached exactly once.
    stack = [(ALL_SUITS, 0, 0)]
    while stack:
        unc, chosen, n = stack.pop()
        if not unc:
            if n >= 3:
                out.append(chosen)
            continue
        cand = by_suit[(unc & -unc).bit_length() - 1]
        while cand:
            low = cand & -cand
            cand ^= low
            s = _SM[low.bit_length() - 1]
            if s & unc == s:
                stack.append((unc ^ s, chosen | low, n + 1))
    return out


def evaluate(hand: int, ace_top: int | None = None) -> BhargEval:
    """Largest bound count, all-bound flag and lowest unbound value of ``hand``.

    Args:
        hand: card bitmask, at most 9 cards of ids 0..44.
        ace_top: the Ace Pile's top card (Ace id 0..5), or None / -1 for no Ace Pile.

    Works at pattern level, like :func:`evaluate_batch`: the sets of the hand
    are the pattern-level sets whose patterns it all holds (five table
    lookups on its pattern code), and a collection of up to three of them
    binds, of each pattern, as many of the hand's highest-valued cards of
    that pattern as the collection uses it (cards of one pattern are
    interchangeable); a collection fits when the hand holds that many.

    >>> evaluate(0)
    BhargEval(bound=0, all_bound=True, unbound_value=0)
    >>> evaluate(1 << 30 | 1 << 35)     # Crowns of Moons and Knots: nothing binds them
    BhargEval(bound=0, all_bound=False, unbound_value=20)
    """
    if type(hand) is not int or hand < 0 or hand > _FULL or hand.bit_count() > MAX_HAND:
        hand = _hand(hand)
    a = 0 if ace_top is None else _ace(ace_top, hand)
    t = _CVTAB
    cv = (t[0][hand & 255] + t[1][hand >> 8 & 255] + t[2][hand >> 16 & 255] + t[3][hand >> 24 & 255]
          + t[4][hand >> 32 & 255] + t[5][hand >> 40])
    code = cv & _CODE_MASK
    f = _FITTAB
    fit = (f[0][code & 1023] & f[1][code >> 10 & 1023] & f[2][code >> 20 & 1023]
           & f[3][code >> 30 & 1023] & f[4][code >> 40])
    if a:
        need = hand & ~ANCHOR_MASKS[a] & ~_EXCUSE_BIT
        need_v = _value(need)
    else:
        need = hand & ~_EXCUSE_BIT
        need_v = cv >> _CODE_BITS  # the Excuse is worth 0
    need_n = need.bit_count()
    base = hand.bit_count() - need_n
    if not fit or not need:
        return _new_eval(BhargEval, (base, not need, need_v))
    if not code >> 1 & _LOW_BITS:
        # No pattern held twice (most hands): two sets sharing a pattern never
        # go together, and what disjoint sets bind (cards, value) adds up.
        sets = []
        while fit:
            low = fit & -fit
            fit ^= low
            c = _COVER_CARDS[low.bit_length() - 1]
            g = hand & c & need
            sets.append((c, g.bit_count(), _value(g)))
        best_n = best_v = 0
        n_sets = len(sets)
        for i in range(n_sets):
            ci, ni, vi = sets[i]
            if ni > best_n:
                best_n = ni
            if vi > best_v:
                best_v = vi
            for j in range(i + 1, n_sets):
                cj, nj, vj = sets[j]
                if ci & cj:
                    continue
                if ni + nj > best_n:
                    best_n = ni + nj
                if vi + vj > best_v:
                    best_v = vi + vj
                for k in range(j + 1, n_sets):
                    ck, nk, vk = sets[k]
                    if (ci | cj) & ck:
                        continue
                    if ni + nj + nk > best_n:
                        best_n = ni + nj + nk
                    if vi + vj + vk > best_v:
                        best_v = vi + vj + vk
        return _new_eval(BhargEval, (base + best_n, best_n == need_n, need_v - best_v))
    # Layers of the hand: h1 holds each pattern's highest-valued card, h2 the
    # second, h3 the third; a collection using a pattern k times binds its
    # cards of layers 1..k.
    w = _WORSE
    d = (w[0][hand & 255] | w[1][hand >> 8 & 255] | w[2][hand >> 16 & 255] | w[3][hand >> 24 & 255]
         | w[4][hand >> 32 & 255] | w[5][hand >> 40])
    h1 = hand & ~d
    h2 = hand & d
    h3 = 0
    if code & code >> 1 & _LOW_BITS:  # some pattern held three times
        d = (w[0][h2 & 255] | w[1][h2 >> 8 & 255] | w[2][h2 >> 16 & 255] | w[3][h2 >> 24 & 255]
             | w[4][h2 >> 32 & 255] | w[5][h2 >> 40])
        h3 = h2 & d
        h2 &= ~d
    sets = []
    while fit:
        low = fit & -fit
        fit ^= low
        i = low.bit_length() - 1
        sets.append((_COVER_CARDS[i], _COVER_SIZE[i]))
    best_n = best_v = 0
    n_sets = len(sets)
    for i in range(n_sets):
        ci, si = sets[i]
        g = h1 & ci & need
        n = g.bit_count()
        if n > best_n:
            if n == need_n:
                return _new_eval(BhargEval, (base + n, True, 0))
            best_n = n
        v = _value(g)
        if v > best_v:
            best_v = v
        for j in range(i, n_sets):
            cj, sj = sets[j]
            if si + sj > MAX_HAND:
                continue
            u = ci | cj
            x = ci & cj
            b = h1 & u | h2 & x
            if b.bit_count() != si + sj:
                continue  # the hand holds too few cards of a pattern both sets use
            g = b & need
            n = g.bit_count()
            if n > best_n:
                if n == need_n:
                    return _new_eval(BhargEval, (base + n, True, 0))
                best_n = n
            v = _value(g)
            if v > best_v:
                best_v = v
            if si + sj + 3 > MAX_HAND:
                continue
            for k in range(j, n_sets):
                ck, sk = sets[k]
                if si + sj + sk > MAX_HAND:
                    continue
                b = h1 & (u | ck) | h2 & (x | u & ck) | h3 & x & ck
                if b.bit_count() != si + sj + sk:
                    continue
                g = b & need
                n = g.bit_count()
                if n > best_n:
                    if n == need_n:
                        return _new_eval(BhargEval, (base + n, True, 0))
                    best_n = n
                v = _value(g)
                if v > best_v:
                    best_v = v
    return _new_eval(BhargEval, (base + best_n, False, need_v - best_v))


def bound_count(hand: int, ace_top: int | None = None) -> int:
    """The largest number of cards of ``hand`` bound at once (see :func:`evaluate`).

    >>> bound_count(0b111 << 18 | 1 << 30)   # the 6s bind; the Crown of Moons does not
    3
    """
    return evaluate(hand, ace_top).bound


def min_unbound_value(hand: int, ace_top: int | None = None) -> int:
    """Lowest total value of unbound cards over all arrangements (what a loser concedes).

    >>> min_unbound_value(0b111 << 18 | 1 << 30)
    10
    """
    return evaluate(hand, ace_top).unbound_value


# ----------------------------------------------------------------- batch paths
def _batch_args(hands: object, ace_tops: object | None) -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(hands, np.ndarray) or hands.dtype != np.uint64 or hands.ndim != 1:
        what = f"{hands.dtype} array of shape {hands.shape}" if isinstance(hands, np.ndarray) else hands
        raise ValueError(f"hands must be a 1-D uint64 array, got {what!r}")
    if ace_tops is None:
        ace_tops = np.full(hands.shape, -1, dtype=np.int64)
    if not isinstance(ace_tops, np.ndarray) or ace_tops.dtype.kind not in "iu" or ace_tops.ndim != 1:
        what = (f"{ace_tops.dtype} array of shape {ace_tops.shape}"
                if isinstance(ace_tops, np.ndarray) else ace_tops)
        raise ValueError(f"ace_tops must be a 1-D integer array, got {what!r}")
    if ace_tops.shape != hands.shape:
        raise ValueError(f"ace_tops shape {ace_tops.shape} differs from hands shape {hands.shape}")
    bad = np.flatnonzero(hands > np.uint64(_FULL))
    if bad.size:
        raise ValueError(f"hand {int(hands[bad[0]]):#x} (row {bad[0]}) holds card ids above 44")
    bad = np.flatnonzero(np.bitwise_count(hands) > MAX_HAND)
    if bad.size:
        raise ValueError(f"hand {int(hands[bad[0]]):#x} (row {bad[0]}) holds more than {MAX_HAND} cards")
    aces = ace_tops.astype(np.int64, copy=False)
    bad = np.flatnonzero((aces < -1) | (aces > 5))
    if bad.size:
        raise ValueError(f"ace_top {int(aces[bad[0]])} (row {bad[0]}) is not an Ace id 0..5 or -1")
    a = aces + 1
    clash = (hands >> np.maximum(aces, 0).astype(np.uint64)) & np.uint64(1)
    bad = np.flatnonzero((clash == 1) & (a > 0))
    if bad.size:
        raise ValueError(f"ace_top {int(aces[bad[0]])} (row {bad[0]}) is also in the hand")
    return hands, a


def _bytes_sum(table: np.ndarray, m: np.ndarray, base: int) -> np.ndarray:
    out = np.take(table, base + (m & np.uint64(255)).astype(np.intp))
    for j in range(1, 6):
        out += np.take(table, base + 256 * j + ((m >> np.uint64(8 * j)) & np.uint64(255)).astype(np.intp))
    return out


def _all_bound_core(hands: np.ndarray, a: np.ndarray) -> np.ndarray:
    # 1-D np.take throughout: several times faster here than fancy indexing.
    take = np.take
    code = _bytes_sum(_NTAB_NP, hands, 0)
    ncode = code & take(_NONANCHOR_NP, a)
    key = (a.astype(np.uint64) << np.uint64(50)) | ncode
    shift = np.uint64(64 - _HASH_BITS)
    s0 = ((key * np.uint64(_HASH_MULTS[0])) >> shift).astype(np.intp)
    s1 = ((key * np.uint64(_HASH_MULTS[1])) >> shift).astype(np.intp)
    in0 = take(_CK_KEY[0], s0) == key
    found = in0 | (take(_CK_KEY[1], s1) == key)
    row = np.where(in0, take(_CK_ROW[0], s0), take(_CK_ROW[1], s1))
    have = code ^ ncode
    g = np.uint64(_GUARD)
    even = np.uint64(_EVEN)
    he = (have & even) | g
    ho = ((have >> np.uint64(2)) & even) | g
    ok = np.zeros(hands.shape, dtype=bool)
    for re_col, ro_col in zip(_REQ_SPLIT[0], _REQ_SPLIT[1], strict=True):
        ok |= (((he - take(re_col, row)) & g) == g) & (((ho - take(ro_col, row)) & g) == g)
    return (ncode == 0) | (found & ok)


def all_bound_batch(hands: np.ndarray, ace_tops: np.ndarray | None = None) -> np.ndarray:
    """Batch :func:`all_bound`: ``hands`` uint64 ``(B,)``, ``ace_tops`` integer ``(B,)``
    (-1 for no Ace Pile; None means -1 everywhere). Returns bool ``(B,)``.

    >>> all_bound_batch(np.array([0b111 << 18, 1 << 21], np.uint64), np.array([-1, 0])).tolist()
    [True, True]
    """
    h, a = _batch_args(hands, ace_tops)
    return _all_bound_core(h, a)


def is_set_batch(masks: np.ndarray) -> np.ndarray:
    """Batch :func:`is_set` over uint64 card masks ``(B,)`` (any number of cards).

    >>> is_set_batch(np.array([0b111 << 18, 0b11 << 18], np.uint64)).tolist()
    [True, False]
    """
    if not isinstance(masks, np.ndarray) or masks.dtype != np.uint64 or masks.ndim != 1:
        raise ValueError(f"masks must be a 1-D uint64 array, got {masks!r}")
    bad = np.flatnonzero(masks > np.uint64(_FULL))
    if bad.size:
        raise ValueError(f"mask {int(masks[bad[0]]):#x} (row {bad[0]}) holds card ids above 44")
    suits = np.zeros(masks.shape, dtype=np.uint64)
    total = np.zeros(masks.shape, dtype=np.uint64)
    one = np.uint64(1)
    for c in range(EXCUSE_ID):
        bit = (masks >> np.uint64(c)) & one
        suits |= bit * _SM_NP[c]
        total += bit * np.bitwise_count(_SM_NP[c]).astype(np.uint64)
    return ((suits == ALL_SUITS) & (total == 6) & (np.bitwise_count(masks) >= 3)
            & ((masks >> np.uint64(EXCUSE_ID)) & one == 0))


def _fits_np(he: np.ndarray, ho: np.ndarray, code: np.ndarray) -> np.ndarray:
    """Every 2-bit field of ``code`` <= that of the hand whose guarded even/odd
    fields are ``he``/``ho`` (the guard-bit trick of :func:`_fits`, vectorised)."""
    g = np.uint64(_GUARD)
    even = np.uint64(_EVEN)
    return (((he - (code & even)) & g) == g) & (((ho - ((code >> np.uint64(2)) & even)) & g) == g)


def _pairs_within(first: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair ``(first[i], j)`` with ``starts[i] <= j < ends[i]`` (``j`` runs over
    the rest of ``i``'s hand group in a list grouped by hand)."""
    reps = ends - starts
    left = np.repeat(first, reps)
    offs = np.arange(int(reps.sum()), dtype=np.intp) - np.repeat(np.cumsum(reps) - reps, reps)
    return left, np.repeat(starts, reps) + offs


def _evaluate_chunk(h: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    take = np.take
    n = h.shape[0]
    code = _bytes_sum(_NTAB_NP, h, 0)
    g = np.uint64(_GUARD)
    even = np.uint64(_EVEN)
    he = (code & even) | g
    ho = ((code >> np.uint64(2)) & even) | g
    # Sets (at pattern level) inside each hand: a few per hand, listed sparsely.
    fit = ((((he[:, None] - _COVER_SPLIT[0][None, :]) & g) == g)
           & (((ho[:, None] - _COVER_SPLIT[1][None, :]) & g) == g))
    row, cov = np.nonzero(fit)  # grouped by row, ascending
    per_row = np.bincount(row, minlength=n)
    end = np.cumsum(per_row)[row]  # end of each entry's group
    idx = np.arange(row.size, dtype=np.intp)
    cand_row = [row]
    cand_code = [take(_COVER_CODES, cov)]
    # Two disjoint sets: entries i <= j of one hand (a set may be used twice
    # when the hand holds its patterns twice); the fit test keeps the real ones.
    i2, j2 = _pairs_within(idx, idx, end)
    r2 = take(row, i2)
    c2 = take(cand_code[0], i2) + take(cand_code[0], j2)  # fields <= 2: no carry
    ok2 = _fits_np(take(he, r2), take(ho, r2), c2)
    i2, j2, r2, c2 = i2[ok2], j2[ok2], r2[ok2], c2[ok2]
    cand_row.append(r2)
    cand_code.append(c2)
    # Three disjoint sets: extend each fitting pair by an entry k >= j.
    p3, k3 = _pairs_within(np.arange(r2.size, dtype=np.intp), j2, take(end, j2))
    r3 = take(r2, p3)
    c3 = take(c2, p3) + take(cand_code[0], k3)  # fields <= 3: no carry
    ok3 = _fits_np(take(he, r3), take(ho, r3), c3)
    cand_row.append(r3[ok3])
    cand_code.append(c3[ok3])
    rows = np.concatenate(cand_row)
    codes = np.concatenate(cand_code) & take(_NONANCHOR_NP, take(a, rows))  # cards a union newly binds
    low = np.uint64(_LOW_BITS)
    gain_n = (np.bitwise_count(codes & low) + 2 * np.bitwise_count((codes >> np.uint64(1)) & low)
              ).astype(np.int64)
    gain_v = np.zeros(rows.shape, dtype=np.int64)
    hands = take(h, rows)
    one = np.uint64(1)
    for p in range(NUM_PATTERNS):
        k = ((codes >> np.uint64(2 * p)) & np.uint64(3)).astype(np.intp)
        held = np.zeros(rows.shape, dtype=np.intp)
        for i, c in enumerate(_PATTERN_CARDS[p].tolist()):
            if c >= 0:
                held |= ((hands >> np.uint64(c)) & one).astype(np.intp) << i
        gain_v += take(_TOPK_VALUE, p * 32 + held * 4 + k)
    best_n = np.zeros(n, dtype=np.int64)
    best_v = np.zeros(n, dtype=np.int64)
    np.maximum.at(best_n, rows, gain_n)
    np.maximum.at(best_v, rows, gain_v)
    need = h & ~take(_ANCHOR_NP, a) & ~np.uint64(_EXCUSE_BIT)
    need_n = np.bitwise_count(need).astype(np.int64)
    bound = np.bitwise_count(h).astype(np.int64) - need_n + best_n
    value = _bytes_sum(_VTAB_NP, need, 0) - best_v
    return bound.astype(np.int8), best_n == need_n, value.astype(np.int16)


def evaluate_batch(hands: np.ndarray, ace_tops: np.ndarray | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Batch :func:`evaluate`: ``(bound int8, all_bound bool, unbound_value int16)`` arrays.

    Vectorised over the hands: the sets of each hand at pattern level (a few
    per hand among the 74 of the deck) are listed sparsely, extended to every
    collection of up to three disjoint ones, and each collection's gain (the
    cards it binds that nothing else binds, and their value taking the
    highest-valued cards of each pattern) is maximised per hand. Batches of
    fewer than :data:`_EVAL_SCALAR_BELOW` hands run :func:`evaluate` per hand.

    >>> b, ok, v = evaluate_batch(np.array([0b111 << 18 | 1 << 30], np.uint64))
    >>> b.tolist(), ok.tolist(), v.tolist()
    ([3], [False], [10])
    """
    h, a = _batch_args(hands, ace_tops)
    if h.shape[0] < _EVAL_SCALAR_BELOW:
        res = [evaluate(x, y - 1) for x, y in zip(h.tolist(), a.tolist(), strict=True)]
        return (np.array([r.bound for r in res], dtype=np.int8),
                np.array([r.all_bound for r in res], dtype=bool),
                np.array([r.unbound_value for r in res], dtype=np.int16))
    if h.shape[0] <= _EVAL_CHUNK:
        return _evaluate_chunk(h, a)
    parts = [_evaluate_chunk(h[i:i + _EVAL_CHUNK], a[i:i + _EVAL_CHUNK])
             for i in range(0, h.shape[0], _EVAL_CHUNK)]
    return tuple(np.concatenate([p[j] for p in parts]) for j in range(3))  # type: ignore[return-value]


def bound_count_batch(hands: np.ndarray, ace_tops: np.ndarray | None = None) -> np.ndarray:
    """Batch :func:`bound_count` (int8 ``(B,)``)."""
    return evaluate_batch(hands, ace_tops)[0]


def min_unbound_value_batch(hands: np.ndarray, ace_tops: np.ndarray | None = None) -> np.ndarray:
    """Batch :func:`min_unbound_value` (int16 ``(B,)``)."""
    return evaluate_batch(hands, ace_tops)[2]
