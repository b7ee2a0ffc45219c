"""Gymnasium: ``make`` by the registered ids, the env checker with no warning,
standard wrappers and a vector env passing the mask on, ``render_fps``."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from setgames.gym_envs import ENV_IDS
from setgames.registry import env_class
from setgames.wrappers import TurnBasedEnv
from tests.setgames.wrappers.clients.helpers import GAMES, legal_choice


@pytest.mark.parametrize("game", GAMES)
def test_env_checker_passes_on_the_made_env_without_a_warning(game):
    # The checker renders every mode the env lists, rgb_array included.
    pytest.importorskip("resvg_py", reason="needs the pictures extra: pip install -e '.[pictures]'")
    env = gym.make(ENV_IDS[game], render_mode="ansi")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. "cannot test render modes" without render_fps
        check_env(env.unwrapped, skip_render_check=False)


@pytest.mark.parametrize("game", GAMES)
def test_made_env_through_standard_wrappers_pays_the_learner_its_return(game):
    env = gym.wrappers.RecordEpisodeStatistics(gym.make(ENV_IDS[game], learner_seat="rotate"))
    rng = np.random.default_rng(0)
    for episode in range(3):
        _, info = env.reset(seed=episode)
        total, done = 0.0, False
        while not done:
            mask = info["action_mask"]
            # The info mask is the view's own, reached through every wrapper.
            assert np.array_equal(mask.astype(bool), env.get_wrapper_attr("action_masks")())
            _, reward, term, trunc, info = env.step(legal_choice(mask, rng))
            total += reward
            done = term or trunc
        assert not info["action_mask"].any()
        assert total == pytest.approx(float(info["returns"][info["learner_seat"]]))
        assert info["episode"]["r"] == pytest.approx(total)


@pytest.mark.parametrize("game", GAMES)
def test_vector_env_stacks_the_masks_of_its_envs(game):
    envs = gym.make_vec(ENV_IDS[game], num_envs=2, vectorization_mode="sync")
    rng = np.random.default_rng(1)
    _, info = envs.reset(seed=3)
    done = np.zeros(2, dtype=bool)
    ends = 0
    for _ in range(120):
        masks = info["action_mask"]
        assert masks.shape == (2, envs.single_action_space.n)
        # Gymnasium's next-step autoreset: an env that just ended shows an
        # all-zero mask, and its next step (action ignored) is the reset.
        assert np.array_equal(masks.any(axis=1), ~done)
        actions = [0 if d else legal_choice(m, rng) for m, d in zip(masks, done, strict=True)]
        _, _, term, trunc, info = envs.step(actions)
        done = term | trunc
        ends += int(done.sum())
    assert ends > 0
    envs.close()


@pytest.mark.parametrize("game", GAMES)
def test_every_env_declares_render_fps(game):
    raw = env_class(game)
    assert raw.metadata["render_fps"] > 0
    assert gym.make(ENV_IDS[game]).metadata["render_fps"] > 0
    assert TurnBasedEnv.metadata["render_fps"] > 0


def test_make_imports_setgames_itself_from_the_module_prefix():
    env = gym.make(f"setgames:{ENV_IDS['bharg']}")
    assert env.spec.id == ENV_IDS["bharg"] and env.unwrapped.game.name == "bharg"
