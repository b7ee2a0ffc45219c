"""Tet Hsi action ids and observation layout, with the lookup tables the hot
path reads (built once at import, never per step).

Actions, one ``Discrete(704)`` in five blocks (``tethsi_env/README.md``, rules choice 11):

- ``discard`` (36): discard center card ``card`` (ids 0..35 = card ids);
- ``take`` (1): put the remaining center card in your front;
- ``nothing`` (1): leave the remaining card; the turn ends;
- ``set`` (630): put aside hand cards ``x < y`` with the remaining card as a
  Set; pairs in lexicographic order, so ids grow with ``(x, y)``;
- ``play`` (36): play hand card ``card`` to the center.

>>> LAYOUT.n, LAYOUT.start("set"), LAYOUT.labels[SET_START]
(704, 38, 'set Ace of Moons + Ace of Suns')
>>> LAYOUT.labels[PAIR_ACTION[12][24]], LAYOUT.labels[PLAY_START + 21]
('set Mountain + Diplomat', 'play Chance Meeting')
>>> OBS_SPEC.size
304
"""

from __future__ import annotations

from enum import IntEnum

from setgames.actions import ActionBlock, ActionLayout
from setgames.cards import DECKTET_NAMES, NUM_STANDARD
from setgames.kernels.tethsi import KIND_NAMES, PAIRS_BY_CARD
from setgames.spec import Feature, ObsSpec

__all__ = [
    "ACTION_ARG",
    "ACTION_KIND",
    "DISCARD_START",
    "HAND_SIZE",
    "LAYOUT",
    "NOTHING",
    "NUM_PAIRS",
    "OBS_SPEC",
    "PAIR_ACTION",
    "PAIR_OF_ACTION",
    "PILE_SIZE",
    "PLAY_START",
    "REASON_EMPTY_PILE",
    "REASON_THIRD_SET",
    "SET_PARTNERS",
    "SET_PARTNERS_ABOVE",
    "SET_START",
    "TAKE",
    "ActionKind",
    "Phase",
    "mask_bytes",
    "play_actions",
]

# Why a game ended, as the rules layer's state and record say it (here, below the rules layer,
# so that the history rows can be turned back into the record without importing it).
REASON_THIRD_SET = "third set: hand emptied"
REASON_EMPTY_PILE = "draw pile empty at the reveal"

HAND_SIZE = 8  # cards dealt to each player
CENTER_SIZE = 2  # cards face up in the center at the start of a turn
PILE_SIZE = NUM_STANDARD - 2 * HAND_SIZE - CENTER_SIZE  # 18 cards in the draw pile after the deal
SETS_TO_WIN = 3  # the third Set empties an 8-card hand


class Phase(IntEnum):
    """The decision pending for the player to move (``OVER`` once the game ended)."""

    DISCARD = 0
    CHOOSE = 1
    PLAY = 2
    OVER = 3


class ActionKind(IntEnum):
    """Which block an action id belongs to."""

    DISCARD = 0
    TAKE = 1
    NOTHING = 2
    SET = 3
    PLAY = 4


_PAIRS = [(x, y) for x in range(NUM_STANDARD) for y in range(x + 1, NUM_STANDARD)]
NUM_PAIRS = len(_PAIRS)  # 630


def _name(card: int) -> str:
    return DECKTET_NAMES[card]


LAYOUT = ActionLayout([
    ActionBlock("discard", NUM_STANDARD, lambda i: f"discard {_name(i)}",
                "discard center card `id` (card id = id) to the discard pile"),
    ActionBlock("take", 1, lambda i: "take", "take the remaining center card into your front"),
    ActionBlock("nothing", 1, lambda i: "nothing",
                "do nothing: the remaining card stays in the center and the turn ends"),
    ActionBlock("set", NUM_PAIRS, lambda i: f"set {_name(_PAIRS[i][0])} + {_name(_PAIRS[i][1])}",
                "put aside hand cards x < y with the remaining card as a Set "
                "(pair index in lexicographic order of (x, y))"),
    ActionBlock("play", NUM_STANDARD, lambda i: f"play {_name(i)}",
                "play hand card `id - 668` (concealed or front) to the center"),
])
DISCARD_START = LAYOUT.start("discard")
TAKE = LAYOUT.start("take")
NOTHING = LAYOUT.start("nothing")
SET_START = LAYOUT.start("set")
PLAY_START = LAYOUT.start("play")

# PAIR_ACTION[x][y]: set action id of the pair {x, y} (either order); -1 on the diagonal.
PAIR_ACTION: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        -1 if x == y else SET_START + _PAIRS.index((min(x, y), max(x, y)))
        for y in range(NUM_STANDARD)
    )
    for x in range(NUM_STANDARD)
)
PAIR_OF_ACTION: dict[int, tuple[int, int]] = {SET_START + i: p for i, p in enumerate(_PAIRS)}

# ACTION_KIND[a] (int ActionKind) and ACTION_ARG[a]: card id (discard, play),
# (x, y) (set) or -1, so apply() decodes with two list indexes.
ACTION_KIND: tuple[int, ...] = tuple(
    int(ActionKind[LAYOUT.decode(a)[0].upper()]) for a in range(LAYOUT.n)
)
ACTION_ARG: tuple = tuple(
    PAIR_OF_ACTION[a] if ACTION_KIND[a] == ActionKind.SET
    else (LAYOUT.decode(a)[1] if ACTION_KIND[a] in (ActionKind.DISCARD, ActionKind.PLAY) else -1)
    for a in range(LAYOUT.n)
)


def _set_partners() -> tuple[tuple[tuple[tuple[int, int, int], ...], ...], ...]:
    """Per remaining card r, per hand card x: ``((y_bit, set action id, y), ...)``
    over the y > x with {x, y, r} a Set, ids ascending, so that walking the hand's
    bits upward lists the legal set actions already sorted."""
    table = []
    for r in range(NUM_STANDARD):
        per_x: list[list[tuple[int, int, int]]] = [[] for _ in range(NUM_STANDARD)]
        for _, x, y in PAIRS_BY_CARD[r]:
            per_x[x].append((1 << y, PAIR_ACTION[x][y], y))
        table.append(tuple(tuple(sorted(lst, key=lambda t: t[1])) for lst in per_x))
    return tuple(table)


# SET_PARTNERS[r][x]: ((y_bit, action id, y), ...) over y > x with {x, y, r} a Set, ids ascending.
SET_PARTNERS = _set_partners()
# SET_FIRST_MASK[r]: hand cards x that are the lower card of some pair completing r.
SET_FIRST_MASK: tuple[int, ...] = tuple(
    sum(1 << x for x in range(NUM_STANDARD) if SET_PARTNERS[r][x]) for r in range(NUM_STANDARD)
)
# SET_PARTNERS_ABOVE[r][x]: bitmask of the cards y > x with {x, y, r} a Set. legal_actions ANDs it
# with the hand, so it visits only the pairs actually held instead of every candidate partner.
SET_PARTNERS_ABOVE: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(y_bit for y_bit, _, _ in SET_PARTNERS[r][x]) for x in range(NUM_STANDARD))
    for r in range(NUM_STANDARD)
)

# --------------------------------------------------------------------------- bitmask tables
_CHUNK = 12  # a 36-bit card mask is three 12-bit chunks; 4096-entry tables per chunk
_CHUNK_MASK = (1 << _CHUNK) - 1
_CHUNK_BYTES: tuple[bytes, ...] = tuple(
    bytes((v >> i) & 1 for i in range(_CHUNK)) for v in range(1 << _CHUNK)
)


def mask_bytes(mask: int) -> bytes:
    """A 36-bit card mask as 36 bytes of 0/1 (card ``i`` at byte ``i``).

    >>> mask_bytes(0b101)[:4]
    b'\\x01\\x00\\x01\\x00'
    """
    t = _CHUNK_BYTES
    return t[mask & _CHUNK_MASK] + t[(mask >> _CHUNK) & _CHUNK_MASK] + t[mask >> (2 * _CHUNK)]


def _chunk_ids(offset: int) -> tuple[list[int], ...]:
    # Lists, not tuples: ``a + b + c`` of lists builds the (always new) result list
    # faster than unpacking tuples into a display. Never mutated.
    return tuple(
        [PLAY_START + offset + i for i in range(_CHUNK) if v >> i & 1] for v in range(1 << _CHUNK)
    )


_PLAY_LO, _PLAY_MID, _PLAY_HI = _chunk_ids(0), _chunk_ids(_CHUNK), _chunk_ids(2 * _CHUNK)


def play_actions(hand_mask: int) -> list[int]:
    """Play action ids, ascending, of every card of a 36-bit hand mask.

    >>> play_actions((1 << 0) | (1 << 35)) == [PLAY_START, PLAY_START + 35]
    True
    """
    return (_PLAY_LO[hand_mask & _CHUNK_MASK] + _PLAY_MID[(hand_mask >> _CHUNK) & _CHUNK_MASK]
            + _PLAY_HI[hand_mask >> (2 * _CHUNK)])


# --------------------------------------------------------------------------- observation
_KINDS = ", ".join(KIND_NAMES)
OBS_SPEC = ObsSpec([
    Feature("my_concealed", (NUM_STANDARD,), 1, "1 for each card of my concealed hand (by card id)"),
    Feature("my_front", (NUM_STANDARD,), 1, "1 for each card in my front (taken from the center; public)"),
    Feature("opp_front", (NUM_STANDARD,), 1, "1 for each card in the opponent's front"),
    Feature("center", (NUM_STANDARD,), 1,
            "1 for each face-up center card (2 at the start of a turn, 1 while the remaining card waits)"),
    Feature("remaining", (NUM_STANDARD,), 1,
            "one-hot: the remaining center card while the take / set / nothing choice is pending"),
    Feature("discard_pile", (NUM_STANDARD,), 1, "1 for each card on the face-up discard pile"),
    Feature("my_set_cards", (NUM_STANDARD,), 1, "1 for each card of the Sets I put aside"),
    Feature("opp_set_cards", (NUM_STANDARD,), 1, "1 for each card of the Sets the opponent put aside"),
    Feature("phase", (3,), 1,
            "one-hot decision pending for the player to move: discard, choose (take/set/nothing), play; "
            "all 0 once the game is over"),
    Feature("my_turn", (), 1, "1 when I am the player to move"),
    Feature("my_set_kinds", (len(KIND_NAMES),), SETS_TO_WIN,
            f"my Sets put aside, counted by kind ({_KINDS})"),
    Feature("opp_set_kinds", (len(KIND_NAMES),), SETS_TO_WIN,
            f"the opponent's Sets, counted by kind ({_KINDS})"),
    Feature("opp_concealed_count", (), HAND_SIZE, "number of cards in the opponent's concealed hand"),
    Feature("draw_pile_size", (), PILE_SIZE, "cards left in the draw pile"),
])
