"""The batch's in-C search opponents (``opponents="search:iters=N"``): each of their moves is the
rules-layer replay of the search, drawing from the slot's opponents' stream."""

from __future__ import annotations

import numpy as np
import pytest

from setgames import registry
from setgames.batch import batch_class, make_batch, seeds
from setgames.game import rng_from_seed
from tests.setgames.search.reference import reference_search_rng

CONFIGS = [("tethsi", {}), ("bharg", {"num_players": 2}), ("tusac", {"num_players": 3})]


@pytest.mark.parametrize("name, config", CONFIGS)
def test_search_opponents_are_the_rules_layers_search(name, config):
    game = registry.make_game(name, **config)
    if batch_class(game) is None:
        pytest.skip(f"{name} has no batched engine built")
    n, iters, master = 2, 2, 31
    b = make_batch(game, n, seed=master, opponents=f"search:iters={iters}", learner_seat=0,
                   autoreset="next_step")
    b.reset()
    rng = np.random.default_rng(4)
    states, streams = [], []
    for i in range(n):
        g = int(b.game_seed[i])
        states.append(game.new_state(rng_from_seed(g)))
        streams.append(np.random.Generator(np.random.PCG64(seeds.tag_seed(g, seeds.TAG_OPPONENTS))))
    compared = 0

    def opponents_move(i):
        nonlocal compared
        while not game.is_over(states[i]) and game.current_seat(states[i]) != 0:
            a, _legal, _values = reference_search_rng(game, states[i], streams[i], iters, 1.0)
            game.apply(states[i], a)
            compared += 1

    for i in range(n):
        opponents_move(i)
    actions = np.zeros(n, np.int64)
    ended = 0
    while ended < 2:
        for i in range(n):
            np.testing.assert_array_equal(b.obs[i], game.observe(states[i], 0))
        b.sample(rng, actions)
        b.step(actions)
        for i in range(n):
            game.apply(states[i], int(actions[i]))
            opponents_move(i)
            assert game.is_over(states[i]) == bool(b.terminated[i] or b.truncated[i])
            if game.is_over(states[i]):
                ended += 1
                states[i] = None
        if any(s is None for s in states):
            break
    assert compared > 5


def test_search_opponents_refuse_a_bad_spec():
    game = registry.make_game("tethsi")
    if batch_class(game) is None:
        pytest.skip("no batched engine built")
    for bad in ("search:", "search:ms=10", "search:iters=0", "search:iters=x", "search:iters=5,depth=2"):
        with pytest.raises(ValueError, match="opponents"):
            make_batch(game, 2, opponents=bad)
