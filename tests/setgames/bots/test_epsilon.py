"""The epsilon option: any built-in bot weakened by a share of uniformly random moves."""

from __future__ import annotations

import numpy as np
import pytest

from setgames.bots.base import RandomBot
from setgames.bots.epsilon import EpsilonBot, _split_seed
from setgames.bots.registry import greedy_class, make_bot
from setgames.registry import make_game
from tests.setgames.bots.helpers import first_moves


def test_epsilon_zero_plays_the_inner_bots_moves_and_one_plays_uniformly():
    game = make_game("tethsi")
    greedy = greedy_class("tethsi")(_split_seed(0)[1])  # the inner bot's seed (greedy breaks ties by it)
    assert first_moves(make_bot("greedy", "tethsi", 0, epsilon=0.0), game, 3) == first_moves(greedy, game, 3)
    bot = make_bot("greedy", "tethsi", 0, epsilon=1.0)
    assert first_moves(bot, game, 3) != first_moves(greedy, game, 3)


def test_epsilon_share_of_random_moves_is_the_option():
    bot = EpsilonBot(RandomBot(0), 0.3, seed=1)
    coins = [bot._random_pick([0, 1]) is not None for _ in range(4000)]
    assert abs(np.mean(coins) - 0.3) < 0.03  # 4000 coins: 4 standard errors


def test_an_epsilon_bot_replays_its_games_from_its_seed():
    game = make_game("bharg", num_players=3)
    a = make_bot("greedy", "bharg", 7, epsilon=0.4)
    b = make_bot("greedy", "bharg", 7, epsilon=0.4)
    assert first_moves(a, game, 11, 60) == first_moves(b, game, 11, 60)
    a.reset(7)
    b.reset(8)
    assert first_moves(a, game, 11, 60) != first_moves(b, game, 11, 60)


@pytest.mark.parametrize("bad", [-0.1, 1.5, "x", True])
def test_a_bad_epsilon_is_refused(bad):
    with pytest.raises(ValueError, match="epsilon"):
        make_bot("greedy", "tethsi", 0, epsilon=bad)


def test_epsilon_takes_the_engine_route_with_the_same_moves():
    from setgames.wrappers import SingleAgentEnv

    moves = []
    for engine in (True, False):
        # engine=True refuses opponents without an engine route: the wrapper has one.
        env = SingleAgentEnv("tethsi", opponents="greedy:epsilon=0.5", engine=engine)
        env.reset(seed=4)
        seq = []
        done = False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            _, _, term, trunc, _ = env.step(int(legal[0]))
            seq.append(int(legal[0]))
            done = term or trunc
        moves.append(seq)
    assert moves[0] == moves[1]
