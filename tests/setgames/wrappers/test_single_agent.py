"""The single-agent Gymnasium view, on the toy game (where the result of a
line of play is known by arithmetic) and on every game that is installed."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from setgames.bots import RandomBot
from setgames.engine import engine_class
from setgames.registry import GAME_NAMES
from setgames.wrappers import PolicyBot, SingleAgentEnv
from tests.setgames.toy_game import ToyGame


def take_one(obs, mask):
    """Opponent policy: always take one token (action 0)."""
    return 0


def _available_games() -> list[str]:
    out = []
    for name in GAME_NAMES:
        try:
            SingleAgentEnv(name)
        except ImportError:
            continue
        out.append(name)
    return out


def test_reward_when_opponent_ends_game_matches_parity_oracle():
    # Both sides take one token a turn: with p tokens left at the learner's turn,
    # the learner takes the last token exactly when p is odd; when p is even the
    # opponent's move ends the game and the learner must still receive -1.
    seen = set()
    for seed in range(40):
        env = SingleAgentEnv(ToyGame, opponents=take_one)
        obs, _ = env.reset(seed=seed)
        p = int(obs[0])
        rewards, done = [], False
        while not done:
            obs, r, term, trunc, info = env.step(0)
            rewards.append(r)
            done = term or trunc
        expected = 1.0 if p % 2 == 1 else -1.0
        assert rewards[-1] == expected and all(r == 0.0 for r in rewards[:-1])
        assert term and not trunc and info["winner"] == (0 if p % 2 else 1)
        assert info["returns"][0] == expected
        seen.add(expected)
    assert seen == {1.0, -1.0}


def test_learner_in_second_seat_sees_opponent_move_first():
    env = SingleAgentEnv(ToyGame, opponents=take_one, learner_seat=1)
    ref = ToyGame()
    for seed in range(10):
        obs, info = env.reset(seed=seed)
        state = ref.new_state(__import__("setgames.game", fromlist=["x"]).rng_from_seed(info["game_seed"]))
        assert obs[0] == state.pile - 1 and obs[1] == state.hidden[1]


def test_rotate_alternates_seats_and_seeded_reset_restarts_rotation():
    env = SingleAgentEnv(ToyGame, learner_seat="rotate")
    seats = []
    env.reset(seed=3)
    seats.append(env.learner_seat)
    for _ in range(3):
        env.reset()
        seats.append(env.learner_seat)
    assert seats == [0, 1, 0, 1]
    a, _ = env.reset(seed=3)
    b, _ = SingleAgentEnv(ToyGame, learner_seat="rotate").reset(seed=3)
    assert np.array_equal(a, b)


def test_action_masks_match_rules_in_flat_and_dict_modes():
    for mode in ("flat", "dict"):
        env = SingleAgentEnv(ToyGame, obs_mode=mode, opponents=RandomBot(0))
        for seed in range(15):
            obs, _ = env.reset(seed=seed)
            done = False
            while not done:
                pile = int(obs[0] if mode == "flat" else obs["observation"][0])
                expected = [True, pile >= 2]
                assert env.action_masks().tolist() == expected
                if mode == "dict":
                    assert obs["action_mask"].dtype == np.int8
                    assert obs["action_mask"].tolist() == [int(x) for x in expected]
                legal = np.flatnonzero(env.action_masks())
                obs, _, term, trunc, _ = env.step(legal[-1])
                done = term or trunc
            assert not env.action_masks().any()


def test_illegal_action_terminates_with_penalty_or_raises():
    env = SingleAgentEnv(ToyGame, illegal_action="terminate", illegal_reward=-5.0)
    env.reset(seed=0)
    env.state.pile = 1
    env._update_mask()
    _, r, term, trunc, info = env.step(1)
    assert (r, term, trunc, info["illegal_action"]) == (-5.0, True, False, True)
    with pytest.raises(RuntimeError, match="after the episode ended"):
        env.step(0)
    env = SingleAgentEnv(ToyGame, illegal_action="raise")
    env.reset(seed=0)
    env.state.pile = 1
    env._update_mask()
    with pytest.raises(ValueError, match=r"illegal action 1 \(take 2\); legal: 0 \(take 1\)"):
        env.step(1)


def test_opponent_illegal_action_raises_naming_the_opponent():
    env = SingleAgentEnv(ToyGame, opponents=lambda obs, mask: 7, learner_seat=1)
    with pytest.raises(ValueError, match=r"opponent PolicyBot.*seat 0.*illegal action 7"):
        env.reset(seed=0)


@pytest.mark.parametrize("kwargs", [
    {"learner_seat": 2}, {"learner_seat": "left"}, {"obs_mode": "image"},
    {"illegal_action": "ignore"}, {"render_mode": "video"}, {"short_deals": "redeal"},
    {"render_view": "seat"}, {"opponents": [RandomBot(), RandomBot()]},
    {"opponents": 3}, {"max_pile": 99},
])
def test_bad_config_raises_at_construction(kwargs):
    with pytest.raises(ValueError):
        SingleAgentEnv(ToyGame, **kwargs)


def test_step_before_reset_raises():
    with pytest.raises(RuntimeError, match="before reset"):
        SingleAgentEnv(ToyGame).step(0)


@pytest.mark.parametrize("mode", ["flat", "dict"])
@pytest.mark.parametrize("seat", [0, 1, "rotate", "random"])
def test_check_env_passes_on_toy_game(mode, seat):
    check_env(SingleAgentEnv(ToyGame, obs_mode=mode, learner_seat=seat, render_mode="ansi"))


def _play(env, seed, steps):
    obs, _ = env.reset(seed=seed)
    trace = [obs.tolist()]
    for _ in range(steps):
        legal = np.flatnonzero(env.action_masks())
        obs, r, term, trunc, _ = env.step(legal[0])
        trace.append((obs.tolist(), r))
        if term or trunc:
            obs, _ = env.reset()
            trace.append(obs.tolist())
    return trace


def test_pickle_round_trip_mid_episode_continues_identically():
    env = SingleAgentEnv(ToyGame, opponents=RandomBot(1), learner_seat="rotate")
    _play(env, 5, 7)
    twin = pickle.loads(pickle.dumps(env))
    assert twin.game.config == env.game.config and twin.state == env.state
    assert _play_on(env, 30) == _play_on(twin, 30)


def _play_on(env, steps):
    trace = []
    for _ in range(steps):
        legal = np.flatnonzero(env.action_masks())
        obs, r, term, trunc, _ = env.step(legal[-1])
        trace.append((obs.tolist(), r, env.learner_seat))
        if term or trunc:
            trace.append(env.reset()[0].tolist())
    return trace


def test_policy_bot_receives_observation_and_mask():
    calls = []

    def policy(obs, mask):
        calls.append((obs.tolist(), mask.tolist()))
        return int(np.flatnonzero(mask)[0])

    env = SingleAgentEnv(ToyGame, opponents=PolicyBot(policy), learner_seat=1)
    obs, _ = env.reset(seed=2)
    assert len(calls) == 1 and calls[0][0][0] == obs[0] + 1 and calls[0][1] == [1, 1]


def test_subproc_vec_env_runs_and_reports_masks():
    vec_env_mod = pytest.importorskip("stable_baselines3.common.vec_env")
    venv = vec_env_mod.SubprocVecEnv([lambda: SingleAgentEnv(ToyGame, learner_seat="rotate")] * 2)
    try:
        venv.seed(0)
        obs = venv.reset()
        assert obs.shape == (2, 2) and obs.dtype == np.int8
        total_done = 0
        for _ in range(40):
            masks = np.stack(venv.env_method("action_masks"))
            assert masks.shape == (2, 2) and masks[:, 0].all()
            obs, rew, done, infos = venv.step(np.zeros(2, dtype=np.int64))
            for d, r, info in zip(done, rew, infos, strict=True):
                if d:
                    total_done += 1
                    assert r == info["returns"][info["learner_seat"]]
        assert total_done > 0
    finally:
        venv.close()


@pytest.mark.parametrize("name", _available_games())
def test_real_game_check_env_and_rewards_sum_to_returns(name):
    for mode in ("flat", "dict"):
        check_env(SingleAgentEnv(name, obs_mode=mode, learner_seat="rotate"), skip_render_check=True)
    env = SingleAgentEnv(name, learner_seat="random")
    # the default steps the compiled engine where one is built (test_single_agent_engine.py
    # holds that path to the rules layer's)
    assert (env.engine is None) == (engine_class(env.game) is None)
    rng = np.random.default_rng(0)
    for seed in range(3):
        env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            assert legal.tolist() == env.game.legal_actions(env.state)
            _, r, term, trunc, info = env.step(rng.choice(legal))
            total += r
            done = term or trunc
        assert total == pytest.approx(info["returns"][env.learner_seat])
    twin = pickle.loads(pickle.dumps(env))
    assert twin.game.config == env.game.config


@pytest.mark.parametrize("action", [1.0, "1", True, np.array([1.0]), np.array([0, 1]), None])
def test_step_refuses_non_integer_actions_with_the_episode_unchanged(action):
    env = SingleAgentEnv(ToyGame, illegal_action="raise")
    env.reset(seed=2)
    before = env.game.to_json(env.state)
    with pytest.raises(ValueError, match="is not an integer action id"):
        env.step(action)
    assert env.game.to_json(env.state) == before


@pytest.mark.parametrize("action", [np.int64(0), np.array(0), np.array([0]), 0])
def test_step_takes_integers_and_one_element_integer_arrays(action):
    env, ref = SingleAgentEnv(ToyGame), SingleAgentEnv(ToyGame)
    env.reset(seed=3)
    ref.reset(seed=3)
    assert env.step(action)[1:3] == ref.step(0)[1:3]
    assert env.game.to_json(env.state) == ref.game.to_json(ref.state)


@pytest.mark.parametrize(("option", "value"), [("learner_seat", True), ("learner_seat", 1.0),
                                               ("illegal_reward", float("nan")), ("illegal_reward", "1")])
def test_options_of_the_wrong_type_are_value_errors(option, value):
    with pytest.raises(ValueError, match=option):
        SingleAgentEnv(ToyGame, **{option: value})


@pytest.mark.parametrize("game", _available_games())
def test_infos_carry_the_mask_and_numbers_only_and_outcome_the_rest(game):
    env = SingleAgentEnv(game, opponents="random", learner_seat="rotate")
    rng = np.random.default_rng(5)
    keys = None
    for episode in range(4):
        _, info = env.reset(seed=episode)
        while True:
            # one dtype for both (the module doc): bool
            assert info["action_mask"].dtype == np.bool_ and env.action_masks().dtype == np.bool_
            assert np.array_equal(info["action_mask"], env.action_masks())
            legal = np.flatnonzero(info["action_mask"])
            _, _, term, trunc, info = env.step(int(legal[rng.integers(len(legal))]))
            if term or trunc:
                break
        assert not info["action_mask"].any()
        for k, v in info.items():
            assert isinstance(v, (bool, int, float, np.ndarray)), f"info[{k!r}] = {v!r}"
        shape = {k: np.shape(v) for k, v in info.items()}
        keys = shape if keys is None else keys
        assert shape == keys  # one shape every game: a buffer can store it
        assert env.outcome() == env.game.outcome(env.state)
        assert info["returns"].tolist() == list(env.game.returns(env.state))


def test_outcome_after_an_illegal_action_says_who_and_why():
    env = SingleAgentEnv(ToyGame, opponents=take_one, learner_seat=0)
    env.reset(seed=0)
    env.state.pile = 1
    env._update_mask()
    _, _, term, _, info = env.step(1)
    assert term and info["illegal_action"] and not info["action_mask"].any()
    assert env.outcome()["offender"] == 0 and "illegal action 1" in env.outcome()["reason"]
    env.reset(seed=1)
    assert "illegal_action" not in env.outcome()
