"""The Tu Sac action layout: one ``Discrete(46)`` in documented blocks.

Meld actions say which set the active card joins; the active card fixes the
cards, except for three pawns, indexed by the color missing from the set.
"""

from __future__ import annotations

from setgames.actions import ActionBlock, ActionLayout
from setgames.cards import NUM_TUSAC_TYPES, TUSAC_COLORS, TUSAC_NAMES
from tusac_env.melds import (
    MELD_INDEX_KGM,
    MELD_INDEX_PAIR,
    MELD_INDEX_PAWNS3,
    MELD_INDEX_PAWNS4,
    MELD_INDEX_RCN,
    MELD_INDEX_SINGLE_KING,
    MELD_INDEX_TRIPLE,
    meld_label,
)

__all__ = ["DISCARD0", "HIT", "LAYOUT", "NUM_ACTIONS", "PASS"]

LAYOUT = ActionLayout([
    ActionBlock("meld_king", 1, lambda i: meld_label(MELD_INDEX_SINGLE_KING + i),
                "meld the active king alone as a single-king set"),
    ActionBlock("meld_pair", 1, lambda i: meld_label(MELD_INDEX_PAIR + i),
                "meld the active card with one identical private card"),
    ActionBlock("meld_triple", 1, lambda i: meld_label(MELD_INDEX_TRIPLE + i),
                "meld the active card with two identical private cards"),
    ActionBlock("meld_kgm", 4, lambda i: meld_label(MELD_INDEX_KGM + i),
                "meld the active king, guard or minister with the other two of its color "
                f"({', '.join(TUSAC_COLORS)})"),
    ActionBlock("meld_rcn", 4, lambda i: meld_label(MELD_INDEX_RCN + i),
                "meld the active rook, cannon or knight with the other two of its color"),
    ActionBlock("meld_pawns3", 4, lambda i: meld_label(MELD_INDEX_PAWNS3 + i),
                "meld the active pawn with two private pawns: the set lacks this color"),
    ActionBlock("meld_pawns4", 1, lambda i: meld_label(MELD_INDEX_PAWNS4 + i),
                "meld the active pawn with private pawns of the three other colors"),
    ActionBlock("hit", 1, lambda i: "hit",
                "the active card goes to the dead pile; the top of the draw pile becomes active"),
    ActionBlock("pass", 1, lambda i: "pass",
                "leave the card you hit active for the next player"),
    ActionBlock("discard", NUM_TUSAC_TYPES, lambda i: f"discard {TUSAC_NAMES[i]}",
                "discard one private card of this type (type id = color * 7 + piece)"),
])
NUM_ACTIONS = LAYOUT.n
HIT = LAYOUT.start("hit")
PASS = LAYOUT.start("pass")
DISCARD0 = LAYOUT.start("discard")
assert LAYOUT.start("meld_pawns4") == MELD_INDEX_PAWNS4 and HIT == MELD_INDEX_PAWNS4 + 1
