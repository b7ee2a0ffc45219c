"""The toy game as a game package would describe it: a greedy bot, search
hooks and table tools, registered through the same :class:`GameInfo` the
built-in games use (nothing in ``setgames/`` names it)."""

from __future__ import annotations

from typing import Any

from setgames.bots.base import Bot
from setgames.bots.hooks import GameHooks
from setgames.play.tools import MoveWarning, TableCommand, TableTools
from setgames.registry import GameInfo

CALLS = {"prior": 0, "tokens": 0}  # how often the search and the table used the hooks


def winning_take(pile: int) -> int | None:
    """The action (take 1 or 2) that leaves a multiple of 3, or None when every move loses."""
    for action in (0, 1):
        left = pile - (action + 1)
        if left >= 0 and left % 3 == 0:
            return action
    return None


class GreedyToyBot(Bot):
    """Leaves the opponent a multiple of 3 when it can, else takes one."""

    name = "greedy"

    def act(self, game: Any, state: Any, seat: int) -> int:
        action = winning_take(state.pile)
        return 0 if action is None else action


def _prior(game: Any, state: Any, seat: int) -> int:
    CALLS["prior"] += 1
    return GreedyToyBot(0).act(game, state, seat)


def _rollout(game: Any, state: Any, rng: Any) -> int:
    return GreedyToyBot(0).act(game, state, game.current_seat(state))


HOOKS = GameHooks(rollout=_rollout, prior=_prior, defaults={"rollout_determinizations": 24})


def _tokens(session: Any) -> str:
    CALLS["tokens"] += 1
    return f"{session.state.pile} tokens left"


def _warning(session: Any, action: int) -> MoveWarning | None:
    good = winning_take(session.state.pile)
    if good is None or action == good:
        return None
    return MoveWarning(f"take {action + 1} hands the win over", "Take it anyway? [y/N] ", "Not taken.")


def _event_count(session: Any) -> int:
    return len(session.state.events)


def _event_lines(session: Any, since: int) -> list[str]:
    return [f"  {pile} left" for pile in [session.state.pile]] if session.state.events[since:] else []


TOOLS = TableTools(commands=(TableCommand("tokens", "how many tokens are left", _tokens),),
                   warning=_warning, event_count=_event_count, describe_events=_event_lines)

DESCRIPTOR = GameInfo(name="toy", title="Toy Nim", rules="tests.setgames.toy_game:ToyGame",
                      greedy="tests.setgames.toy_descriptor:GreedyToyBot",
                      search_hooks="tests.setgames.toy_descriptor:HOOKS",
                      table_tools="tests.setgames.toy_descriptor:TOOLS")
