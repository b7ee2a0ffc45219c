"""``Batch.greedy_features``: every slot's table equals the game's Python ``greedy_features`` (its
descriptor's) in lockstep with the rules layer, zeros in slots where no seat acts."""

from __future__ import annotations

import numpy as np
import pytest

from setgames import registry
from setgames.batch import batch_class, make_batch
from tests.setgames.batch.lockstep import rules_twins, step_with_twins

CONFIGS = [("tethsi", {}), ("bharg", {"num_players": 2}), ("bharg", {"num_players": 3})]


@pytest.mark.parametrize("name, config", CONFIGS)
def test_batch_greedy_features_are_the_python_features(name, config):
    game = registry.make_game(name, **config)
    if batch_class(game) is None:
        pytest.skip(f"{name} has no batched engine built")
    features = registry.part(name, "greedy_features")
    n = 8
    b = make_batch(game, n, seed=21)
    b.reset()
    states = rules_twins(game, b)
    size = features(game, states[0], game.current_seat(states[0])).size
    rng = np.random.default_rng(2)
    actions = np.zeros(n, np.int64)
    out = np.full((n, size), np.nan, np.float32)
    nonzero = 0
    for step in range(150):
        assert b.greedy_features(out) is out
        for i in range(n):
            want = features(game, states[i], game.current_seat(states[i]))
            np.testing.assert_allclose(out[i].reshape(want.shape), want, rtol=1e-6, err_msg=f"{i} {step}")
            nonzero += bool(want.any())
        step_with_twins(game, b, states, rng, actions)
    assert nonzero > 600


@pytest.mark.parametrize("name", ["tethsi", "bharg"])
def test_batch_greedy_features_refuse_a_bad_out_array(name):
    game = registry.make_game(name)
    if batch_class(game) is None:
        pytest.skip(f"{name} has no batched engine built")
    b = make_batch(game, 2)
    with pytest.raises(ValueError, match="before reset"):
        b.greedy_features()
    b.reset()
    with pytest.raises(ValueError, match="float32 array of shape"):
        b.greedy_features(np.zeros((2, 3), np.float32))
