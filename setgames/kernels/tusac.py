"""Tu Sac set-checking kernels: trash, hand value, discards, outs.

A Tu Sac private block is a 28-long count vector (``counts[ttype]`` in 0..4,
``ttype = color * 7 + piece``) plus the types it holds as Khaps. Rules applied
(``tusac_env/README.md``, rules choices 16, 18 and 25):

- Valid sets: a single king; 2, 3 or 4 identical cards; king+guard+minister of
  one colour; rook+cannon+knight of one colour; 3 or 4 pawns of different
  colours (``tusac_env/README.md``, rules choice 16).
- A Khap (three identical private cards, listed in ``khap_types``) is never
  broken and never trash: its three cards are taken out before anything else
  is computed. A fourth card of a Khap type, should one be present, is an
  ordinary private card.
- Trash = the least number of private cards whose removal leaves the rest a
  union of valid sets.
- Set values (hand value): Khap 3, four pawns 2, a pair 0, every other set 1
  (a single king, KGM, RCN, three pawns, a triple or quad not listed as Khap).
- Outs of a held card ``t``: the number of unseen cards ``u`` that, as the
  active card, could be melded into a valid set using ``t`` and other private
  non-Khap cards (``u == t`` makes a pair). The *worst* discards are the
  trash-lowering discards with the fewest outs ("Find Trash", penalty rule).

How: every set except the mixed-colour pawn sets stays inside one colour, so a
block splits into four colour parts (six non-pawn counts, a base-5 code below
15,625) and one pawn part (four counts, code below 625); trash, value and
discards are sums or unions of per-part table entries (``COLOR_*`` and
``PAWN_*``, indexed by those codes). The tables are built at import from the
set definitions in ``_tusac_tables`` (about 0.1 s). Two paths read them: the
scalar path (Python ints; the tables as dicts keyed by the ``bytes`` of a
part's counts, which also makes range checking free) and the batch path (numpy
over ``(B, 28)`` arrays: codes by multiply-shift on the bytes, one gather a
part). Batch input of dtype int8/uint8 is fastest: wider integers cost a
narrowing pass.

>>> hand = [0] * 28
>>> hand[0] = hand[1] = hand[2] = 1          # red king, guard, minister
>>> hand[6] = hand[13] = 1                   # red pawn, yellow pawn
>>> min_trash(hand), trash_discards(hand)
(2, [6, 13])
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Iterable, Sequence

import numpy as np

from setgames.cards import TUSAC_NAMES
from setgames.kernels._tusac_tables import (
    KGM_PATTERNS,
    PAWN_PATTERNS,
    RCN_PATTERNS,
    code_of,
    solve_component,
)

__all__ = [
    "COLOR_DISCARD",
    "COLOR_TABLE_SIZE",
    "COLOR_TRASH",
    "COLOR_VALUE",
    "NUM_TYPES",
    "PAWN_DISCARD",
    "PAWN_TABLE_SIZE",
    "PAWN_TRASH",
    "PAWN_TYPES",
    "PAWN_VALUE",
    "SMALL_BATCH",
    "best_arrangement",
    "max_value",
    "max_value_batch",
    "min_trash",
    "min_trash_batch",
    "outs",
    "outs_batch",
    "trash_discards",
    "trash_discards_batch",
    "worst_discards",
    "worst_discards_batch",
]

NUM_TYPES = 28  # Tu Sac card types
MAX_COUNT = 4  # copies of a type
KHAP_SIZE = 3  # cards in a Khap
KHAP_VALUE = 3  # hand value of a Khap
COLOR_TABLE_SIZE = 5**6  # codes of one colour's six non-pawn counts
PAWN_TABLE_SIZE = 5**4  # codes of the four pawn counts
PAWN_TYPES = (6, 13, 20, 27)  # ttype of the red, yellow, green, white pawn
_NO_VALUE = -1000  # value entry of a part with trash: any sum containing it is < 0

# ---------------------------------------------------------------- tables
_KGM = solve_component(KGM_PATTERNS)
_RCN = solve_component(RCN_PATTERNS)
_PAWN = solve_component(PAWN_PATTERNS)


def _outer(hi: tuple[int, ...], lo: tuple[int, ...], combine: object) -> np.ndarray:
    # Colour code = KGM code * 125 + RCN code: a flattened outer combination.
    return combine.outer(np.array(hi), np.array(lo)).ravel()  # type: ignore[attr-defined]


# Batch tables, indexed by part code.
COLOR_TRASH = _outer(_KGM.trash, _RCN.trash, np.add).astype(np.uint8)  # (15625,) trash of the 6 non-pawns
COLOR_VALUE = _outer(_KGM.value, _RCN.value, np.add).astype(np.int16)  # (15625,) best value, 0 with trash
COLOR_DISCARD = (  # (15625,) bit p: removing one card of piece p lowers the colour's trash by one
    _outer(_KGM.discard_mask, tuple(m << 3 for m in _RCN.discard_mask), np.bitwise_or).astype(np.uint8)
)
_T6_LIST, _D6_LIST = COLOR_TRASH.tolist(), COLOR_DISCARD.tolist()
PAWN_TRASH = np.array(_PAWN.trash, np.uint8)  # (625,)
PAWN_VALUE = np.array(_PAWN.value, np.int16)  # (625,)
PAWN_DISCARD = np.array(_PAWN.discard_mask, np.uint8)  # (625,) bit c: the pawn of colour c
for _a in (COLOR_TRASH, COLOR_VALUE, COLOR_DISCARD, PAWN_TRASH, PAWN_VALUE, PAWN_DISCARD):
    _a.flags.writeable = False


def _keys(width: int) -> list[bytes]:
    # All count vectors of the given width in code order, as bytes (first count most significant).
    buf = np.indices((MAX_COUNT + 1,) * width, np.uint8).reshape(width, -1).T.tobytes()
    return [buf[i : i + width] for i in range(0, len(buf), width)]


# Scalar tables: dicts keyed by the bytes of a part's counts. bytearray(counts)
# rejects values outside 0..255 and the dicts hold only keys with 0..4, so a
# bad count surfaces as an exception at no cost on the good path.
_COLOR_KEYS = _keys(6)
_PAWN_KEYS = _keys(4)
_T6 = dict(zip(_COLOR_KEYS, _T6_LIST, strict=True))
_TP = dict(zip(_PAWN_KEYS, _PAWN.trash, strict=True))
_V6 = dict(zip(_COLOR_KEYS, np.where(COLOR_TRASH == 0, COLOR_VALUE, _NO_VALUE).tolist(), strict=True))
_VP = dict(zip(_PAWN_KEYS, np.where(PAWN_TRASH == 0, PAWN_VALUE, _NO_VALUE).tolist(), strict=True))


def _mask_types(mask: int, types: Sequence[int]) -> tuple[int, ...]:
    return tuple(t for i, t in enumerate(types) if mask >> i & 1)


# Per colour: key -> sorted ttypes whose removal lowers trash (tuples shared by mask).
_D6 = []
for _c in range(4):
    _by_mask = [_mask_types(m, range(7 * _c, 7 * _c + 6)) for m in range(64)]
    _D6.append(dict(zip(_COLOR_KEYS, map(_by_mask.__getitem__, _D6_LIST), strict=True)))
_DP = {k: _mask_types(m, PAWN_TYPES) for k, m in zip(_PAWN_KEYS, _PAWN.discard_mask, strict=True)}


# The two same-colour trios (KGM, RCN) of every colour, as absolute ttypes.
_TRIOS = tuple(tuple(7 * c + p for p in trio) for c in range(4) for trio in ((0, 1, 2), (3, 4, 5)))

# 14-bit batch index of a colour: KGM code | RCN code << 7 (both < 125), the
# form the multiply-shift code extraction of the batch path yields directly.
_CODE_TO_INDEX = np.arange(COLOR_TABLE_SIZE) // 125 | (np.arange(COLOR_TABLE_SIZE) % 125) << 7


def _by_index(table: np.ndarray, fill: int, dtype: type) -> np.ndarray:
    out = np.full(1 << 14, fill, dtype)
    out[_CODE_TO_INDEX] = table
    out.flags.writeable = False
    return out


_NO_VALUE_BATCH = 1000  # value entry of a part with trash in the batch tables (sums stay < 5 * 1000 < 2**15)
_T14 = _by_index(COLOR_TRASH, 0, np.uint8)
_V14 = _by_index(np.where(COLOR_TRASH == 0, COLOR_VALUE, _NO_VALUE_BATCH), _NO_VALUE_BATCH, np.int16)
_D14 = _by_index(COLOR_DISCARD, 0, np.uint8)
_VPB = np.where(PAWN_TRASH == 0, PAWN_VALUE, _NO_VALUE_BATCH).astype(np.int16)
# Byte-spread of a 6-bit discard mask: byte p of the uint64 = bit p of the mask.
_SPREAD = np.array([sum(((m >> p) & 1) << (8 * p) for p in range(6)) for m in range(64)], np.uint64)
# Per colour word of the batch path (see there): 14-bit index -> the word's discard
# bytes of the six pieces, and pawn code -> the word's pawn bytes.
_DISCARD_SPREAD = (_SPREAD[_D14], *(_SPREAD[_D14] << np.uint64(8),) * 3)
_PAWN_SPREAD = (
    (PAWN_DISCARD.astype(np.uint64) & 1) << np.uint64(48),
    *(
        ((PAWN_DISCARD.astype(np.uint64) >> np.uint64(c - 1)) & 1)
        | ((PAWN_DISCARD.astype(np.uint64) >> np.uint64(c)) & 1) << np.uint64(56)
        for c in (1, 2, 3)
    ),
)
for _a in (_VPB, _SPREAD, *_DISCARD_SPREAD, *_PAWN_SPREAD):
    _a.flags.writeable = False

# ---------------------------------------------------------------- validation


def _int(value: object) -> int | None:
    # An exact integer (Python or numpy, not bool), else None.
    if isinstance(value, (bool, np.bool_)):
        return None
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return None


def _check_counts(counts: object, name: str) -> list[int]:
    """The careful path: a validated list of 28 ints in 0..4, else ValueError."""
    if isinstance(counts, np.ndarray):
        if counts.ndim != 1:
            raise ValueError(f"{name} must be 1-D with {NUM_TYPES} entries, got shape {counts.shape}")
        counts = counts.tolist()
    try:
        seq = list(counts)  # type: ignore[call-overload]
    except TypeError:
        raise ValueError(f"{name} must be a sequence of {NUM_TYPES} counts, got {counts!r}") from None
    if len(seq) != NUM_TYPES:
        raise ValueError(f"{name} must have {NUM_TYPES} entries, got {len(seq)}")
    out = []
    for t, c in enumerate(seq):
        v = _int(c)
        if v is None or not 0 <= v <= MAX_COUNT:
            raise ValueError(f"{name}[{t}] ({TUSAC_NAMES[t]}) = {c!r} is not a count in 0..{MAX_COUNT}")
        out.append(v)
    return out


def _khap_tuple(khap_types: object) -> tuple:
    if isinstance(khap_types, np.ndarray):
        khap_types = khap_types.tolist() if khap_types.ndim == 1 else [khap_types]
    try:
        return tuple(khap_types)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(f"khap_types must be an iterable of card types, got {khap_types!r}") from None


def _private_slow(counts: object, khap_types: tuple) -> bytes:
    """Careful path of ``_private``: validates everything, raises a ValueError naming the bad value."""
    lst = _check_counts(counts, "counts")
    seen = set()
    for k in khap_types:
        t = _int(k)
        if t is None or not 0 <= t < NUM_TYPES:
            raise ValueError(f"khap type {k!r} is not a card type 0..{NUM_TYPES - 1}")
        if t in seen:
            raise ValueError(f"khap type {t} ({TUSAC_NAMES[t]}) is listed twice")
        seen.add(t)
        if lst[t] < KHAP_SIZE:
            raise ValueError(
                f"khap type {t} ({TUSAC_NAMES[t]}) is held {lst[t]} times; a Khap needs {KHAP_SIZE}"
            )
        lst[t] -= KHAP_SIZE
    return bytes(lst)


def _private(counts: object, khap_types: tuple) -> bytes:
    """Non-Khap private counts as 28 bytes (values up to 255 still to be range-checked).

    The fast path trusts only what ``bytearray`` and the length check enforce;
    any doubt goes to the careful path, which raises the precise ValueError.
    """
    cls = counts.__class__
    if (cls is list or cls is tuple) and len(counts) == NUM_TYPES:  # type: ignore[arg-type]
        try:
            # bytearray(list) is ~3x cheaper than bytes(list) on CPython 3.11.
            buf = bytearray(counts)  # type: ignore[arg-type]
            for t in khap_types:
                if t.__class__ is not int or t < 0 or t >= NUM_TYPES:
                    break
                c = buf[t]
                # A repeated khap type sees 0 or 1 here and falls to the careful path.
                if c < KHAP_SIZE or c > MAX_COUNT:
                    break
                buf[t] = c - KHAP_SIZE
            else:
                return bytes(buf)
        except (TypeError, ValueError):
            pass
    return _private_slow(counts, khap_types)


def _counts_bytes(counts: object, name: str) -> bytes:
    cls = counts.__class__
    if (cls is list or cls is tuple) and len(counts) == NUM_TYPES:  # type: ignore[arg-type]
        try:
            b = bytes(bytearray(counts))  # type: ignore[arg-type]
            if max(b) <= MAX_COUNT:
                return b
        except (TypeError, ValueError):
            pass
    return bytes(_check_counts(counts, name))


# ---------------------------------------------------------------- scalar path
# The _*_b helpers take non-Khap counts as bytes; a count above 4 raises KeyError.


def _trash_b(b: bytes) -> int:
    return _T6[b[:6]] + _T6[b[7:13]] + _T6[b[14:20]] + _T6[b[21:27]] + _TP[b[6::7]]


def _value_b(b: bytes) -> int:
    """Best value of the non-Khap cards, negative when trash remains."""
    return _V6[b[:6]] + _V6[b[7:13]] + _V6[b[14:20]] + _V6[b[21:27]] + _VP[b[6::7]]


def _discards_b(b: bytes) -> list[int]:
    out = [*_D6[0][b[:6]], *_D6[1][b[7:13]], *_D6[2][b[14:20]], *_D6[3][b[21:27]], *_DP[b[6::7]]]
    out.sort()
    return out


def _outs_b(b: bytes, u: bytes) -> list[int]:
    out = [0] * NUM_TYPES
    for i, j, k in _TRIOS:
        hi, hj, hk = b[i], b[j], b[k]
        # An active card completes the trio when the third member is held.
        if hi:
            out[i] = u[i] + (u[j] if hk else 0) + (u[k] if hj else 0)
        if hj:
            out[j] = u[j] + (u[i] if hk else 0) + (u[k] if hi else 0)
        if hk:
            out[k] = u[k] + (u[i] if hj else 0) + (u[j] if hi else 0)
    held = [t for t in PAWN_TYPES if b[t]]
    if len(held) >= 3:
        # Any other colour as the active card makes three pawns with two held.
        total = u[6] + u[13] + u[20] + u[27]
        for t in held:
            out[t] = total
    elif len(held) == 2:
        # Held a and h: an active pawn of a third colour c makes {a, h, c}.
        rest = sum(u[t] for t in PAWN_TYPES if not b[t])
        for t in held:
            out[t] = u[t] + rest
    elif held:
        out[held[0]] = u[held[0]]
    return out


def _trio_others(t: int) -> tuple[int, int] | None:
    for trio in _TRIOS:
        if t in trio:
            y, z = (x for x in trio if x != t)
            return y, z
    return None


# Per non-pawn type: the two other members of its same-colour trio (None for pawns).
_TRIO_OTHERS: tuple[tuple[int, int] | None, ...] = tuple(_trio_others(t) for t in range(NUM_TYPES))


def _outs_of(b: bytes, u: bytes, types: list[int]) -> list[int]:
    """Outs of each of the held non-Khap ``types``: the entries of ``_outs_b`` for
    those types only (the per-step worst-discard path needs the candidates' alone)."""
    out = []
    pawns_held = -1
    for t in types:
        others = _TRIO_OTHERS[t]
        if others is not None:
            y, z = others
            out.append(u[t] + (u[y] if b[z] else 0) + (u[z] if b[y] else 0))
            continue
        if pawns_held < 0:
            pawns_held = (b[6] > 0) + (b[13] > 0) + (b[20] > 0) + (b[27] > 0)
        if pawns_held >= 3:
            out.append(u[6] + u[13] + u[20] + u[27])
        elif pawns_held == 2:
            out.append(u[t] + sum(u[p] for p in PAWN_TYPES if not b[p]))
        else:
            out.append(u[t])
    return out


def _bad(counts: object, khap_types: tuple) -> None:
    """Raise the precise ValueError for input the fast path rejected."""
    _private_slow(counts, khap_types)
    raise AssertionError("fast path rejected input the careful path accepts")  # pragma: no cover


def min_trash(counts: Sequence[int], khap_types: Iterable[int] = ()) -> int:
    """Least number of private cards whose removal leaves the rest valid sets.

    Args:
        counts: 28 counts (0..4) of the private block, Khap cards included.
        khap_types: the types held as Khaps (each held at least 3 times).

    Returns:
        The trash count (Khap cards are never trash).

    Raises:
        ValueError: a count outside 0..4, not 28 counts, or a bad Khap type.

    >>> hand = [0] * 28
    >>> hand[6] = hand[13] = 1      # red pawn, yellow pawn: a waiting hand
    >>> min_trash(hand)
    2
    >>> hand[20] = 1                # + green pawn: three pawns of different colours
    >>> min_trash(hand)
    0
    >>> hand = [0] * 28
    >>> hand[3] = 4; hand[4] = 1    # four red rooks (Khap + 1) and a red cannon
    >>> min_trash(hand), min_trash(hand, khap_types=[3])
    (1, 2)
    """
    if khap_types.__class__ is not tuple:
        khap_types = _khap_tuple(khap_types)
    b = _private(counts, khap_types)  # type: ignore[arg-type]
    try:
        return _T6[b[:6]] + _T6[b[7:13]] + _T6[b[14:20]] + _T6[b[21:27]] + _TP[b[6::7]]
    except KeyError:
        _bad(counts, khap_types)  # type: ignore[arg-type]
        raise


def max_value(counts: Sequence[int], khap_types: Iterable[int] = ()) -> int | None:
    """Value of the best trash-free arrangement of a private block, None if trash remains.

    Khaps count 3 each, four pawns 2, a pair 0, every other set 1.

    >>> hand = [0] * 28
    >>> hand[0] = 2                 # two red kings: two single kings beat a pair
    >>> max_value(hand)
    2
    >>> hand[6] = hand[13] = hand[20] = hand[27] = 1    # four pawns, one of each colour
    >>> max_value(hand)
    4
    >>> hand[9] = 3                 # three yellow ministers, held as a Khap
    >>> max_value(hand), max_value(hand, khap_types=[9])
    (5, 7)
    >>> hand[1] = 1                 # a lone red guard is trash
    >>> max_value(hand) is None
    True
    """
    if khap_types.__class__ is not tuple:
        khap_types = _khap_tuple(khap_types)
    b = _private(counts, khap_types)  # type: ignore[arg-type]
    try:
        v = _V6[b[:6]] + _V6[b[7:13]] + _V6[b[14:20]] + _V6[b[21:27]] + _VP[b[6::7]]
    except KeyError:
        _bad(counts, khap_types)  # type: ignore[arg-type]
        raise
    return None if v < 0 else v + KHAP_VALUE * len(khap_types)  # type: ignore[arg-type]


def best_arrangement(
    counts: Sequence[int], khap_types: Iterable[int] = ()
) -> list[tuple[str, tuple[int, ...]]] | None:
    """One highest-value trash-free arrangement of a private block, None if trash remains.

    Each set is (kind, ttypes) with kind in "king", "pair", "triple", "quad",
    "khap", "kgm", "rcn", "pawns3", "pawns4"; Khaps first, then the other sets
    sorted by their ttypes. Its values sum to ``max_value``.

    >>> hand = [0] * 28
    >>> hand[7] = hand[8] = hand[9] = 1; hand[7] += 1     # 2 yellow kings, guard, minister
    >>> hand[3] = 3                                        # three red rooks as a Khap
    >>> best_arrangement(hand, khap_types=[3])
    [('khap', (3, 3, 3)), ('king', (7,)), ('kgm', (7, 8, 9))]
    >>> best_arrangement([1] + [0] * 26 + [1]) is None    # a lone white pawn is trash
    True
    """
    khap_types = _khap_tuple(khap_types)
    b = _private_slow(counts, khap_types)
    if _trash_b(b):
        return None
    sets: list[tuple[str, tuple[int, ...]]] = [("khap", (t,) * KHAP_SIZE) for t in map(int, khap_types)]
    for c in range(4):
        base = 7 * c
        for comp, off in ((_KGM, 0), (_RCN, 3)):
            for kind, pos in comp.arrangement[code_of(b[base + off : base + off + 3])]:
                sets.append((kind, tuple(base + off + p for p in pos)))
    for kind, pos in _PAWN.arrangement[code_of(b[6::7])]:
        sets.append((kind, tuple(PAWN_TYPES[p] for p in pos)))
    sets.sort(key=lambda s: (s[0] != "khap", s[1], s[0]))
    return sets


def trash_discards(counts: Sequence[int], khap_types: Iterable[int] = ()) -> list[int]:
    """Sorted card types whose single discard lowers the trash count by one.

    Never a Khap card; empty when there is no trash. (A fourth card of a Khap
    type is an ordinary card and may appear.)

    >>> hand = [0] * 28
    >>> hand[0] = hand[1] = 1       # red king + red guard: the guard is the trash
    >>> hand[3] = 2; hand[4] = 1    # red rook pair + red cannon: only the cannon (a rook leaves 2 trash)
    >>> min_trash(hand), trash_discards(hand)
    (2, [1, 4])
    """
    if khap_types.__class__ is not tuple:
        khap_types = _khap_tuple(khap_types)
    b = _private(counts, khap_types)  # type: ignore[arg-type]
    try:
        return _discards_b(b)
    except KeyError:
        _bad(counts, khap_types)  # type: ignore[arg-type]
        raise


def outs(counts: Sequence[int], unseen: Sequence[int], khap_types: Iterable[int] = ()) -> list[int]:
    """Outs of each held non-Khap card type (28 long, 0 for types not held).

    Outs of ``t`` = sum of ``unseen[u]`` over the types ``u`` that, as the active
    card, complete a valid set with ``t`` and other private non-Khap cards
    (``u == t`` is a pair, so a held type always counts its own unseen copies).

    Args:
        counts: the private block (Khap cards included).
        unseen: 28 counts (0..4) of the cards the player has not seen.
        khap_types: the types held as Khaps.

    >>> hand = [0] * 28
    >>> hand[3] = hand[4] = 1       # red rook + red cannon
    >>> unseen = [4] * 28
    >>> unseen[5] = 1               # three red knights already seen
    >>> outs(hand, unseen)[3:6]     # rook: 4 rooks + 1 knight; cannon: 4 cannons + 1 knight
    [5, 5, 0]
    """
    if khap_types.__class__ is not tuple:
        khap_types = _khap_tuple(khap_types)
    b = _private(counts, khap_types)  # type: ignore[arg-type]
    if max(b) > MAX_COUNT:
        _bad(counts, khap_types)  # type: ignore[arg-type]
    return _outs_b(b, _counts_bytes(unseen, "unseen"))


def worst_discards(counts: Sequence[int], unseen: Sequence[int], khap_types: Iterable[int] = ()) -> list[int]:
    """The trash-lowering discards with the fewest outs (the "Find Trash" hint).

    >>> hand = [0] * 28
    >>> hand[3] = hand[4] = 1       # red rook + red cannon (trash 2)
    >>> hand[6] = 1                 # + a red pawn (trash 3)
    >>> unseen = [4] * 28
    >>> unseen[5] = 0               # every red knight is gone
    >>> trash_discards(hand), outs(hand, unseen)[3:7], worst_discards(hand, unseen)
    ([3, 4, 6], [4, 4, 0, 4], [3, 4, 6])
    >>> unseen[3] = 1               # three red rooks seen too: the rook has fewest outs
    >>> worst_discards(hand, unseen)
    [3]
    """
    if khap_types.__class__ is not tuple:
        khap_types = _khap_tuple(khap_types)
    b = _private(counts, khap_types)  # type: ignore[arg-type]
    try:
        cands = _discards_b(b)
    except KeyError:
        _bad(counts, khap_types)  # type: ignore[arg-type]
        raise
    u = _counts_bytes(unseen, "unseen")
    if len(cands) <= 1:  # a lone candidate is the worst whatever its outs
        return cands
    o = _outs_of(b, u, cands)
    low = min(o)
    return [t for t, x in zip(cands, o, strict=True) if x == low]


# ---------------------------------------------------------------- batch path
#
# Codes by multiply-shift on little-endian uint64 words read straight from the
# uint8 (B, 28) buffer (unaligned strided views, no copy). Colour 0's word is
# bytes 0..7 (k g m r c n pawn0 king1); colour c >= 1's word is bytes 7c-1 ..
# 7c+6 (pawn_{c-1} k g m r c n pawn_c). Multiplying by 1 + 5*2**8 + 25*2**16
# (times 2**8 for colour 0, to line it up with the others) puts the KGM code
# 25*k + 5*g + m in byte 3 and the RCN code 25*r + 5*c + n in byte 6; every
# byte of the product stays below 125, so no carry crosses bytes. Masking those
# two bytes and multiplying by 1 + 2**17 adds the RCN code, times 128, onto the
# KGM code at bit 41: a 14-bit index ``kgm | rcn << 7`` after one shift. The
# pawns sit in bytes 0 and 7 of colour 1's word (red, yellow) and of colour 3's
# (green, white); times 1 + 5*2**56, the top byte is 5*first + second.

SMALL_BATCH = 8  # batches up to this size run the scalar path row by row (numpy call overhead)
_LITTLE = sys.byteorder == "little"
_U = np.uint64
_WORD_OFFSETS = (0, 6, 13, 20)  # byte offset of each colour's word within a row
_MUL = (_U((1 + 5 * 256 + 25 * 65536) << 8), *(_U(1 + 5 * 256 + 25 * 65536),) * 3)
_CODE_BYTES = _U(0x7F << 24 | 0x7F << 48)
_FOLD = _U(1 + (1 << 17))
_INDEX_SHIFT = _U(41)
_PAWN_MUL = _U(1 + (5 << 56))
_TOP_BYTE = _U(56)
_WIDE_CHUNK = 1 << 15  # rows per chunk when narrowing wide integer input (stays in cache)


def _words(x: np.ndarray, offsets: Sequence[int] = _WORD_OFFSETS) -> list[np.ndarray]:
    """Unaligned (B,) uint64 views of a C-contiguous (B, 28) uint8 array at the byte offsets."""
    return [np.ndarray((x.shape[0],), np.uint64, x, off, (NUM_TYPES,)) for off in offsets]


def _batch_error(name: str, arr: np.ndarray, bad: np.ndarray) -> ValueError:
    r, t = (int(i) for i in np.argwhere(bad)[0])
    return ValueError(f"{name}[{r}, {t}] ({TUSAC_NAMES[t]}) = {arr[r, t]} is not a count in 0..{MAX_COUNT}")


def _check_batch(counts: object, name: str) -> np.ndarray:
    """Validate a (B, 28) integer count array; returns C-contiguous uint8 counts."""
    if not isinstance(counts, np.ndarray):
        raise ValueError(
            f"{name} must be a numpy array of shape (B, {NUM_TYPES}), got {type(counts).__name__}"
        )
    if counts.ndim != 2 or counts.shape[1] != NUM_TYPES:
        raise ValueError(f"{name} must have shape (B, {NUM_TYPES}), got {counts.shape}")
    if counts.dtype.kind not in "iu":
        raise ValueError(f"{name} must have an integer dtype, got {counts.dtype}")
    if not counts.dtype.isnative:
        counts = counts.astype(counts.dtype.newbyteorder("="))
    # Viewed as unsigned, a negative count is huge: one max() checks both ends.
    unsigned = counts.view(np.dtype(f"u{counts.dtype.itemsize}"))
    if counts.dtype.itemsize == 1:
        if unsigned.size and unsigned.max() > MAX_COUNT:
            raise _batch_error(name, counts, unsigned > MAX_COUNT)
        return np.ascontiguousarray(unsigned)
    # Wide input: check and narrow chunk by chunk, so the second pass reads from cache.
    out = np.empty(counts.shape, np.uint8)
    for start in range(0, counts.shape[0], _WIDE_CHUNK):
        part = unsigned[start : start + _WIDE_CHUNK]
        if part.max() > MAX_COUNT:
            raise _batch_error(name, counts, unsigned > MAX_COUNT)
        out[start : start + _WIDE_CHUNK] = part
    return out


def _batch_private(counts: object, khap: object) -> tuple[np.ndarray, np.ndarray | None]:
    """Validated non-Khap counts (B, 28) uint8 and the Khap mask as uint8 (or None)."""
    x = _check_batch(counts, "counts")
    if khap is None:
        return x, None
    if not isinstance(khap, np.ndarray) or khap.dtype != np.bool_ or khap.shape != x.shape:
        raise ValueError(
            f"khap must be None or a bool array of shape {x.shape}, got "
            f"{getattr(khap, 'dtype', type(khap).__name__)} {getattr(khap, 'shape', '')}"
        )
    k = khap.view(np.uint8)
    nk = x - k * np.uint8(KHAP_SIZE)
    # A Khap on fewer than 3 cards wraps below zero, to >= 253.
    if nk.size and nk.max() > MAX_COUNT:
        r, t = (int(i) for i in np.argwhere(nk > MAX_COUNT)[0])
        raise ValueError(
            f"khap[{r}, {t}]: type {t} ({TUSAC_NAMES[t]}) is held {x[r, t]} times; a Khap needs {KHAP_SIZE}"
        )
    return nk, k


def _indices(x: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """14-bit colour indices (4 arrays of (B,) intp) and pawn codes ((B,) intp) of counts x."""
    if not _LITTLE or x.shape[0] == 0:
        return _indices_generic(x)
    words = _words(x)
    idx = []
    for w, mul in zip(words, _MUL, strict=True):
        y = w * mul
        y &= _CODE_BYTES
        y *= _FOLD
        y >>= _INDEX_SHIFT
        idx.append(y.view(np.intp))
    pawn = words[1] * _PAWN_MUL
    pawn >>= _TOP_BYTE
    pawn *= _U(25)
    low = words[3] * _PAWN_MUL
    low >>= _TOP_BYTE
    pawn += low
    return idx, pawn.view(np.intp)


def _row_sums(a: np.ndarray) -> np.ndarray:
    """(B,) uint64 row sums of a C-contiguous (B, 28) uint8 array of 0/1 (byte-lane adds)."""
    if not _LITTLE or a.shape[0] == 0:
        return a.sum(axis=1, dtype=np.uint64)
    w0, w1, w2, w3 = _words(a, (0, 8, 16, 20))
    total = w3 & _U(0xFFFFFFFF00000000)  # bytes 24..27 (20..23 are in w2)
    total += w0
    total += w1
    total += w2
    total *= _U(0x0101010101010101)  # sums all byte lanes into the top byte
    total >>= _TOP_BYTE
    return total


def _indices_generic(x: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """Same as ``_indices`` by plain base-5 arithmetic (any byte order; the reference)."""
    x3 = x.reshape(-1, 4, 7).astype(np.intp)
    code = np.zeros(x3.shape[:2], np.intp)
    for p in range(6):
        code = code * 5 + x3[:, :, p]
    pawn = np.zeros(x3.shape[0], np.intp)
    for c in range(4):
        pawn = pawn * 5 + x3[:, c, 6]
    ix = _CODE_TO_INDEX[code]
    return [np.ascontiguousarray(ix[:, c]) for c in range(4)], pawn


def _rows(x: np.ndarray) -> list[bytes]:
    buf = x.tobytes()
    return [buf[i : i + NUM_TYPES] for i in range(0, len(buf), NUM_TYPES)]


def _trash_x(x: np.ndarray) -> np.ndarray:
    if x.shape[0] <= SMALL_BATCH:
        return np.array([_trash_b(b) for b in _rows(x)], np.int8)
    idx, pawn = _indices(x)
    out = _T14.take(idx[0])
    for i in idx[1:]:
        out += _T14.take(i)
    out += PAWN_TRASH.take(pawn)
    return out.view(np.int8)


def _discards_x(x: np.ndarray) -> np.ndarray:
    n = x.shape[0]
    if n <= SMALL_BATCH:
        out = np.zeros((n, NUM_TYPES), np.bool_)
        for r, b in enumerate(_rows(x)):
            out[r, _discards_b(b)] = True
        return out
    if not _LITTLE:
        return _discards_generic(x)
    idx, pawn = _indices(x)
    # Each colour's discard bytes are written as one uint64 over the same bytes
    # its word was read from. Writing colours in order, a word's first byte (the
    # previous colour's pawn, written again with its right value) overlaps the
    # previous word's last byte, so every byte ends up right.
    buf = np.empty(n * NUM_TYPES, np.uint8)
    for off, i, spread, pawn_bytes in zip(_WORD_OFFSETS, idx, _DISCARD_SPREAD, _PAWN_SPREAD, strict=True):
        word = spread.take(i)
        word |= pawn_bytes.take(pawn)
        np.ndarray((n,), np.uint64, buf, off, (NUM_TYPES,))[...] = word
    return buf.view(np.bool_).reshape(n, NUM_TYPES)


def _discards_generic(x: np.ndarray) -> np.ndarray:
    idx, pawn = _indices_generic(x)
    out = np.zeros((x.shape[0], 4, 7), np.bool_)
    for c in range(4):
        bits = _D14[idx[c]]
        for p in range(6):
            out[:, c, p] = (bits >> p) & 1
    pbits = PAWN_DISCARD[pawn]
    for c in range(4):
        out[:, c, 6] = (pbits >> c) & 1
    return out.reshape(-1, NUM_TYPES)


def _byte_mask(*positions: int) -> np.uint64:
    return _U(sum(0xFF << 8 * p for p in positions))


# Outs by byte lanes, on the colour words with the pieces in bytes 1..6 (colour
# 0's word shifted up one byte). _NEXT rotates each trio (bytes 1-3 and 4-6) so a
# byte sees its trio's next member, _AFTER the member after that.
_LANES = _U(0x0101010101010101)
_PIECE_BYTES = _byte_mask(1, 2, 3, 4, 5, 6)
_M_AB, _M_C = _byte_mask(1, 2, 4, 5), _byte_mask(3, 6)
_M_A, _M_BC = _byte_mask(1, 4), _byte_mask(2, 3, 5, 6)
_B8, _B16, _B24, _B48, _B56 = (_U(k) for k in (8, 16, 24, 48, 56))


def _next(v: np.ndarray) -> np.ndarray:
    return ((v >> _B8) & _M_AB) | ((v << _B16) & _M_C)


def _after(v: np.ndarray) -> np.ndarray:
    return ((v >> _B16) & _M_A) | ((v << _B8) & _M_BC)


def _nonzero_lanes(v: np.ndarray) -> np.ndarray:
    """0xFF in every byte lane of v holding a count 1..4, 0x00 where it holds 0."""
    h = v | (v >> _U(1))
    h |= v >> _U(2)
    h &= _LANES
    h *= _U(0xFF)
    return h


def _pawn_lanes(w1: np.ndarray, w3: np.ndarray) -> np.ndarray:
    """The four pawn bytes (bytes 0 and 7 of colour words 1 and 3) packed into bytes 0..3."""
    out = w1 & _U(0xFF)
    out |= (w1 >> _B48) & _U(0xFF00)
    out |= (w3 & _U(0xFF)) << _B16
    out |= (w3 >> _B56) << _B24
    return out


def _outs_x(x: np.ndarray, u: np.ndarray) -> np.ndarray:
    n = x.shape[0]
    if n <= SMALL_BATCH:
        rows = [_outs_b(b, v) for b, v in zip(_rows(x), _rows(u), strict=True)]
        return np.array(rows, np.int8).reshape(n, NUM_TYPES)
    if not _LITTLE:
        return _outs_generic(x, u)
    xw, uw = _words(x), _words(u)
    # Pawns: a held pawn's outs are its own unseen copies plus, with 3+ pawn
    # colours held, every unseen pawn; with 2 held, the pawns of the 2 others.
    xp, up = _pawn_lanes(xw[1], xw[3]), _pawn_lanes(uw[1], uw[3])
    held = _nonzero_lanes(xp)
    sum_lanes = _U(0x01010101)  # times this, byte 3 holds the sum of bytes 0..3
    n_held = ((held & sum_lanes) * sum_lanes >> _B24) & _U(0xFF)
    total = (up * sum_lanes >> _B24) & _U(0xFF)
    rest = ((up & ~held) * sum_lanes >> _B24) & _U(0xFF)
    pawn_outs = np.where(n_held >= 3, total * sum_lanes, np.where(n_held == 2, up + rest * sum_lanes, up))
    pawn_outs &= held
    pawn = [(pawn_outs >> _U(8 * c)) & _U(0xFF) for c in range(4)]
    buf = np.empty(n * NUM_TYPES, np.uint8)
    for c in range(4):
        xc, uc = xw[c], uw[c]
        if c == 0:
            xc, uc = xc << _B8, uc << _B8
        hm = _nonzero_lanes(xc)
        o = _next(uc) & _after(hm)
        o += _after(uc) & _next(hm)
        o += uc
        o &= hm
        o &= _PIECE_BYTES
        if c == 0:
            o >>= _B8
            o |= pawn[0] << _B48
        else:
            o |= pawn[c - 1]
            o |= pawn[c] << _B56
        np.ndarray((n,), np.uint64, buf, _WORD_OFFSETS[c], (NUM_TYPES,))[...] = o
    return buf.view(np.int8).reshape(n, NUM_TYPES)


def _outs_generic(x: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Same as ``_outs_x`` with plain numpy arithmetic (any byte order; the reference)."""
    n = x.shape[0]
    h16 = (x != 0).reshape(n, 4, 7).astype(np.int16)
    u16 = u.reshape(n, 4, 7).astype(np.int16)
    out = u16.copy()
    for a, b, c in ((0, 1, 2), (3, 4, 5)):
        ua, ub, uc = u16[:, :, a], u16[:, :, b], u16[:, :, c]
        ha, hb, hc = h16[:, :, a], h16[:, :, b], h16[:, :, c]
        out[:, :, a] += ub * hc + uc * hb
        out[:, :, b] += ua * hc + uc * ha
        out[:, :, c] += ua * hb + ub * ha
    hp, up = h16[:, :, 6], u16[:, :, 6]  # (n, 4)
    nheld = hp.sum(axis=1, keepdims=True)
    total = up.sum(axis=1, keepdims=True)
    rest = total - (up * hp).sum(axis=1, keepdims=True)
    out[:, :, 6] = np.where(nheld >= 3, total, np.where(nheld == 2, up + rest, up))
    out *= h16
    return out.reshape(n, NUM_TYPES).astype(np.int8)


def min_trash_batch(counts: np.ndarray, khap: np.ndarray | None = None) -> np.ndarray:
    """Trash counts of a batch of private blocks.

    Args:
        counts: (B, 28) integer counts 0..4, Khap cards included (int8/uint8 is fastest).
        khap: (B, 28) bool, True where the type is held as a Khap; or None.

    Returns:
        (B,) int8 trash counts.

    Raises:
        ValueError: wrong shape or dtype, a count outside 0..4, a Khap on fewer than 3 cards.

    >>> import numpy as np
    >>> hands = np.zeros((2, 28), np.int8)
    >>> hands[0, [6, 13]] = 1            # two pawns of different colours
    >>> hands[1, [0, 1, 2]] = 1          # red king, guard, minister
    >>> min_trash_batch(hands).tolist()
    [2, 0]
    """
    return _trash_x(_batch_private(counts, khap)[0])


def max_value_batch(counts: np.ndarray, khap: np.ndarray | None = None) -> np.ndarray:
    """Best trash-free values of a batch of private blocks, -1 where trash remains.

    Args:
        counts: (B, 28) integer counts 0..4, Khap cards included.
        khap: (B, 28) bool Khap mask, or None; each Khap adds 3.

    Returns:
        (B,) int16 values.

    >>> import numpy as np
    >>> hands = np.zeros((2, 28), np.int8)
    >>> hands[0, [6, 13, 20, 27]] = 1     # four pawns of different colours
    >>> hands[1, 3] = 3                   # three red rooks, as a Khap
    >>> khap = np.zeros((2, 28), bool); khap[1, 3] = True
    >>> max_value_batch(hands, khap).tolist()
    [2, 3]
    """
    x, k = _batch_private(counts, khap)
    n = x.shape[0]
    if n <= SMALL_BATCH:
        v = np.array([_value_b(b) for b in _rows(x)], np.int16)
    else:
        idx, pawn = _indices(x)
        v = _V14.take(idx[0])
        for i in idx[1:]:
            v += _V14.take(i)
        v += _VPB.take(pawn)
        v[v >= _NO_VALUE_BATCH] = -1
    if k is not None:
        khaps = _row_sums(np.ascontiguousarray(k)).astype(np.int16)
        v = np.where(v >= 0, v + khaps * np.int16(KHAP_VALUE), v)
    v[v < 0] = -1
    return v


def trash_discards_batch(counts: np.ndarray, khap: np.ndarray | None = None) -> np.ndarray:
    """(B, 28) bool: True where discarding one card of the type lowers the trash by one.

    Args:
        counts: (B, 28) integer counts 0..4, Khap cards included.
        khap: (B, 28) bool Khap mask, or None.

    >>> import numpy as np
    >>> hands = np.zeros((1, 28), np.int8)
    >>> hands[0, [0, 1]] = 1             # red king + red guard
    >>> np.flatnonzero(trash_discards_batch(hands)[0]).tolist()
    [1]
    """
    return _discards_x(_batch_private(counts, khap)[0])


def _batch_unseen(unseen: object, shape: tuple[int, ...]) -> np.ndarray:
    u = _check_batch(unseen, "unseen")
    if u.shape != shape:
        raise ValueError(f"unseen must have the shape of counts {shape}, got {u.shape}")
    return u


def outs_batch(counts: np.ndarray, unseen: np.ndarray, khap: np.ndarray | None = None) -> np.ndarray:
    """(B, 28) int8 outs of every held non-Khap type (0 elsewhere); see ``outs``.

    Args:
        counts: (B, 28) integer counts 0..4, Khap cards included.
        unseen: (B, 28) integer counts 0..4 of the cards each player has not seen.
        khap: (B, 28) bool Khap mask, or None.

    >>> import numpy as np
    >>> hands = np.zeros((1, 28), np.int8); hands[0, [3, 4]] = 1     # red rook + cannon
    >>> unseen = np.full((1, 28), 4, np.int8); unseen[0, 5] = 1
    >>> outs_batch(hands, unseen)[0, 3:6].tolist()
    [5, 5, 0]
    """
    x = _batch_private(counts, khap)[0]
    return _outs_x(x, _batch_unseen(unseen, x.shape))


def worst_discards_batch(
    counts: np.ndarray, unseen: np.ndarray, khap: np.ndarray | None = None
) -> np.ndarray:
    """(B, 28) bool: the trash-lowering discards with the fewest outs; see ``worst_discards``.

    Args:
        counts: (B, 28) integer counts 0..4, Khap cards included.
        unseen: (B, 28) integer counts 0..4 of the cards each player has not seen.
        khap: (B, 28) bool Khap mask, or None.

    >>> import numpy as np
    >>> hands = np.zeros((1, 28), np.int8); hands[0, [3, 4, 6]] = 1
    >>> unseen = np.full((1, 28), 4, np.int8); unseen[0, 5] = 0; unseen[0, 3] = 1
    >>> np.flatnonzero(worst_discards_batch(hands, unseen)[0]).tolist()
    [3]
    """
    x = _batch_private(counts, khap)[0]
    u = _batch_unseen(unseen, x.shape)
    disc = _discards_x(x)
    masked = np.where(disc, _outs_x(x, u), np.int8(127))  # outs never exceed 16
    low = masked.min(axis=1, keepdims=True) if x.shape[0] else masked
    return disc & (masked == low)
