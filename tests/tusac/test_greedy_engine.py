"""The compiled greedy Tu Sac player (``tusac_env._greedy``) against the Python bot.

The reference is :class:`GreedyTuSacBot` on the rules layer: the compiled copy
must choose the same move in every position, and a rollout on the engine must
end in the same returns as the rules layer's game with the Python bot.
"""

from __future__ import annotations

import numpy as np
import pytest

from setgames.bots.base import RandomBot
from setgames.bots.ismcts import IsmctsBot
from setgames.game import rng_from_seed
from setgames.kernels import tusac as kern
from tusac_env.greedy import ISMCTS_HOOKS, GreedyTuSacBot, engine_rollout
from tusac_env.melds import khap_types
from tusac_env.rules import TuSacGame

compiled = pytest.importorskip("tusac_env._greedy")
Engine = pytest.importorskip("tusac_env._engine").Engine


def _positions(n: int, games: int, seed: int):
    """Every position of ``games`` games, half greedy self-play, half random play (odd
    positions: the random games reach hands greedy would not keep)."""
    game = TuSacGame(num_players=n)
    greedy, rand = GreedyTuSacBot(0), RandomBot(seed)
    for g in range(games):
        state = game.new_state(rng_from_seed(seed + g))
        while not game.is_over(state):
            yield game, state
            s = game.current_seat(state)
            bot = rand if g % 2 else greedy
            game.apply(state, bot.act(game, state, s))


def _rules_rollout(game, state, action):
    twin = game.clone(state)
    game.apply(twin, action)
    bot = GreedyTuSacBot(0)
    while not game.is_over(twin):
        game.apply(twin, bot.act(game, twin, game.current_seat(twin)))
    return tuple(game.returns(twin))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_compiled_greedy_chooses_the_greedy_bots_move(n):
    bot = GreedyTuSacBot(0)
    engine = None
    kinds = set()
    count = 0
    for game, state in _positions(n, 12, 100 * n):
        engine = engine or Engine(game)
        engine.load(state)
        s = game.current_seat(state)
        expected = bot.act(game, state, s)
        assert compiled.greedy_action(engine) == expected, f"{n}p: {game.to_json(state)}"
        kinds.add((int(state.phase), len(game.legal_actions(state)) > 1))
        count += 1
    assert count > 300
    assert len(kinds) >= 5, kinds  # discards and meld/hit/pass choices, forced and free


@pytest.mark.parametrize("n", [2, 4])
def test_engine_rollout_ends_as_the_rules_layers_greedy_game(n):
    checked = 0
    for i, (game, state) in enumerate(_positions(n, 6, 7 * n)):
        if i % 4:
            continue
        for a in game.legal_actions(state):
            assert engine_rollout(game, state, a, 400) == _rules_rollout(game, state, a)
            checked += 1
    assert checked > 100


def test_engine_rollout_stops_at_the_step_limit():
    game = TuSacGame(num_players=2)
    state = game.new_state(rng_from_seed(3))
    a = game.legal_actions(state)[0]
    assert engine_rollout(game, state, a, 0) is None  # the discard does not end the game
    assert engine_rollout(game, state, a, 400) == _rules_rollout(game, state, a)


def test_outs_sum_is_the_kernels_outs_summed():
    engine = Engine(TuSacGame(num_players=2))
    rng = np.random.default_rng(0)
    for _ in range(3000):
        counts = [int(x) for x in rng.integers(0, 4, 28)]
        unseen = [int(rng.integers(0, 5 - c)) for c in counts]
        expected = sum(kern.outs(counts, unseen, khap_types(counts)))
        assert compiled.outs_sum(engine, counts, unseen) == expected


def test_ismcts_plays_the_same_game_with_the_compiled_rollouts(monkeypatch):
    def play():
        game = TuSacGame(num_players=2)
        state = game.new_state(rng_from_seed(11))
        bots = [IsmctsBot(seed=5, iterations=24), GreedyTuSacBot(0)]
        actions = []
        while not game.is_over(state):
            s = game.current_seat(state)
            actions.append(bots[s].act(game, state, s))
            game.apply(state, actions[-1])
        return actions

    calls = []

    def counted(*args):
        calls.append(1)
        return engine_rollout(*args)

    monkeypatch.setattr(ISMCTS_HOOKS, "base_rollout", counted)
    fast = play()
    assert calls, "the search did not use the compiled rollouts"
    monkeypatch.setattr(ISMCTS_HOOKS, "base_rollout", None)
    assert play() == fast
