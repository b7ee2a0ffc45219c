"""The Gymnasium 1.x ``VectorEnv`` view of a batched engine (:mod:`setgames.batch.gym_vector`)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from setgames.batch import seeds
from tethsi_env.env import raw_env

pytest.importorskip("tethsi_env._batch", reason="tethsi_env._batch is not built")
from setgames.batch.gym_vector import BatchVectorEnv


def _first_obs(seed):
    env = raw_env()
    env.reset(seed=int(seed))
    return env.observe("player_0")


def _random_actions(envs, rng):
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in envs.action_masks()])


def test_make_vec_builds_the_batch_view_with_gymnasium_spaces():
    envs = gym.make_vec("setgames/tethsi-v0", num_envs=5, vectorization_mode="vector_entry_point",
                        opponents="greedy")
    assert isinstance(envs, BatchVectorEnv) and envs.num_envs == 5
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert envs.single_action_space == gym.spaces.Discrete(704)
    assert envs.observation_space.shape == (5, 304) and envs.action_space.shape == (5,)
    obs, _ = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)


def test_reset_seed_s_seeds_slot_i_with_s_plus_i():
    envs = BatchVectorEnv("tethsi", 6, opponents="random")  # learner seat 0, who moves first
    obs, infos = envs.reset(seed=40)
    for i in range(6):
        first = _first_obs(40 + i)
        np.testing.assert_array_equal(obs[i], first["observation"])
        np.testing.assert_array_equal(infos["action_mask"][i], first["action_mask"])
    assert infos["_action_mask"].all()
    np.testing.assert_array_equal(envs.action_masks(), infos["action_mask"].astype(bool))


def _run_until_an_end(envs, rng):
    for _ in range(500):
        out = envs.step(_random_actions(envs, rng))
        if out[2].any():
            return out
    raise AssertionError("no game ended in 500 steps")


def test_next_step_autoreset_reports_the_seed_then_deals_on_the_next_step():
    envs = BatchVectorEnv("tethsi", 8, opponents="random", autoreset_mode=AutoresetMode.NEXT_STEP)
    envs.reset(seed=5)
    rng = np.random.default_rng(0)
    _, rew, term, _, infos = _run_until_an_end(envs, rng)
    ended = np.flatnonzero(term)
    assert (infos["_seed"] == term).all() and "final_obs" not in infos
    for i in ended:
        assert infos["seed"][i] == 5 + i  # each slot's first game
        assert not infos["action_mask"][i].any() and rew[i] in (-1.0, 0.0, 1.0)
    obs2, rew2, term2, _, _ = envs.step(_random_actions(envs, rng))  # 0 for the ended slots: ignored
    for i in ended:
        assert not term2[i] and rew2[i] == 0
        # the learner sits at seat 0 in every game: it moves first, nothing happened before
        np.testing.assert_array_equal(obs2[i], _first_obs(seeds.game_seed(5, i, 1))["observation"])


def test_same_step_autoreset_returns_the_next_game_and_the_final_obs():
    envs = BatchVectorEnv("tethsi", 8, opponents="greedy", autoreset_mode="SameStep")
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    envs.reset(seed=11)
    obs, _, term, _, infos = _run_until_an_end(envs, np.random.default_rng(1))
    assert (infos["_final_obs"] == term).all() and (infos["_seed"] == term).all()
    for i in np.flatnonzero(term):
        np.testing.assert_array_equal(obs[i], _first_obs(seeds.game_seed(11, i, 1))["observation"])
        assert not np.array_equal(infos["final_obs"][i], obs[i])
        assert infos["seed"][i] == 11 + i


def test_disabled_autoreset_resets_only_the_masked_slots():
    envs = BatchVectorEnv("tethsi", 4, opponents="random", autoreset_mode=AutoresetMode.DISABLED)
    envs.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(400):
        _, _, term, _, _ = envs.step(_random_actions(envs, rng))
    assert term.all()
    obs, infos = envs.reset(options={"reset_mask": np.array([False, True, False, False])})
    np.testing.assert_array_equal(obs[1], _first_obs(seeds.game_seed(2, 1, 1))["observation"])
    assert infos["action_mask"][1].any() and not infos["action_mask"][0].any()


def test_self_play_and_bad_seeds_are_refused():
    with pytest.raises(ValueError, match="single-agent"):
        BatchVectorEnv("tethsi", 2, opponents=None)
    envs = BatchVectorEnv("tethsi", 2)
    with pytest.raises(ValueError, match="seed"):
        envs.reset(seed=[1, 2])
