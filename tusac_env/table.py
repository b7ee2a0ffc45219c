"""Tu Sac helpers of the Vinagames table: "Find Trash" and the warning before
discarding a card that is not among the worst, lent to the play session as
:data:`TABLE_TOOLS` (the ``trash`` command, the discard confirmation, and lines
for the events a move set off: the card a hit turned up, automatic claims).

Both read only what the human's seat may know: its own private block (Khaps
included), and the counts of cards it has not seen, from its own view
(``tusac_env.melds.unseen_counts``: 4 minus own private cards, every public
block, the dead pile and the active card). The answers come from
:mod:`setgames.kernels.tusac` (``trash_discards``, ``outs``,
``worst_discards``), the same test the penalty rule applies (``tusac_env/README.md``,
rules choice 25).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from setgames.cards import TUSAC_NAMES
from setgames.kernels import tusac as kern
from setgames.play.session import Session, SessionError
from setgames.play.tools import MoveWarning, TableButton, TableCommand, TableTools
from tusac_env.melds import khap_types, unseen_counts

__all__ = [
    "DISCARD_BLOCK",
    "TABLE_TOOLS",
    "DiscardWarning",
    "TrashReport",
    "describe_events",
    "discard_warning",
    "trash_picks",
    "trash_report",
    "trash_text",
]

DISCARD_BLOCK = "discard"  # name of the Tu Sac action block whose index is the discarded card type


@dataclass(frozen=True)
class TrashReport:
    """``seat``'s trash as the "Find Trash" button shows it.

    Attributes:
        trash_count: the minimum number of trash cards in the private block.
        discards: card types whose discard lowers the trash count (the trash cards).
        outs: per type in ``discards``, its outs (unseen cards that would meld with it).
        worst: the discards with the fewest outs.
    """

    trash_count: int
    discards: tuple[int, ...]
    outs: dict[int, int]
    worst: tuple[int, ...]


def _seat_view(state: Any, seat: int) -> tuple[list[int], tuple[int, ...], list[int]]:
    counts = list(state.private[seat])
    return counts, khap_types(counts), unseen_counts(state, seat)


def trash_report(state: Any, seat: int) -> TrashReport:
    """The trash cards of ``seat``, their outs and the worst ones."""
    counts, khaps, unseen = _seat_view(state, seat)
    discards = tuple(kern.trash_discards(counts, khaps))
    outs = kern.outs(counts, unseen, khaps)
    return TrashReport(kern.min_trash(counts, khaps), discards, {t: outs[t] for t in discards},
                       tuple(kern.worst_discards(counts, unseen, khaps)))


def trash_text(session: Session) -> str:
    """The ``trash`` command's answer for the human seat."""
    r = trash_report(session.state, session.human_seat)
    if not r.discards:
        return "No trash: your private block is all sets."
    cards = ", ".join(f"{TUSAC_NAMES[t]} ({r.outs[t]} out{'s' if r.outs[t] != 1 else ''})"
                      for t in r.discards)
    worst = ", ".join(TUSAC_NAMES[t] for t in r.worst)
    return f"Trash {r.trash_count}. Trash cards (outs): {cards}.\nWorst (safest to discard): {worst}."


def trash_picks(session: Session) -> list[int]:
    """The discard actions "Find Trash" cycles through: the worst cards first,
    then the other trash cards (empty when no discard is pending)."""
    if not session.human_to_act():
        return []
    legal = set(session.legal())
    r = trash_report(session.state, session.human_seat)
    start = session.game.layout.start(DISCARD_BLOCK)
    order = list(r.worst) + [t for t in r.discards if t not in r.worst]
    return [start + t for t in order if start + t in legal]


@dataclass(frozen=True)
class DiscardWarning:
    """Which discards deserve a confirmation now (those not among the worst)."""

    session: Session
    report: TrashReport

    def discarded_type(self, action: int) -> int | None:
        """Card type a discard action throws, None for other actions."""
        kind, index = self.session.game.layout.decode(int(action))
        return index if kind == DISCARD_BLOCK else None

    def applies(self, action: int) -> bool:
        """True when ``action`` discards a card that is not among the worst."""
        t = self.discarded_type(action)
        return t is not None and bool(self.report.worst) and t not in self.report.worst

    def message(self, action: int) -> str:
        """One line: the card is not among the worst, and which are."""
        t = self.discarded_type(action)
        if t is None:
            raise SessionError(f"action {action} is not a discard")
        worst = ", ".join(TUSAC_NAMES[w] for w in self.report.worst)
        text = f"Warning: {TUSAC_NAMES[t]} is not among your worst cards ({worst})"
        if getattr(self.session.game.config, "penalty_rule", False):
            text += "; if it wins the game for someone, you alone pay for every loser"
        return text + "."


def discard_warning(session: Session) -> DiscardWarning | None:
    """The warning that applies to the human's pending decision, if it is a discard."""
    if not session.human_to_act():
        return None
    if not any(session.game.layout.decode(a)[0] == DISCARD_BLOCK for a in session.legal()):
        return None
    return DiscardWarning(session, trash_report(session.state, session.human_seat))


def _card(t: int) -> str:
    return TUSAC_NAMES[t] if 0 <= t < len(TUSAC_NAMES) else "no card"


def describe_events(events: list[Any]) -> list[str]:
    """Readable lines for the public events a move set off that its label does
    not tell: the card a hit turned up, automatic claims, the end of the game.

    >>> describe_events([("hit", 1, 25, 18), ("claim", 2, "pair", 25), ("meld", 2, "triple", [25, 25, 25])])
    ['  player_1 turns up white cannon', '  player_2 claims the white cannon (pair)']
    """
    lines = []
    for ev in events:
        kind, seat = ev[0], ev[1] if len(ev) > 1 else -1
        if kind == "hit" and ev[2] >= 0:
            lines.append(f"  player_{seat} turns up {_card(ev[2])}")
        elif kind == "claim":
            lines.append(f"  player_{seat} claims the {_card(ev[3])} ({ev[2]})")
        elif kind == "win" and ev[2] < 0:
            lines.append(f"  player_{seat} wins on the dealt hand: hand value {ev[3]}, "
                         f"{ev[4]} from each loser")
        elif kind == "win":
            lines.append(f"  player_{seat} wins with {_card(ev[2])}: hand value {ev[3]}, "
                         f"{ev[4]} from each loser")
        elif kind == "penalty":
            lines.append(f"  player_{seat} pays the penalty: {ev[2]} (a winning discard not among the worst)")
        elif kind == "draw":
            lines.append(f"  the game is drawn ({ev[1]} cards left in the draw pile)")
    return lines


def _move_warning(session: Session, action: int) -> MoveWarning | None:
    warning = discard_warning(session)
    if warning is None or not warning.applies(action):
        return None
    # "Discard!!!": the heading Vinagames' table shows before a discard that is not among the worst.
    return MoveWarning(warning.message(action), "Discard it anyway? [y/N] ", "Not discarded.", "Discard!!!")


def _event_count(session: Session) -> int:
    return len(session.game.events(session.state))


def _new_event_lines(session: Session, since: int) -> list[str]:
    return describe_events(session.game.events(session.state)[since:])


def _drawn_card(game: Any, before: Any, after: Any, seat: int, action: int) -> int | None:
    # The hit's public event names the card it turned up, even when a claim took it at once.
    for ev in game.events(after)[len(game.events(before)):]:
        if ev[0] == "hit" and ev[1] == seat and ev[2] >= 0:
            return int(ev[2])
    return None


_MELDS = ("meld_king", "meld_pair", "meld_triple", "meld_kgm", "meld_rcn", "meld_pawns3", "meld_pawns4")

TABLE_TOOLS = TableTools(
    commands=(TableCommand("trash", "my trash cards and the worst ones to discard", trash_text,
                           title="Find Trash", picks=trash_picks),),
    warning=_move_warning, event_count=_event_count, describe_events=_new_event_lines,
    buttons=(TableButton("Meld", _MELDS), TableButton("Hit", ("hit",)), TableButton("Pass", ("pass",)),
             TableButton("Discard", (DISCARD_BLOCK,))),
    drawn_card=_drawn_card)
