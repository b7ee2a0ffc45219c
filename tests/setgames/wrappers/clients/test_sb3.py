"""Stable-Baselines3 PPO and sb3-contrib MaskablePPO on the registered ids,
under ``SubprocVecEnv`` (the envs pickled into worker processes)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
sb3 = pytest.importorskip("stable_baselines3")
sb3_contrib = pytest.importorskip("sb3_contrib")

from sb3_contrib.common.maskable.utils import get_action_masks  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env  # noqa: E402
from stable_baselines3.common.vec_env import SubprocVecEnv  # noqa: E402

from setgames.gym_envs import ENV_IDS  # noqa: E402
from tests.setgames.wrappers.clients.helpers import GAMES, legal_choice  # noqa: E402


def _vec_env(game: str, n: int = 2):
    # "setgames:<id>": each worker's gym.make imports setgames, which registers the ids.
    # render_mode=None: make_vec_env asks for "rgb_array" otherwise, which our envs do not draw.
    return make_vec_env(f"setgames:{ENV_IDS[game]}", n_envs=n, seed=0, vec_env_cls=SubprocVecEnv,
                        env_kwargs={"learner_seat": "rotate", "render_mode": None})


@pytest.mark.parametrize("game", GAMES)
def test_subproc_episodes_pay_each_learner_its_return(game):
    envs = _vec_env(game)
    rng = np.random.default_rng(0)
    totals, finished = np.zeros(2), 0
    envs.reset()
    try:
        while finished < 4:
            masks = get_action_masks(envs)
            _, rewards, dones, infos = envs.step(np.array([legal_choice(m, rng) for m in masks]))
            totals += rewards
            for i in np.flatnonzero(dones):
                info = infos[i]
                assert totals[i] == pytest.approx(float(info["returns"][info["learner_seat"]]))
                assert info["episode"]["r"] == pytest.approx(totals[i])  # SB3's Monitor agrees
                totals[i] = 0.0
                finished += 1
    finally:
        envs.close()


@pytest.mark.parametrize("game", GAMES)
def test_maskable_ppo_trains_one_rollout_under_subproc(game):
    from sb3_contrib import MaskablePPO

    envs = _vec_env(game)
    try:
        model = MaskablePPO("MlpPolicy", envs, n_steps=64, batch_size=64, n_epochs=1, seed=0,
                            policy_kwargs={"net_arch": [32]}, device="cpu")
        model.learn(128)
        assert model.num_timesteps >= 128
        obs = envs.reset()
        masks = get_action_masks(envs)
        actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert all(masks[i, a] for i, a in enumerate(actions))  # the mask is applied
    finally:
        envs.close()


@pytest.mark.parametrize("game", GAMES)
def test_plain_ppo_trains_with_illegal_actions_ending_the_episode(game):
    # No masks: SingleAgentEnv's default illegal_action="terminate" ends the
    # episode with illegal_reward, so an unmasked learner still runs.
    from stable_baselines3 import PPO

    envs = _vec_env(game)
    try:
        model = PPO("MlpPolicy", envs, n_steps=64, batch_size=64, n_epochs=1, seed=0,
                    policy_kwargs={"net_arch": [32]}, device="cpu")
        model.learn(128)
        assert model.num_timesteps >= 128
    finally:
        envs.close()
