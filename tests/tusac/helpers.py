"""Compact hand notation for hand-built Tu Sac positions (``"rC yP wK"``)."""

from __future__ import annotations

COLORS = "rygw"
PIECES = "KGMRCNP"


def ttype(card: str) -> int:
    """Type id of a two-letter card (color letter, piece letter), e.g. ``"gN"`` -> 19."""
    return COLORS.index(card[0]) * 7 + PIECES.index(card[1])


def hand(text: str) -> list[int]:
    """28 counts of a space-separated list of cards."""
    counts = [0] * 28
    for card in text.split():
        counts[ttype(card)] += 1
    return counts


def pile(text: str) -> list[int]:
    """A draw pile written top card first (returned top card last, as the state keeps it)."""
    return [ttype(c) for c in reversed(text.split())]




def rest_of_deck(blocks: list[list[int]], draw: list[int]) -> list[int]:
    """28 counts of the cards of the 112-card deck (four of each type) that are in
    neither ``blocks`` (counts) nor ``draw``: a ``dead`` pile that leaves the draw pile
    exactly ``draw`` in :meth:`~tusac_env.rules.TuSacGame.position`, which would
    otherwise put these cards under it."""
    return [4 - sum(b[t] for b in blocks) - draw.count(t) for t in range(28)]
