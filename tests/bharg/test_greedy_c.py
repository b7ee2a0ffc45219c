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


def test_greedy_features_hold_the_greedy_bots_ranking():
    """Greedy discards the card whose row ranks highest on (all bound, -unbound value, bound);
    it takes the discard top exactly when take's row ranks above draw's."""
    from bharg_env.greedy import DISCARD0, DRAW_DECK, TAKE_DISCARD, greedy_features
    from setgames.testing import walk_positions

    game = BhargGame()
    bot = GreedyBhargBot(0)
    checked = 0
    for _, state, seat in walk_positions(game, bot, 40, seed=0, bot_share=1.0):
        legal = game.legal_actions(state)
        a = bot.act(game, state, seat)
        f = greedy_features(game, state, seat)
        rank = {x: (f[x, 0], -f[x, 1], f[x, 2]) for x in legal}
        if len(legal) > 1 and a >= DISCARD0:
            assert rank[a] == max(rank.values())
            checked += 1
        elif set(legal) == {DRAW_DECK, TAKE_DISCARD}:
            assert (a == TAKE_DISCARD) == (rank[TAKE_DISCARD] > rank[DRAW_DECK])
            checked += 1
    assert checked > 500
