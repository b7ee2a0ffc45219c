"""Tu Sac's batched engine through the trainer views: Gymnasium's ``make_vec`` and SB3's
``VecEnv`` (:mod:`setgames.batch.gym_vector`, :mod:`setgames.batch.sb3_vec`), and a short
``MaskablePPO`` run on it (skipped without the training extras)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from tusac_env.env import raw_env

pytest.importorskip("tusac_env._batch", reason="tusac_env._batch is not built")
from setgames.batch.gym_vector import BatchVectorEnv


def _first(seed, num_players, seat=0):
    env = raw_env(num_players=num_players)
    env.reset(seed=int(seed))
    return env.observe(f"player_{seat}")


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_make_vec_builds_the_tusac_batch_view_seeded_s_plus_i(num_players):
    envs = gym.make_vec("setgames/tusac-v0", num_envs=5, vectorization_mode="vector_entry_point",
                        opponents="greedy", num_players=num_players)
    assert isinstance(envs, BatchVectorEnv) and envs.num_envs == 5
    assert envs.single_action_space == gym.spaces.Discrete(46)
    obs, infos = envs.reset(seed=40)
    assert envs.observation_space.contains(obs)
    for i in range(5):  # the learner, seat 0, is the default first player: no opponent moved yet
        first = _first(40 + i, num_players)
        np.testing.assert_array_equal(obs[i], first["observation"])
        np.testing.assert_array_equal(infos["action_mask"][i], first["action_mask"])
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        masks = envs.action_masks()
        _, rewards, term, trunc, _ = envs.step(np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0
                                                         for m in masks]))
        ended += int(term.sum())
        assert not trunc.any() and rewards.dtype == np.float32
    assert ended > 0


def test_maskable_ppo_trains_on_the_sb3_view_unchanged():
    pytest.importorskip("stable_baselines3", reason="needs the sb3 extra (pip install -e '.[sb3]')")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from setgames.batch.sb3_vec import BatchVecEnv

    venv = BatchVecEnv("tusac", num_envs=8, opponents="greedy", learner_seat="rotate", seed=1,
                       num_players=3)
    masks = venv.env_method("action_masks")
    assert masks.shape == (8, 46) and masks.dtype == bool
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0,
                                    policy_kwargs={"net_arch": [32]}, device="cpu")
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
