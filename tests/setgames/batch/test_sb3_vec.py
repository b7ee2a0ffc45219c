"""The SB3 ``VecEnv`` view of a batched engine (:mod:`setgames.batch.sb3_vec`), and a short
sb3-contrib ``MaskablePPO`` run on it (skipped without the training extras)."""

from __future__ import annotations

import numpy as np
import pytest

from setgames.batch import seeds
from tethsi_env.env import raw_env

pytest.importorskip("tethsi_env._batch", reason="tethsi_env._batch is not built")
pytest.importorskip("stable_baselines3", reason="needs the training extras (pip install -e '.[train]')")
from setgames.batch.sb3_vec import BatchVecEnv


def _first_obs(seed):
    env = raw_env()
    env.reset(seed=int(seed))
    return env.observe("player_0")["observation"]


def test_vecenv_contract_masks_at_once_and_terminal_observations():
    venv = BatchVecEnv("tethsi", num_envs=6, opponents="greedy")
    assert venv.seed(30) == [30, 31, 32, 33, 34, 35]
    obs = venv.reset()
    assert obs.shape == (6, 304)
    for i in range(6):
        np.testing.assert_array_equal(obs[i], _first_obs(30 + i))
    masks = venv.env_method("action_masks")
    assert masks.shape == (6, 704) and masks.dtype == bool
    np.testing.assert_array_equal(np.stack(masks), venv.action_masks())
    assert venv.env_method("action_masks", indices=[2]).shape == (1, 704)
    assert venv.get_attr("action_masks", indices=[0, 1])[0] == venv.action_masks
    assert venv.env_is_wrapped(object) == [False] * 6
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(300):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in venv.env_method("action_masks")])
        venv.step_async(actions)
        obs, rewards, dones, infos = venv.step_wait()
        assert rewards.dtype == np.float32 and len(infos) == 6
        for i in np.flatnonzero(dones):
            seen += 1
            info = infos[i]
            assert info["terminal_observation"].shape == (304,) and not info["TimeLimit.truncated"]
            if info["seed"] == 30 + i:  # the slot's first game ended: the next one is dealt already
                np.testing.assert_array_equal(obs[i], _first_obs(seeds.game_seed(30, i, 1)))
    assert seen > 6


def test_maskable_ppo_trains_on_the_view_unchanged():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    venv = BatchVecEnv("tethsi", num_envs=8, opponents="random", learner_seat="rotate", seed=1)
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0,
                                    policy_kwargs={"net_arch": [32]}, device="cpu")
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    obs = venv.reset()
    masks = venv.action_masks()
    actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
    assert all(masks[i, a] for i, a in enumerate(actions))
