"""What a human player sees: the table from their seat, the pending decision
and the legal moves, numbered, with readable labels.

Colour is ANSI and only where it helps and is wanted: when the output is a
terminal and ``NO_COLOR`` is unset or empty (https://no-color.org). Over a
pipe the text is plain, so a script can read it.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any

from setgames import registry
from setgames.cards import DECKTET_NAMES, DECKTET_SUIT_MASKS, SUIT_NAMES, TUSAC_COLORS, TUSAC_PIECES
from setgames.checks import printable
from setgames.game import Game

if TYPE_CHECKING:  # the session imports no screen code; this is for the annotations only
    from setgames.play.session import Forfeit

__all__ = ["Colorizer", "agent_name", "forfeit_line", "format_moves", "pending_decision", "render_screen",
           "result_line", "use_color"]

_RESET = "\033[0m"
_BOLD = "\033[1m"
_DIM = "\033[2m"
# Chess cards: the colour a card is printed in is its own colour; white on the
# usual dark terminal is bright white.
TUSAC_ANSI = {"red": "\033[31m", "yellow": "\033[33m", "green": "\033[32m", "white": "\033[1;37m"}
# Decktet suits: one distinct colour each, in SUIT_NAMES order.
_SHORT_ANSI = {c[0]: code for c, code in TUSAC_ANSI.items()}
SUIT_ANSI = dict(zip(SUIT_NAMES, ("\033[34m", "\033[33m", "\033[36m", "\033[32m", "\033[31m", "\033[35m"),
                     strict=True))
MIN_COLUMN_GAP = 3  # spaces between columns of the move list
DEFAULT_WIDTH = 80  # columns when the terminal size is unknown
_INDENT = "  "  # before each row of the move list


def use_color(stream: IO[str], environ: Mapping[str, str] | None = None) -> bool:
    """True when ``stream`` is a terminal and ``NO_COLOR`` is unset or empty."""
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR"):
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def agent_name(seat: int) -> str:
    """The PettingZoo agent name of ``seat``."""
    return f"player_{seat}"


class Colorizer:
    """Adds ANSI colour to card names (a no-op when ``enabled`` is false)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        colors = "|".join(TUSAC_COLORS)
        pieces = "|".join(TUSAC_PIECES)
        self._chess = re.compile(rf"\b({colors})(\s+(?:{pieces})s?)?\b", re.IGNORECASE)
        # Compact codes of the chess-card renders: colour letter + piece letter, e.g. "gK".
        self._chess_short = re.compile(r"\b([rygw])[KGMRCNP]\b")
        names = sorted(DECKTET_NAMES, key=len, reverse=True)
        self._decktet = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r"|"
                                   + "|".join(SUIT_NAMES) + r")\b")
        self._decktet_colour: dict[str, str] = {}
        for card, name in enumerate(DECKTET_NAMES):
            mask = DECKTET_SUIT_MASKS[card]
            first = next((s for s in range(6) if mask >> s & 1), None)
            self._decktet_colour[name] = SUIT_ANSI[SUIT_NAMES[first]] if first is not None else _BOLD
        for s in SUIT_NAMES:
            self._decktet_colour[s] = SUIT_ANSI[s]

    def paint(self, text: str, style: str) -> str:
        """``text`` in ``style`` (an ANSI code), or unchanged without colour."""
        return f"{style}{text}{_RESET}" if self.enabled else text

    def bold(self, text: str) -> str:
        """``text`` in bold."""
        return self.paint(text, _BOLD)

    def dim(self, text: str) -> str:
        """``text`` dimmed."""
        return self.paint(text, _DIM)

    def cards(self, text: str, game_name: str) -> str:
        """``text`` with every card name (or suit) coloured for ``game_name``
        (by the deck its descriptor names: :attr:`~setgames.registry.GameInfo.card_style`)."""
        if not self.enabled:
            return text
        style = registry.describe(game_name).card_style if game_name in registry.game_names() else None
        if style == "chess":
            text = self._chess.sub(lambda m: self.paint(m.group(0), TUSAC_ANSI[m.group(1).lower()]), text)
            return self._chess_short.sub(lambda m: self.paint(m.group(0), _SHORT_ANSI[m.group(1)]), text)
        if style == "decktet":
            return self._decktet.sub(lambda m: self.paint(m.group(0), self._decktet_colour[m.group(0)]),
                                     text)
        return text


def pending_decision(game: Game, legal: Sequence[int]) -> str:
    """The kinds of move open now, from the action blocks of the legal moves
    (e.g. ``"discard"`` or ``"meld triple / hit"``)."""
    kinds: list[str] = []
    for a in legal:
        kind = game.layout.decode(int(a))[0].replace("_", " ")
        if kind not in kinds:
            kinds.append(kind)
    return " / ".join(kinds)


def format_moves(labels: Sequence[str], width: int, color: Colorizer, game_name: str) -> list[str]:
    """The numbered move list in as many columns as fit ``width``."""
    if not labels:
        return []
    cells = [f"{i:>{len(str(len(labels)))}}. {lab}" for i, lab in enumerate(labels, 1)]
    cell_w = max(len(c) for c in cells) + MIN_COLUMN_GAP
    ncols = max(1, min(len(cells), (width - len(_INDENT) + MIN_COLUMN_GAP) // cell_w))
    nrows = -(-len(cells) // ncols)
    lines = []
    for r in range(nrows):
        row = [cells[c * nrows + r] for c in range(ncols) if c * nrows + r < len(cells)]
        parts = []
        for j, cell in enumerate(row):
            num, _, lab = cell.partition(". ")
            pad = "" if j == len(row) - 1 else " " * (cell_w - len(cell))
            parts.append(f"{color.bold(num)}. {color.cards(lab, game_name)}{pad}")
        lines.append(_INDENT + "".join(parts).rstrip())
    return lines


def render_screen(game: Game, game_name: str, state: Any, seat: int, *, seed: int, ply: int,
                  seat_names: Sequence[str], color: Colorizer, width: int | None = None,
                  reveal: bool = False, forfeit: Forfeit | None = None) -> str:
    """The whole screen for the human at ``seat``: header, the table as
    ``seat`` may see it (everything once ``reveal``), the pending decision and
    the numbered legal moves, or the result once the game is over (by the
    game's end, or by an opponent's ``forfeit``)."""
    width = width or shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns
    who = ", ".join(f"{agent_name(s)}={'you' if s == seat else printable(n)}"
                    for s, n in enumerate(seat_names))
    lines = [color.bold(f"== {game_name} · seed {seed} · move {ply} · {who} ==")]
    table = game.render(state, None if reveal else seat)
    lines.append(color.cards(table.rstrip("\n"), game_name))
    if forfeit is not None:
        lines.append(color.bold("Game over. ") + forfeit_line(forfeit, seat, seat_names, game.num_players))
        return "\n".join(lines)
    if game.is_over(state):
        lines.append(color.bold("Game over. ") + result_line(game, state, seat))
        return "\n".join(lines)
    to_act = game.current_seat(state)
    if to_act != seat:
        lines.append(f"{agent_name(to_act)} to act.")
        return "\n".join(lines)
    legal = game.legal_actions(state)
    lines.append(color.bold(f"Your decision ({agent_name(seat)}): {pending_decision(game, legal)}"))
    lines += format_moves([game.action_to_str(a) for a in legal], width, color, game_name)
    return "\n".join(lines)


def result_line(game: Game, state: Any, seat: int) -> str:
    """One line: how the game ended for ``seat``, the returns, the reason."""
    returns = game.returns(state)
    outcome = game.outcome(state) or {}
    reason = outcome.get("reason") if isinstance(outcome, dict) else None
    return (f"{_verdict(returns, seat, game.is_truncated(state))} Returns: {_scores(returns)}."
            + (f" ({reason})" if reason else ""))


def forfeit_line(forfeit: Forfeit, seat: int, seat_names: Sequence[str], num_players: int) -> str:
    """One line: which opponent forfeited, why, and the result for ``seat`` (the human,
    who wins: every bot seat gets -1, the human +1).

    >>> from setgames.play.session import Forfeit
    >>> forfeit_line(Forfeit(1, "exec:./b", "timeout", "no reply in 300 ms"), 0, ["human", "exec:./b"], 2)
    'player_1 (exec:./b) forfeits: timeout (no reply in 300 ms); you win! Returns: player_0 1, player_1 -1.'
    """
    returns = [1.0 if s == seat else -1.0 for s in range(num_players)]
    detail = f" ({printable(forfeit.detail)})" if forfeit.detail else ""
    verdict = _verdict(returns, seat, False)
    return (f"{agent_name(forfeit.seat)} ({printable(seat_names[forfeit.seat])}) forfeits: "
            f"{forfeit.reason}{detail}; {verdict[0].lower()}{verdict[1:]} Returns: {_scores(returns)}.")


def _verdict(returns: Sequence[float], seat: int, truncated: bool) -> str:
    mine = returns[seat]
    best = max(returns)
    if truncated or all(r == returns[0] for r in returns):
        return "A draw."
    if mine == best and sum(r == best for r in returns) == 1:
        return "You win!"
    if mine == best:
        return "You share the best result."
    return "You lose."


def _scores(returns: Sequence[float]) -> str:
    return ", ".join(f"{agent_name(s)} {_num(r)}" for s, r in enumerate(returns))


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}"
