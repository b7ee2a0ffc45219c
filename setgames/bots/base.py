"""The one small protocol every bot follows, whatever the game.

A bot is given the rules (:class:`~setgames.game.Game`), the full state and
its seat, and must act only on what that seat may know: the observation, its
own cards, the public record. Search bots get there through
``game.determinize``; rule-based bots read only their seat's information.
"""

from __future__ import annotations

import abc
from typing import Any, ClassVar

import numpy as np

from setgames.game import Game

__all__ = ["Bot", "ExplainingBot", "RandomBot"]


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

    def explain(self, game: Game, state: Any, seat: int) -> tuple[int, str]:
        """The action :meth:`act` would pick and a one-line reason (may be empty)."""
        return self.act(game, state, seat), ""

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
