"""The ``search`` bot (:mod:`setgames.bots.search`): its spec, its budget, its replays, and the
same move on the rules layer and on a compiled engine."""

from __future__ import annotations

import numpy as np
import pytest

from setgames import registry
from setgames.bots import make_bot, parse_bot_spec
from setgames.engine import engine_class
from setgames.search import search_module
from tests.setgames.search.test_pimc import positions

GAMES = [("tethsi", {}), ("bharg", {"num_players": 3}), ("tusac", {"num_players": 3})]


def _game(name, config):
    game = registry.make_game(name, **config)
    if search_module(game) is None:
        pytest.skip(f"{name} has no compiled search built")
    return game


@pytest.mark.parametrize("name, config", GAMES)
def test_search_bot_moves_the_same_on_the_rules_layer_and_the_engine(name, config):
    game = _game(name, config)
    engine = engine_class(game)(game)
    on_rules, on_engine = make_bot("search", name, 4, iters=8), make_bot("search", name, 4, iters=8)
    for state in positions(game, 2, 12):
        seat = game.current_seat(state)
        engine.load(state)
        assert on_engine.supports_engine(game, engine)
        assert on_rules.act(game, state, seat) == on_engine.act_engine(game, engine, seat)


@pytest.mark.parametrize("name, config", GAMES)
def test_search_bot_replays_its_moves_from_its_seed(name, config):
    game = _game(name, config)
    states = positions(game, 6, 10)
    bot = make_bot("search", name, 11, iters=6)
    first = [bot.act(game, s, game.current_seat(s)) for s in states]
    again = make_bot("search", name, 11, iters=6)
    assert [again.act(game, s, game.current_seat(s)) for s in states] == first
    for s in states:
        assert first.pop(0) in game.legal_actions(s)


def test_search_bot_takes_a_win_on_the_spot():
    """Hand-worked (Tet Hsi's rule: a player whose hand empties by putting a Set aside wins at
    once): in positions where one legal move wins now, the search plays a winning move."""
    game = _game("tethsi", {})
    bot = make_bot("search", "tethsi", 0, iters=16)
    found = 0
    rng = np.random.default_rng(3)
    for _ in range(400):
        state = game.new_state(rng)
        while not game.is_over(state):
            legal = game.legal_actions(state)
            winning = []
            for a in legal:
                twin = game.clone(state)
                rewards = game.apply(twin, a)
                if game.is_over(twin) and rewards is not None and rewards[game.current_seat(state)] > 0:
                    winning.append(a)
            if winning and len(winning) < len(legal):
                assert bot.act(game, state, game.current_seat(state)) in winning
                found += 1
            game.apply(state, legal[int(rng.integers(len(legal)))])
        if found >= 5:
            break
    assert found >= 5


@pytest.mark.parametrize("spec, message", [
    ("search:iters=0", "iters"),
    ("search:ms=-5", "ms"),
    ("search:iters=10,depth=2", "no option 'depth'"),
    ("search:z=11", "z"),
])
def test_search_bot_refuses_a_bad_spec_in_one_line(spec, message):
    name, options = parse_bot_spec(spec)
    with pytest.raises(ValueError, match=message) as info:
        make_bot(name, "tethsi", 0, **options)
    assert "\n" not in str(info.value)


def test_search_bot_explains_its_move():
    game = _game("tethsi", {})
    state = next(s for s in positions(game, 4, 30) if len(game.legal_actions(s)) > 1)
    action, why = make_bot("search", "tethsi", 1, iters=8).explain(game, state, game.current_seat(state))
    assert action in game.legal_actions(state)
    assert "over 8 re-deals" in why
