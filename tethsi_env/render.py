"""Text renders of a Tet Hsi state: card names with short codes, e.g. ``Mountain [4MS]``."""

from __future__ import annotations

from typing import Any

from setgames.cards import DECKTET_NAMES, DECKTET_SHORT, NUM_STANDARD
from setgames.kernels.tethsi import KIND_NAMES
from tethsi_env.layout import Phase

__all__ = ["card_str", "cards_str", "render_state"]

_PENDING = {
    int(Phase.DISCARD): "discard a center card",
    int(Phase.CHOOSE): "take / set / nothing",
    int(Phase.PLAY): "play a card to the center",
}


def card_str(card: int) -> str:
    """``'Chance Meeting [7ML]'``: name and short code of a card.

    >>> card_str(0)
    'Ace of Moons [AM]'
    """
    return f"{DECKTET_NAMES[card]} [{DECKTET_SHORT[card]}]"


def cards_str(mask: int) -> str:
    """The cards of a mask in id order, comma-separated, or ``-`` when empty.

    >>> cards_str(0b11), cards_str(0)
    ('Ace of Moons [AM], Ace of Suns [AS]', '-')
    """
    ids = [c for c in range(NUM_STANDARD) if mask >> c & 1]
    return ", ".join(card_str(c) for c in ids) if ids else "-"


def _sets_str(sets: list[tuple[int, int, int, int]]) -> str:
    if not sets:
        return "-"
    return "; ".join(
        f"{KIND_NAMES[k]}: {DECKTET_SHORT[x]} {DECKTET_SHORT[y]} {DECKTET_SHORT[r]}" for x, y, r, k in sets
    )


def render_state(state: Any, seat: int | None = None) -> str:
    """Text picture of ``state`` (a :class:`~tethsi_env.rules.TetHsiState`, untyped here
    since the rules import this module): everything when ``seat`` is None, else what
    ``seat`` may see (the opponent's concealed cards and the pile are hidden)."""
    s = state
    lines = []
    if s.phase == Phase.OVER:
        if s.winner >= 0:
            head = f"Tet Hsi, turn {s.turn}: game over, player_{s.winner} wins ({s.reason})"
        else:
            head = f"Tet Hsi, turn {s.turn}: game over, tie ({s.reason})"
    else:
        head = f"Tet Hsi, turn {s.turn}: player_{s.seat} to {_PENDING[s.phase]}"
    lines.append(head + ("" if seat is None else f"  (view of player_{seat})"))
    center = cards_str(s.center)
    if s.remaining >= 0:
        center += "  (remaining card)"
    lines.append(f"Center: {center}")
    if seat is None:
        pile = ", ".join(DECKTET_SHORT[c] for c in reversed(s.pile)) or "-"
        lines.append(f"Draw pile: {len(s.pile)} cards, top first: {pile}")
    else:
        lines.append(f"Draw pile: {len(s.pile)} cards")
    lines.append(f"Discard pile: {cards_str(s.discard)}")
    for p in (0, 1):
        mark = ">" if s.phase != Phase.OVER and s.seat == p else " "
        first = " (first)" if s.first_player == p else ""
        lines.append(f"{mark}player_{p}{first}")
        n = s.concealed[p].bit_count()
        if seat is None or seat == p:
            lines.append(f"    concealed ({n}): {cards_str(s.concealed[p])}")
        else:
            lines.append(f"    concealed ({n}): hidden")
        lines.append(f"    front: {cards_str(s.front[p])}")
        lines.append(f"    sets: {_sets_str(s.sets[p])}")
    return "\n".join(lines)
