"""The ``obs`` option reaches every place a game is made, with the same name and meaning: the
rules layer, the AEC env, SingleAgentEnv, gymnasium.make / make_vec, the batch and its views."""

from __future__ import annotations

import re

import gymnasium as gym
import numpy as np
import pytest

import setgames  # noqa: F401  (registers the Gymnasium ids)
from setgames.batch import make_batch
from setgames.batch.gym_vector import BatchVectorEnv
from setgames.obs import OBS_MODES
from setgames.registry import GAME_NAMES, env_class, make_game
from setgames.wrappers import SingleAgentEnv

CASES = [(name, mode) for name in GAME_NAMES for mode in make_game(name).obs_specs]


def test_every_game_offers_cards_and_only_known_modes():
    for name in GAME_NAMES:
        offered = tuple(make_game(name).obs_specs)
        assert offered[0] == "cards" and set(offered) <= set(OBS_MODES)


@pytest.mark.parametrize("name, mode", CASES)
def test_every_view_observes_in_the_chosen_mode(name, mode):
    game = make_game(name, obs=mode)
    size = game.obs_spec.size
    assert game.obs_spec is game.obs_specs[mode]
    env = env_class(name)(obs=mode)
    env.reset(seed=3)
    first = env.observe(env.agent_selection)["observation"]
    assert first.shape == (size,)
    np.testing.assert_array_equal(first, game.observe(env.game_state, env._seat_of[env.agent_selection]))
    single = SingleAgentEnv(name, obs=mode)
    assert single.reset(seed=3)[0].shape == (size,) == single.observation_space.shape
    assert gym.make(f"setgames/{name}-v0", obs=mode).reset(seed=3)[0].shape == (size,)
    assert gym.make_vec(f"setgames/{name}-v0", num_envs=2, obs=mode).reset(seed=3)[0].shape == (2, size)
    assert BatchVectorEnv(name, num_envs=2, obs=mode).reset(seed=3)[0].shape == (2, size)
    batch = make_batch(game, 2)
    batch.reset(seed=3)
    assert batch.obs_size == size and batch.obs.shape == (2, size)


@pytest.mark.parametrize("name, mode", CASES)
def test_a_modes_vector_starts_with_the_cards_vector(name, mode):
    # Every mode adds to what cards shows: a cards policy's inputs are a prefix of the others'.
    cards, other = make_game(name), make_game(name, obs=mode)
    state = cards.new_state(np.random.default_rng(5))
    for seat in range(cards.num_players):
        a, b = cards.observe(state, seat), other.observe(state, seat)
        np.testing.assert_array_equal(b[:a.size], a)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_an_unknown_mode_is_refused_naming_the_modes(name):
    offered = tuple(make_game(name).obs_specs)
    for make in (lambda: make_game(name, obs="pixels"), lambda: env_class(name)(obs="pixels"),
                 lambda: SingleAgentEnv(name, obs="pixels")):
        with pytest.raises(ValueError, match=re.escape(f"obs 'pixels' is not one of the modes {offered!r}")):
            make()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_default_mode_leaves_the_config_as_it_was_and_another_round_trips(name):
    # Records, saves and weights written before the option existed keep their exact config.
    game = make_game(name)
    assert "obs" not in game.config_dict()
    other = make_game(name, obs="structure")
    assert other.config_dict()["obs"] == "structure"
    again = type(other)(**other.config_dict())
    assert again.config_dict() == other.config_dict() and again.obs_spec is again.obs_specs["structure"]
