"""The Gymnasium 1.x ``VectorEnv`` view of a batched engine (:mod:`setgames.batch.gym_vector`)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from setgames.batch import seeds
from setgames.gym_envs import ENV_IDS
from setgames.wrappers import SingleAgentEnv
from tethsi_env.env import raw_env

pytest.importorskip("tethsi_env._batch", reason="tethsi_env._batch is not built")
from setgames.batch.gym_vector import BatchVectorEnv


def _first_obs(seed):
    env = raw_env()
    env.reset(seed=int(seed))
    return env.observe("player_0")


def _random_actions(envs, rng):
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in envs.action_masks()])


def _make_vec(n, **kwargs):
    return gym.make_vec(ENV_IDS["tethsi"], num_envs=n, vectorization_mode="vector_entry_point", **kwargs)


def test_make_vec_builds_the_batch_view_with_gymnasium_spaces_and_same_step_by_default():
    envs = _make_vec(5, opponents="greedy")
    assert isinstance(envs, BatchVectorEnv) and envs.num_envs == 5
    assert envs.autoreset_mode is AutoresetMode.SAME_STEP
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert envs.single_action_space == gym.spaces.Discrete(704)
    assert envs.observation_space.shape == (5, 304) and envs.action_space.shape == (5,)
    obs, _ = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)


@pytest.mark.parametrize("spelling", [AutoresetMode.NEXT_STEP, "NextStep", "NEXT_STEP", "next_step",
                                      "nextstep"])
def test_every_spelling_of_a_mode_gives_the_same_mode_by_class_and_by_make_vec(spelling):
    assert BatchVectorEnv("tethsi", 2, autoreset_mode=spelling).autoreset_mode is AutoresetMode.NEXT_STEP
    assert _make_vec(2, autoreset_mode=spelling).metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP


def test_a_bad_mode_and_a_missing_game_are_refused():
    with pytest.raises(ValueError, match="autoreset mode 'sometimes'"):
        BatchVectorEnv("tethsi", 2, autoreset_mode="sometimes")
    with pytest.raises(TypeError, match="game"):
        BatchVectorEnv(num_envs=2)  # no core class picks a game for the caller


def test_reset_seed_s_seeds_slot_i_with_s_plus_i_and_masks_are_bool_alike():
    envs = BatchVectorEnv("tethsi", 6, opponents="random")  # learner seat 0, who moves first
    obs, infos = envs.reset(seed=40)
    for i in range(6):
        first = _first_obs(40 + i)
        np.testing.assert_array_equal(obs[i], first["observation"])
        np.testing.assert_array_equal(infos["action_mask"][i], first["action_mask"].astype(bool))
    assert infos["_action_mask"].all() and infos["action_mask"].dtype == np.bool_
    assert envs.action_masks().dtype == np.bool_
    np.testing.assert_array_equal(envs.action_masks(), infos["action_mask"])
    assert infos["skipped_deals"].tolist() == [0] * 6 and infos["_skipped_deals"].all()


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
    assert (infos["_seed"] == term).all() and "final_obs" not in infos and "final_info" not in infos
    for i in ended:
        assert infos["seed"][i] == 5 + i  # each slot's first game
        assert not infos["action_mask"][i].any() and rew[i] in (-1.0, 0.0, 1.0)
    obs2, rew2, term2, _, _ = envs.step(_random_actions(envs, rng))  # 0 for the ended slots: ignored
    for i in ended:
        assert not term2[i] and rew2[i] == 0
        # the learner sits at seat 0 in every game: it moves first, nothing happened before
        np.testing.assert_array_equal(obs2[i], _first_obs(seeds.game_seed(5, i, 1))["observation"])


def _gymnasium_same_step_infos():
    """The infos of Gymnasium's own ``SyncVectorEnv`` under ``SAME_STEP`` on a step where
    one of its envs ended (the shapes ours must have)."""
    envs = SyncVectorEnv([lambda: SingleAgentEnv("tethsi") for _ in range(2)],
                         autoreset_mode=AutoresetMode.SAME_STEP)
    _, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    while True:
        actions = [rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]]
        _, _, term, trunc, infos = envs.step(actions)
        if (term | trunc).any():
            return infos


def test_same_step_infos_have_gymnasiums_shapes_and_the_final_obs_next_step_shows():
    same = BatchVectorEnv("tethsi", 8, opponents="greedy", autoreset_mode="SameStep")
    nxt = BatchVectorEnv("tethsi", 8, opponents="greedy", autoreset_mode="next_step")
    same.reset(seed=11)
    nxt.reset(seed=11)
    rng = np.random.default_rng(1)
    for _ in range(500):  # the same actions in both until a game ends
        actions = _random_actions(same, rng)
        obs, _, term, trunc, infos = same.step(actions)
        obs_n, _, term_n, _, _ = nxt.step(actions)
        np.testing.assert_array_equal(term, term_n)
        if term.any():
            break
    ended = term | trunc
    ref = _gymnasium_same_step_infos()
    for key in ("final_obs", "final_info"):
        assert type(infos[key]) is type(ref[key]) and infos["_" + key].dtype == ref["_" + key].dtype
        np.testing.assert_array_equal(infos["_" + key], ended)
    assert infos["final_obs"].dtype == ref["final_obs"].dtype == object
    assert infos["final_obs"].shape == (8,)
    for i in range(8):
        if ended[i]:
            np.testing.assert_array_equal(infos["final_obs"][i], obs_n[i])  # next_step's last obs
            np.testing.assert_array_equal(obs[i], _first_obs(seeds.game_seed(11, i, 1))["observation"])
            assert infos["action_mask"][i].any()  # the next game's
        else:
            assert infos["final_obs"][i] is None
    final = infos["final_info"]
    assert final["seed"][ended].tolist() == [11 + i for i in np.flatnonzero(ended)]
    for key in ("seed", "learner_seat", "illegal_action", "action_mask"):
        np.testing.assert_array_equal(final["_" + key], ended)
    assert not final["action_mask"][ended].any() and not final["illegal_action"].any()


def test_disabled_autoreset_refuses_a_step_while_a_slot_is_over_and_resets_by_mask():
    envs = BatchVectorEnv("tethsi", 4, opponents="random", autoreset_mode=AutoresetMode.DISABLED)
    envs.reset(seed=2)
    rng = np.random.default_rng(2)
    obs, _, term, trunc, _ = _run_until_an_end(envs, rng)
    ended = term | trunc
    with pytest.raises(ValueError):
        envs.step(_random_actions(envs, rng))
    new, infos = envs.reset(options={"reset_mask": ended})
    for i in range(4):
        if ended[i]:
            np.testing.assert_array_equal(new[i], _first_obs(seeds.game_seed(2, i, 1))["observation"])
            assert infos["action_mask"][i].any()
        else:
            np.testing.assert_array_equal(new[i], obs[i])  # untouched
    envs.step(_random_actions(envs, rng))  # every slot live again


@pytest.mark.parametrize("mode", ["same_step", "next_step"])
def test_an_illegal_action_ends_that_slot_with_the_penalty_and_the_others_step_on(mode):
    envs = BatchVectorEnv("tethsi", 3, opponents="random", autoreset_mode=mode, illegal_reward=-2.5)
    _, infos = envs.reset(seed=4)
    actions = _random_actions(envs, np.random.default_rng(0))
    actions[1] = int(np.flatnonzero(~infos["action_mask"][1])[0])
    _, rew, term, trunc, infos = envs.step(actions)
    assert term.tolist() == [False, True, False] and not trunc.any() and rew[1] == -2.5
    facts = infos["final_info"] if mode == "same_step" else infos
    assert facts["illegal_action"].tolist() == [False, True, False]
    assert facts["_illegal_action"].tolist() == [False, True, False]


def test_illegal_action_raise_keeps_the_batch_refusal_and_nothing_moves():
    envs = BatchVectorEnv("tethsi", 2, illegal_action="raise")
    obs, infos = envs.reset(seed=4)
    bad = int(np.flatnonzero(~infos["action_mask"][0])[0])
    with pytest.raises(ValueError, match=f"action {bad}"):
        envs.step(np.array([bad, int(np.flatnonzero(infos["action_mask"][1])[0])]))
    np.testing.assert_array_equal(envs.batch.obs, obs)


def test_float_actions_are_refused_in_one_line_and_int_lists_taken():
    envs = BatchVectorEnv("tethsi", 2)
    _, infos = envs.reset(seed=0)
    legal = [int(np.flatnonzero(m)[0]) for m in infos["action_mask"]]
    for bad in (np.array(legal, dtype=np.float32), [float(a) for a in legal]):
        with pytest.raises(ValueError, match="integers") as e:
            envs.step(bad)
        assert "\n" not in str(e.value)
    envs.step(legal)
    envs.step(np.array([int(np.flatnonzero(m)[0]) for m in envs.action_masks()], dtype=np.uint16))


def test_other_options_are_refused_naming_them():
    for kwargs, word in [({"opponents": None}, "single-agent"),
                         ({"illegal_action": "ignore"}, "illegal_action"),
                         ({"short_deals": "redeal"}, "short_deals"),
                         ({"render_mode": "human"}, "render_mode"),
                         ({"render_view": "seat"}, "render_view")]:
        with pytest.raises(ValueError, match=word):
            BatchVectorEnv("tethsi", 2, **kwargs)
    envs = BatchVectorEnv("tethsi", 2)
    with pytest.raises(ValueError, match="seed"):
        envs.reset(seed=[1, 2])


def test_rgb_array_frames_show_each_slots_learner_view_or_everything():
    pytest.importorskip("resvg_py")
    from setgames.draw import draw_state

    envs = _make_vec(2, render_mode="rgb_array")
    spectator = _make_vec(2, render_mode="rgb_array", render_view="spectator")
    assert "rgb_array" in envs.metadata["render_modes"]
    envs.reset(seed=8)
    spectator.reset(seed=8)
    frames, everything = envs.render(), spectator.render()
    assert isinstance(frames, tuple) and len(frames) == 2
    for i in range(2):
        aec = raw_env(render_mode="rgb_array")
        aec.reset(seed=8 + i)  # the learner sits at seat 0, who moves first: nothing happened yet
        assert frames[i].dtype == np.uint8 and frames[i].ndim == 3 and frames[i].shape[2] == 3
        np.testing.assert_array_equal(everything[i], aec.render())  # the AEC env draws everything
        learner = draw_state(aec.game, aec.game_state, seat=0).to_rgb()
        np.testing.assert_array_equal(frames[i], learner)
        assert not np.array_equal(frames[i], everything[i])  # the opponent's hand is hidden
    with pytest.warns(UserWarning, match="render_mode"):
        assert BatchVectorEnv("tethsi", 1).render() is None  # no render_mode: a warning, no frame
