"""The one small protocol every bot follows, whatever the game.

A bot is given the rules (:class:`~setgames.game.Game`), the full state and
its seat, and must act only on what that seat may know: the observation, its
own cards, the public record. Search bots get there through
``game.determinize``; rule-based bots read only their seat's information.

A bot may also move on a game's compiled engine (:mod:`setgames.engine`)
instead of a rules-layer state: :meth:`Bot.supports_engine` says whether it
can, :meth:`Bot.act_engine` is the move, which must be the one :meth:`Bot.act`
picks in the same position, drawing the same numbers from the bot's generator
(so a seeded view plays the same games on either path). Views that step an
engine (:class:`~setgames.wrappers.SingleAgentEnv`) use it for every opponent
that supports it; the others keep the rules layer.
"""

from __future__ import annotations

import abc
from typing import Any, ClassVar

import numpy as np

from setgames.game import Game

__all__ = ["FAULT_REASONS", "Bot", "BotFault", "ExplainingBot", "RandomBot"]

# Why a bot forfeits a game (results.json, records and the table use these words).
FAULT_REASONS = ("raised", "crashed", "exited", "timeout", "illegal", "garbage", "line_too_long",
                 "not_utf8", "output_flood", "handshake")


class BotFault(RuntimeError):
    """A bot failed to give a legal move in time: it forfeits the game.

    Attributes:
        reason: one of :data:`FAULT_REASONS`.
        detail: one line for people.
    """

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class Bot(abc.ABC):
    """A player that picks one legal action.

    Args:
        seed: seeds the bot's own generator (never the global one).
    """

    name: ClassVar[str]

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None) -> None:
        """Reseed before a game, so arena games are reproducible one by one."""
        self.rng = np.random.default_rng(seed)

    @abc.abstractmethod
    def act(self, game: Game, state: Any, seat: int) -> int:
        """A legal action id for ``seat``, which must be the seat to act."""

    def start_game(self, game: Game, seat: int) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Called by the arena after :meth:`reset`, before a game's first decision, with the
        seat the bot holds; bots with a per-game setup (a program to tell) override it."""

    def set_clock(self, move_ms: float | None, game_ms: float | None) -> None:  # noqa: B027 - optional hook, a no-op by default
        """The time left (milliseconds; None: no limit) for the next decision and for the
        rest of the game, given before each decision under a time control. The arena
        measures every bot; a bot that can plan its time overrides this."""

    def close(self) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Release what the bot holds (a process); the arena calls it when done with the bot."""

    def explain(self, game: Game, state: Any, seat: int) -> tuple[int, str]:
        """The action :meth:`act` would pick and a one-line reason (may be empty)."""
        return self.act(game, state, seat), ""

    def supports_engine(self, game: Game, engine: Any) -> bool:
        """True when :meth:`act_engine` can play on ``engine`` (a compiled engine of
        ``game``) exactly as :meth:`act` plays on the rules layer. The default: no
        engine route (search bots need the rules layer's ``determinize``)."""
        return False

    def act_engine(self, game: Game, engine: Any, seat: int) -> int:
        """The action :meth:`act` would pick for ``seat`` (the seat to act) in the
        position ``engine`` holds, with the same draws from :attr:`rng`; only
        called where :meth:`supports_engine` is True."""
        raise NotImplementedError(f"{self!r} has no engine route")

    def _moves_as(self, cls: type) -> bool:
        """True when this bot moves as ``cls`` does: its class inherits ``act`` and
        ``explain`` from ``cls`` unchanged. An engine route is the twin of those two
        methods, so a subclass that overrides either one loses it (until it
        overrides :meth:`supports_engine` and :meth:`act_engine` too)."""
        t = type(self)
        return t.act is cls.act and t.explain is cls.explain

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class ExplainingBot(Bot):
    """A bot whose reasoning lives in :meth:`explain`; :meth:`act` keeps only the action."""

    def act(self, game: Game, state: Any, seat: int) -> int:
        """The action :meth:`explain` chooses."""
        return self.explain(game, state, seat)[0]

    @abc.abstractmethod
    def explain(self, game: Game, state: Any, seat: int) -> tuple[int, str]:
        """The chosen action and a one-line reason."""


class RandomBot(Bot):
    """Uniform over the legal actions, with the generator it is given."""

    name = "random"

    def act(self, game: Game, state: Any, seat: int) -> int:
        """A uniformly random legal action."""
        legal = game.legal_actions(state)
        return legal[int(self.rng.integers(len(legal)))]

    def supports_engine(self, game: Game, engine: Any) -> bool:
        """Every engine lists its legal actions (as the rules layer does)."""
        return self._moves_as(RandomBot)

    def act_engine(self, game: Game, engine: Any, seat: int) -> int:
        """:meth:`act` on the engine's legal list: the same draw."""
        legal = engine.legal_actions()
        return legal[int(self.rng.integers(len(legal)))]
