"""The compiled greedy Bharg bot (``bharg_env._greedy``) against the Python one, the reference:
the same move in every position of thousands of games, every config."""

from __future__ import annotations

import numpy as np
import pytest

from bharg_env.greedy import GreedyBhargBot
from bharg_env.rules import BhargGame
from setgames.game import rng_from_seed

_greedy = pytest.importorskip("bharg_env._greedy", reason="bharg_env._greedy is not built")
from bharg_env._engine import Engine  # noqa: E402  (built when _greedy is)

CONFIGS = [{}, {"num_players": 3}, {"excuse": True, "pawns": True, "courts": True},
           {"num_players": 3, "excuse": True, "pawns": True, "courts": True, "target_score": 60},
           {"target_score": 40, "reward": "win", "max_turns": 80}]


@pytest.mark.parametrize("config", CONFIGS)
def test_compiled_greedy_makes_the_python_bots_move_everywhere(config):
    game = BhargGame(**config)
    bot = GreedyBhargBot(0)
    eng = Engine(game)
    rng = np.random.default_rng(3)
    positions = takes = 0
    for g in range(300):
        state = game.new_state(rng_from_seed(g))
        while not game.is_over(state):
            seat = game.current_seat(state)
            eng.load(state)
            want = bot.act(game, state, seat)
            assert _greedy.greedy_action(eng) == want, (g, game.to_json(state))
            positions += 1
            takes += want == 1
            # mostly greedy play (games like the bot's), some random moves for variety
            legal = game.legal_actions(state)
            a = want if rng.random() < 0.7 else legal[rng.integers(len(legal))]
            game.apply(state, a)
    assert positions > 5_000 and takes > 100, (positions, takes)
