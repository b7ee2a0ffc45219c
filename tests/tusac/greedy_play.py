"""Positions of Tu Sac greedy self-play, shared by the bots' tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from setgames.game import rng_from_seed
from tusac_env.greedy import GreedyTuSacBot
from tusac_env.rules import TuSacGame


def greedy_positions(n: int, seeds: range, every: int = 4) -> Iterator[tuple[TuSacGame, Any]]:
    """``(game, copy of the state)`` at every ``every``-th step of greedy self-play games."""
    game = TuSacGame(num_players=n)
    for seed in seeds:
        state = game.new_state(rng_from_seed(seed))
        bot = GreedyTuSacBot(seed)
        k = 0
        while not game.is_over(state):
            if k % every == every - 1:
                yield game, game.clone(state)
            game.apply(state, bot.act(game, state, game.current_seat(state)))
            k += 1
