"""Text rendering of a Tu Sac table (the ``"ansi"`` render mode).

Cards are written as two letters: color (``r`` red, ``y``
yellow, ``g`` green, ``w`` white) then piece (``K`` king, ``G`` guard, ``M``
minister, ``R`` rook, ``C`` cannon, ``N`` knight, ``P`` pawn), e.g. ``gN``.
"""

from __future__ import annotations

from setgames.cards import NUM_TUSAC_TYPES
from tusac_env.state import SHORT_NAMES, Exposure, Phase, TuSacState

__all__ = ["cards_text", "render_state"]

_PHASE_TEXT = {
    Phase.DISCARD: "to discard",
    Phase.RESPOND: "to meld or hit",
    Phase.AFTER_HIT: "to meld or pass",
}


def cards_text(counts: list[int]) -> str:
    """Counts per type as short card names, in type order (``"-"`` when empty)."""
    out = [SHORT_NAMES[t] for t in range(NUM_TUSAC_TYPES) for _ in range(counts[t])]
    return " ".join(out) if out else "-"


def render_state(state: TuSacState, seat: int | None = None) -> str:
    """The table as text; private blocks of seats other than ``seat`` are hidden
    (all are shown when ``seat`` is None)."""
    n = state.num_players
    lines = [
        f"Tu Sac, {n} players, first player_{state.first}; draw pile {len(state.draw)}; "
        f"dead: {cards_text(state.dead)}"
    ]
    for s in range(n):
        mark = "*" if s == state.current else " "
        size = sum(state.private[s])
        if seat is None or seat == s:
            priv = cards_text(state.private[s])
            extra = f"; trash {state._trash[s]}"
        else:
            priv = "?"
            extra = ""
        lines.append(f"{mark}player_{s} private ({size}): {priv}; khaps {len(state._khaps[s])}{extra}")
        sets = " | ".join(f"{kind} {' '.join(SHORT_NAMES[t] for t in tt)}" for kind, tt in state.public[s])
        lines.append(f"   public: {sets or '-'}")
    if state.active >= 0:
        how = "discarded" if state.active_how == Exposure.DISCARD else "hit"
        passed = ", passed on" if state.active_passed else ""
        lines.append(f"active: {SHORT_NAMES[state.active]} {how} by player_{state.active_from}{passed}")
    if state.last_claim[1] >= 0:
        lines.append(f"last claim: {state.last_claim[0]} by player_{state.last_claim[1]}")
    if state.phase == Phase.OVER:
        if state.result == "draw":
            lines.append("game over: draw, no payments")
        else:
            card = SHORT_NAMES[state.win_card] if state.win_card >= 0 else "dealt hand"
            lines.append(
                f"game over: player_{state.winner} wins on {card}, hand value {state.value}, "
                f"{state.amount} per loser"
            )
            for payer, payee, amt, reason in state.payments:
                lines.append(f"  player_{payer} pays player_{payee} {amt} ({reason})")
            lines.append("  net: " + ", ".join(
                f"player_{s} {v:+g}" for s, v in enumerate(state.returns)))
    else:
        lines.append(f"player_{state.current} {_PHASE_TEXT[Phase(state.phase)]}")
    return "\n".join(lines)
