"""A weakened bot: any bot's moves mixed with uniformly random ones.

``greedy:epsilon=0.3`` (any built-in bot takes the ``epsilon`` option, see
:func:`~setgames.bots.registry.make_bot`) plays a uniformly random legal move
with probability 0.3 and the greedy bot's move otherwise. It is how the lower
strength levels (:mod:`setgames.bots.levels`) sit between ``random`` and
``greedy``: one knob, the same for every game, whose strength falls smoothly
from the inner bot's (0) to random's (1).

The coin and the random move come from the wrapper's own generator; the
inner bot keeps a generator of its own, seeded from the same seed, so the
inner bot's choices do not shift with the number of coins tossed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from setgames.bots.base import Bot
from setgames.checks import check_real
from setgames.game import Game

__all__ = ["EpsilonBot"]


def _split_seed(seed: int | None) -> tuple[int | None, int | None]:
    """The wrapper's seed and the inner bot's, both from ``seed`` (None stays None: fresh entropy)."""
    if seed is None:
        return None, None
    own, inner = np.random.SeedSequence([int(seed), 0xE951]).generate_state(2, np.uint64)
    return int(own >> np.uint64(1)), int(inner >> np.uint64(1))


class EpsilonBot(Bot):
    """``inner``'s move, except with probability ``epsilon`` a uniformly random legal one.

    Args:
        inner: the bot to weaken (its seed is reset from this bot's).
        epsilon: the share of random moves, in [0, 1].
        seed: seeds the coin, the random moves and (through a derived seed) ``inner``.

    >>> from setgames.bots import make_bot
    >>> from setgames.registry import game_names
    >>> bot = make_bot("greedy", game_names()[0], seed=0, epsilon=0.25)
    >>> bot.name, bot.epsilon, type(bot.inner).__name__
    ('epsilon', 0.25, 'GreedyTetHsiBot')
    """

    name = "epsilon"

    def __init__(self, inner: Bot, epsilon: float, seed: int | None = None):
        self.epsilon = check_real("epsilon", epsilon, 0.0, 1.0)
        self.inner = inner
        self.reset(seed)

    def reset(self, seed: int | None) -> None:
        """Reseed the coin and the inner bot (from a seed derived from ``seed``)."""
        own, inner = _split_seed(seed)
        self.rng = np.random.default_rng(own)
        self.inner.reset(inner)

    def _random_pick(self, legal: list[int]) -> int | None:
        # One coin a decision whatever the outcome, so a game's coins do not depend on the moves.
        if self.rng.random() >= self.epsilon:
            return None
        return legal[int(self.rng.integers(len(legal)))]

    def act(self, game: Game, state: Any, seat: int) -> int:
        """A random legal move with probability ``epsilon``, else the inner bot's move."""
        pick = self._random_pick(game.legal_actions(state))
        return self.inner.act(game, state, seat) if pick is None else pick

    def explain(self, game: Game, state: Any, seat: int) -> tuple[int, str]:
        """The move :meth:`act` picks and why (a random move says so)."""
        pick = self._random_pick(game.legal_actions(state))
        if pick is None:
            return self.inner.explain(game, state, seat)
        return pick, f"a random move (epsilon {self.epsilon:g})"

    def supports_engine(self, game: Game, engine: Any) -> bool:
        """When the inner bot has an engine route (the coin and the pick are the same draws)."""
        return self._moves_as(EpsilonBot) and self.inner.supports_engine(game, engine)

    def act_engine(self, game: Game, engine: Any, seat: int) -> int:
        """:meth:`act` on a compiled engine: the same coin, the same pick, else the inner bot's."""
        pick = self._random_pick(list(engine.legal_actions()))
        return self.inner.act_engine(game, engine, seat) if pick is None else pick

    def start_game(self, game: Game, seat: int) -> None:
        """Passed to the inner bot."""
        self.inner.start_game(game, seat)

    def set_clock(self, move_ms: float | None, game_ms: float | None) -> None:
        """Passed to the inner bot."""
        self.inner.set_clock(move_ms, game_ms)

    def close(self) -> None:
        """Closes the inner bot."""
        self.inner.close()

    def __repr__(self) -> str:
        return f"EpsilonBot({self.inner!r}, epsilon={self.epsilon:g})"
