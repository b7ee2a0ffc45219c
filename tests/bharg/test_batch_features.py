"""``Batch.greedy_features``: every slot's table equals the Python ``greedy_features`` of the same
game in lockstep with the rules layer (2 and 3 players), zeros in slots where no seat acts."""

from __future__ import annotations

import numpy as np
import pytest

from bharg_env.greedy import FEATURES, greedy_features
from setgames import registry
from setgames.batch import batch_class, make_batch
from setgames.game import rng_from_seed


@pytest.mark.parametrize("players", [2, 3])
def test_batch_greedy_features_are_the_python_features(players):
    game = registry.make_game("bharg", num_players=players)
    if batch_class(game) is None:
        pytest.skip("bharg has no batched engine built")
    n = 8
    b = make_batch(game, n, seed=21)
    b.reset()
    states = [game.new_state(rng_from_seed(int(b.game_seed[i]))) for i in range(n)]
    rng = np.random.default_rng(2)
    actions = np.zeros(n, np.int64)
    out = np.full((n, game.num_actions * len(FEATURES)), np.nan, np.float32)
    for step in range(150):
        assert b.greedy_features(out) is out
        for i in range(n):
            want = greedy_features(game, states[i], game.current_seat(states[i]))
            np.testing.assert_allclose(out[i].reshape(want.shape), want, rtol=1e-6, err_msg=f"{i} {step}")
        b.sample(rng, actions)
        b.step(actions)
        for i in range(n):
            game.apply(states[i], int(actions[i]))
            if b.terminated[i] or b.truncated[i]:
                states[i] = game.new_state(rng_from_seed(int(b.game_seed[i])))


def test_batch_greedy_features_refuse_a_bad_out_array():
    game = registry.make_game("bharg")
    if batch_class(game) is None:
        pytest.skip("bharg has no batched engine built")
    b = make_batch(game, 2)
    with pytest.raises(ValueError, match="before reset"):
        b.greedy_features()
    b.reset()
    with pytest.raises(ValueError, match="float32 array of shape"):
        b.greedy_features(np.zeros((2, game.num_actions), np.float32))
