"""The compiled search (:mod:`setgames.search._pimc` through each game's ``_search``): held to the
rules layer number for number, legal, blind to the hidden cards, within its budget."""

from __future__ import annotations

import numpy as np
import pytest

from setgames import registry
from setgames.engine import engine_class
from setgames.search import search_module
from tests.setgames.search.reference import reference_search

CONFIGS = [("tethsi", {}), ("bharg", {"num_players": 2}), ("bharg", {"num_players": 3}),
           ("tusac", {"num_players": 2}), ("tusac", {"num_players": 3}), ("tusac", {"num_players": 4})]


def _setup(name, config):
    game = registry.make_game(name, **config)
    module = search_module(game)
    if module is None:
        pytest.skip(f"{name} has no compiled search built")
    return game, module, engine_class(game)(game)


def positions(game, seed: int, count: int):
    """``count`` positions of games played by uniform random moves from ``seed``."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = game.new_state(rng)
        while not game.is_over(state) and len(out) < count:
            if rng.random() < 0.3:
                out.append(game.clone(state))
            legal = game.legal_actions(state)
            game.apply(state, legal[int(rng.integers(len(legal)))])
    return out


@pytest.mark.parametrize("name, config", CONFIGS)
def test_search_is_the_rules_layers_determinized_greedy_play_outs(name, config):
    game, module, engine = _setup(name, config)
    for i, state in enumerate(positions(game, 3, 6)):
        engine.load(state)
        for z in (0.0, 1.0):
            action, legal, values, iters, _ms = module.search(engine, iters=3, seed=100 + i, z=z)
            want_action, want_legal, want_values = reference_search(game, state, 100 + i, 3, z)
            assert list(legal) == want_legal
            np.testing.assert_allclose(values, want_values, rtol=1e-9, atol=1e-9, err_msg=f"position {i}")
            assert action == want_action
            assert iters == (3 if len(legal) > 1 else 0)


@pytest.mark.parametrize("name, config", CONFIGS)
def test_search_reads_only_its_seats_information(name, config):
    """The hidden cards re-dealt (``game.determinize``: another world the seat cannot tell from
    this one) change neither the move nor the values: every iteration starts from a re-deal."""
    game, module, engine = _setup(name, config)
    rng = np.random.default_rng(8)
    for i, state in enumerate(positions(game, 5, 8)):
        seat = game.current_seat(state)
        engine.load(state)
        seen = module.search(engine, iters=16, seed=i)
        for _ in range(2):
            other = game.determinize(state, seat, rng)
            engine.load(other)
            got = module.search(engine, iters=16, seed=i)
            assert got[0] == seen[0]
            np.testing.assert_array_equal(got[2], seen[2])


@pytest.mark.parametrize("name, config", CONFIGS)
def test_search_moves_are_legal_and_leave_the_engine_alone(name, config):
    game, module, engine = _setup(name, config)
    for i, state in enumerate(positions(game, 9, 30)):
        engine.load(state)
        before = engine.to_json()
        action, legal, values, _iters, _ms = module.search(engine, iters=4, seed=i)
        assert action in game.legal_actions(state)
        assert list(legal) == list(game.legal_actions(state))
        assert engine.to_json() == before
        assert np.all(np.isfinite(values))


def test_search_budget_by_time_runs_until_it_is_spent():
    game, module, engine = _setup("tethsi", {})
    state = next(s for s in positions(game, 1, 20) if len(game.legal_actions(s)) > 1)
    engine.load(state)
    _a, _l, _v, iters, elapsed = module.search(engine, ms=5, seed=0)
    assert iters >= 1 and elapsed >= 5
    _a, _l, _v, iters, _elapsed = module.search(engine, ms=10_000, iters=7, seed=0)
    assert iters == 7  # the first budget reached stops it


@pytest.mark.parametrize("kwargs, match", [
    ({}, "needs a budget"),
    ({"iters": 0}, "iters"),
    ({"iters": 1.5}, "iters"),
    ({"ms": 0}, "ms"),
    ({"ms": float("nan")}, "ms"),
    ({"iters": 4, "seed": -1}, "seed"),
    ({"iters": 4, "z": -1}, "z"),
])
def test_search_refuses_a_bad_budget(kwargs, match):
    game, module, engine = _setup("tethsi", {})
    engine.load(positions(game, 1, 1)[0])
    with pytest.raises(ValueError, match=match):
        module.search(engine, **kwargs)


def test_search_refuses_a_finished_game():
    game, module, engine = _setup("tethsi", {})
    rng = np.random.default_rng(0)
    state = game.new_state(rng)
    while not game.is_over(state):
        legal = game.legal_actions(state)
        game.apply(state, legal[int(rng.integers(len(legal)))])
    engine.load(state)
    with pytest.raises(ValueError, match="over"):
        module.search(engine, iters=2)
