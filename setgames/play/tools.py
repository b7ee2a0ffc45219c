"""What a game may lend the play session beyond its rules: :class:`TableTools`.

A game's package builds one ``TableTools`` (a hint command such as "Find Trash",
a warning before a move: ``<game>_env/table.py``) and names it in its
descriptor (``table_tools``). The front ends ask :func:`table_tools` and show
what it gives: extra commands, a confirmation before a move, and lines for
the events a move set off that its label does not tell. A game without tools
gets the plain session.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from setgames import registry

__all__ = ["MoveWarning", "TableButton", "TableCommand", "TableTools", "command_owner", "table_tools"]

# The callbacks take the play session (setgames.play.session.Session), which imports this
# module: naming it here, even for the type checker only, would close a circle.
_Session = Any


@dataclass(frozen=True)
class TableCommand:
    """An extra command of the prompt (``trash``, say).

    Attributes:
        name: the word typed.
        help: one line for the ``help`` list.
        run: ``session -> text`` the answer (may raise
            :class:`~setgames.play.session.SessionError`, shown as one line).
        title: the button's caption in the web table (default: ``name``).
        picks: ``session -> legal action ids`` the answer points at, best
            first (a Find Trash hint: the worst discards, then the other
            trash); the web table selects them in turn, one a click.
    """

    name: str
    help: str
    run: Callable[[_Session], str]
    title: str = ""
    picks: Callable[[_Session], list[int]] | None = None


@dataclass(frozen=True)
class MoveWarning:
    """A confirmation asked before a move (say, a discard that is not among the worst).

    Attributes:
        message: what is wrong with the move.
        question: the yes/no prompt.
        declined: the line shown when the answer is not yes.
        title: the heading of the web table's confirmation.
    """

    message: str
    question: str = "Play it anyway? [y/N] "
    declined: str = "Not played."
    title: str = "Warning"


@dataclass(frozen=True)
class TableButton:
    """A button of the web table that plays the selected move of some action
    blocks (say Meld, Hit, Pass, Discard, as at Vinagames).

    Attributes:
        title: the caption.
        blocks: names of the action blocks (``game.layout``) the button plays.
    """

    title: str
    blocks: tuple[str, ...]


@dataclass(frozen=True)
class TableTools:
    """A game's helpers for a human at the table; every part optional.

    Attributes:
        commands: extra prompt commands.
        warning: ``(session, action) -> MoveWarning or None`` before the human's move.
        event_count: ``session -> int``, the number of events so far (a mark
            taken before a move).
        describe_events: ``(session, since) -> lines`` for the events after the mark.
        buttons: the web table's move buttons; with them a click on a card
            selects its move and a button plays it (without them a click plays).
        drawn_card: ``(game, before, after, seat, action) -> card or None``, the card
            ``seat`` drew from a pile with ``action`` (a draw, a hit), which
            the pictures mark as just drawn; None for a move that draws nothing.
    """

    commands: tuple[TableCommand, ...] = ()
    warning: Callable[[_Session, int], MoveWarning | None] | None = None
    event_count: Callable[[_Session], int] | None = None
    describe_events: Callable[[_Session, int], list[str]] | None = None
    buttons: tuple[TableButton, ...] = ()
    drawn_card: Callable[[Any, Any, Any, int, int], int | None] | None = None


_NONE = TableTools()


def table_tools(game_name: str) -> TableTools:
    """The :class:`TableTools` of a registered game, or empty tools."""
    if game_name not in registry.game_names():
        return _NONE
    tools = registry.part(game_name, "table_tools")
    return _NONE if tools is None else tools


def command_owner(word: str) -> str | None:
    """The title of a registered game with an extra command ``word``, or None
    (so one game's command typed in another game is told apart from a typo)."""
    for name in registry.game_names():
        has_tools = registry.describe(name).table_tools is not None
        if has_tools and any(c.name == word for c in table_tools(name).commands):
            return registry.game_title(name)
    return None
