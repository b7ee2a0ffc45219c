"""The SB3 ``VecEnv`` view of a batched engine (:mod:`setgames.batch.sb3_vec`), and a short
sb3-contrib ``MaskablePPO`` run on it (skipped without the training extras)."""

from __future__ import annotations

import numpy as np
import pytest

from setgames.batch import seeds
from tethsi_env.env import raw_env

pytest.importorskip("tethsi_env._batch", reason="tethsi_env._batch is not built")
pytest.importorskip("stable_baselines3", reason="needs the sb3 extra (pip install -e '.[sb3]')")
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
            assert info["illegal_action"] is False and info["skipped_deals"] == 0
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


@pytest.mark.parametrize("spelling", ["same_step", "SameStep", "SAME_STEP"])
def test_same_step_in_any_spelling_is_taken_and_other_modes_refused_in_one_line(spelling):
    from gymnasium.vector import AutoresetMode

    BatchVecEnv("tethsi", num_envs=2, autoreset_mode=spelling)
    for mode in ("next_step", AutoresetMode.DISABLED):
        with pytest.raises(ValueError, match="same step") as e:
            BatchVecEnv("tethsi", num_envs=2, autoreset_mode=mode)
        assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="autoreset mode 'never'"):
        BatchVecEnv("tethsi", num_envs=2, autoreset_mode="never")
    with pytest.raises(TypeError, match="game"):
        BatchVecEnv(num_envs=2)  # no core class picks a game for the caller


def test_illegal_actions_end_the_slots_game_with_the_penalty_and_floats_are_refused():
    venv = BatchVecEnv("tethsi", num_envs=3, illegal_reward=-3.0, seed=2)
    venv.reset()
    masks = venv.action_masks()
    actions = np.array([np.flatnonzero(m)[0] for m in masks])
    actions[2] = np.flatnonzero(~masks[2])[0]
    with pytest.raises(ValueError, match="integers") as e:
        venv.step(actions.astype(np.float64))
    assert "\n" not in str(e.value)
    _, rewards, dones, infos = venv.step(actions)
    assert dones.tolist() == [False, False, True] and rewards[2] == -3.0
    assert infos[2]["illegal_action"] is True and "illegal_action" not in infos[0]
    assert [info["skipped_deals"] for info in infos] == [0, 0, 0]
    raising = BatchVecEnv("tethsi", num_envs=3, illegal_action="raise", seed=2)
    raising.reset()
    with pytest.raises(ValueError, match=f"action {actions[2]}"):
        raising.step(actions)


def test_skipped_deals_are_in_every_slots_infos():
    pytest.importorskip("bharg_env._batch", reason="bharg_env._batch is not built")
    venv = BatchVecEnv("bharg", num_envs=16, opponents="greedy", learner_seat=2, num_players=3, seed=0)
    venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(200):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()])
        _, _, _, infos = venv.step(actions)
    counts = np.array([info["skipped_deals"] for info in infos])
    np.testing.assert_array_equal(counts, venv.batch.skipped_deals)
    assert counts.sum() > 0  # three-player Bharg: the two seats before the learner end some deals


def test_get_images_draws_each_slots_learner_view():
    pytest.importorskip("resvg_py")
    venv = BatchVecEnv("tethsi", num_envs=2, render_mode="rgb_array", seed=5)
    assert venv.render_mode == "rgb_array" and "rgb_array" in venv.metadata["render_modes"]
    venv.reset()
    images = venv.get_images()
    assert len(images) == 2 and all(im.dtype == np.uint8 and im.shape[2] == 3 for im in images)
    assert not np.array_equal(images[0], images[1])  # two deals
    assert venv.render("rgb_array").ndim == 3  # SB3 tiles the slots' images
    assert BatchVecEnv("tethsi", num_envs=1).get_images() == [None]
