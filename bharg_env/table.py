"""Bharg at the table (:class:`~setgames.play.tools.TableTools`): the card a
draw from the deck brought into the hand, which the pictures mark."""

from __future__ import annotations

from typing import Any

from setgames.play.tools import TableTools

__all__ = ["TABLE_TOOLS", "drawn_card"]

_DRAW = 0  # bharg_env.rules: action 0 draws the deck's top card


def drawn_card(game: Any, before: Any, after: Any, seat: int, action: int) -> int | None:
    """The card ``seat`` drew from the deck with ``action`` (None unless it drew)."""
    if action != _DRAW:
        return None
    new = after.hands[seat] & ~before.hands[seat]
    # One new card, or none when the round ended on the draw and the hands were dealt again.
    return new.bit_length() - 1 if new and new & (new - 1) == 0 else None


TABLE_TOOLS = TableTools(drawn_card=drawn_card)
