"""``Batch.greedy_returns``: each legal action played out by greedy for every seat, against the same
play-out in the rules layer with the Python greedy bots (every game config)."""

from __future__ import annotations

import numpy as np
import pytest

from setgames import registry
from setgames.batch import batch_class, make_batch, seeds
from setgames.bots.registry import greedy_class
from tests.setgames.batch.fresh import play_out
from tests.setgames.batch.lockstep import rules_twins, step_with_twins

CONFIGS = [("tethsi", {}), ("bharg", {"num_players": 2}), ("bharg", {"num_players": 3}),
           ("tusac", {"num_players": 2}), ("tusac", {"num_players": 3}), ("tusac", {"num_players": 4})]


def _batch_and_twins(name, config, n, master):
    """A reset batch, each slot's rules-layer twin, and per slot a Python greedy bot seeded from
    the slot's sampler stream: Tet Hsi's greedy breaks ties (and the re-deals draw) from that
    stream, so the slot's bot, playing its play-outs in the same order, replays it."""
    game = registry.make_game(name, **config)
    if batch_class(game) is None:
        pytest.skip(f"{name} has no batched engine built")
    b = make_batch(game, n, seed=master)
    b.reset()
    bots = [greedy_class(name)(seeds.tag_seed(seeds.slot_seed(master, i), seeds.TAG_SAMPLER))
            for i in range(n)]
    return game, b, bots, rules_twins(game, b)


@pytest.mark.parametrize("name, config", CONFIGS)
def test_greedy_returns_are_the_rules_layers_greedy_play_outs(name, config):
    n = 6
    game, b, bots, states = _batch_and_twins(name, config, n, master=99)
    rng = np.random.default_rng(5)
    actions = np.zeros(n, np.int64)
    compared = 0
    for step in range(40):
        only = np.arange(n) % 2 == step % 2  # half the slots each time: the others get zeros
        got = b.greedy_returns(slots=only)
        for i in range(n):
            if not only[i]:
                assert not got[i].any()
                continue
            legal = game.legal_actions(states[i])
            want = np.zeros(game.num_actions, np.float32)
            for a in legal:
                want[a] = play_out(game, states[i], a, bots[i])
            np.testing.assert_allclose(got[i], want, rtol=1e-6, err_msg=f"slot {i} step {step}")
            compared += len(legal)
        step_with_twins(game, b, states, rng, actions)
    assert compared > 200


@pytest.mark.parametrize("name, config", CONFIGS)
def test_greedy_returns_over_redeals_are_the_rules_layers_determinized_play_outs(name, config):
    """``redeals=k``: the mean over ``k`` of ``game.determinize`` (seen from the seat to act) and
    greedy play-outs from each re-deal, every action on the same deal; the slot's sampler stream
    draws the re-deals and Tet Hsi's ties in that order, so one generator replays both."""
    n, k = 4, 3
    game, b, bots, states = _batch_and_twins(name, config, n, master=7)
    rng = np.random.default_rng(11)
    actions = np.zeros(n, np.int64)
    differed = compared = 0
    for step in range(30):
        got = b.greedy_returns(redeals=k)
        for i in range(n):
            seat = game.current_seat(states[i])
            legal = game.legal_actions(states[i])
            want = np.zeros(game.num_actions, np.float64)
            for _ in range(k):
                deal = game.determinize(states[i], seat, bots[i].rng)
                differed += game.render(deal) != game.render(states[i])  # the whole table, hidden cards too
                for a in legal:
                    want[a] += play_out(game, deal, a, bots[i])
            np.testing.assert_allclose(got[i], want / k, rtol=1e-5, atol=1e-6,
                                       err_msg=f"slot {i} step {step}")
            compared += len(legal)
        step_with_twins(game, b, states, rng, actions)
    assert compared > 100 and differed > k * n  # the re-deals did move hidden cards


def test_greedy_returns_refuses_bad_redeals():
    for name in ("tethsi", "bharg", "tusac"):
        game = registry.make_game(name)
        if batch_class(game) is None:
            continue
        b = make_batch(game, 2, seed=1)
        b.reset()
        for bad in (-1, 1.5, True, "3", 10**6):
            with pytest.raises(ValueError, match="redeals must be an int from 0 to"):
                b.greedy_returns(redeals=bad)


def test_greedy_returns_refuses_a_bad_out_array():
    game = registry.make_game("bharg")
    if batch_class(game) is None:
        pytest.skip("bharg has no batched engine built")
    b = make_batch(game, 4)
    with pytest.raises(ValueError, match="before reset"):
        b.greedy_returns()
    b.reset()
    for bad in (np.zeros((4, game.num_actions), np.float64), np.zeros((3, game.num_actions), np.float32),
                np.zeros((4, game.num_actions), np.float32)[:, ::2]):
        with pytest.raises(ValueError, match=rf"float32 array of shape \(4, {game.num_actions}\)"):
            b.greedy_returns(bad)
    mine = np.full((4, game.num_actions), np.nan, np.float32)
    assert b.greedy_returns(mine) is mine and not np.isnan(mine).any()  # written in place, every entry
