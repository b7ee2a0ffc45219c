"""The turn-based (Tianshou-style) view and the RLlib mapping, on the toy game."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from setgames.wrappers import TurnBasedEnv
from setgames.wrappers.rllib import RLlibTurnCore, rllib_obs_space, to_rllib_obs
from setgames.wrappers.turn_based import CLOSING_ACTION
from tests.setgames.toy_game import ToyGame


def _episode(env, seed, pick):
    obs, _ = env.reset(seed=seed)
    steps, done = [], False
    while not done:
        agent = obs["agent_id"]
        a = pick(obs)
        obs, rew, term, trunc, info = env.step(a)
        steps.append((agent, a, rew.copy(), info))
        done = term or trunc
    return steps


def test_every_seat_receives_its_result_including_the_loser():
    # Both take one token: the seat that takes the last token wins (+1); the
    # other seat's -1 must arrive on its closing step, not be lost.
    env = TurnBasedEnv(ToyGame)
    for seed in range(20):
        pile = env.reset(seed=seed)[0]["obs"][0]
        steps = _episode(env, seed, lambda obs: 0)
        winner = (int(pile) - 1) % 2
        per_seat = np.zeros(2)
        for agent, _, rew, _ in steps:
            seat = env.agent_idx[agent]
            assert np.count_nonzero(rew[np.arange(2) != seat]) == 0  # only the actor is paid
            per_seat += rew
        assert per_seat.tolist() == [1.0 if s == winner else -1.0 for s in range(2)]
        last_agent, _, last_rew, info = steps[-1]
        assert info["closing"] and last_agent == f"player_{1 - winner}" and last_rew[1 - winner] == -1.0
        assert info["winner"] == winner


def test_closing_step_mask_allows_only_the_closing_action():
    env = TurnBasedEnv(ToyGame)
    obs, _ = env.reset(seed=1)
    while True:
        obs, *_ = env.step(0)
        if obs["mask"].sum() == 1 and env.game.is_over(env.state):
            break
    assert obs["mask"].tolist() == [CLOSING_ACTION == 0, CLOSING_ACTION == 1]
    with pytest.raises(ValueError, match="closing step"):
        env.step(1)


def test_turn_based_masks_match_rules_and_illegal_raises():
    env = TurnBasedEnv(ToyGame)
    obs, _ = env.reset(seed=4)
    assert obs["mask"].tolist() == [True, obs["obs"][0] >= 2]
    env.state.pile = 1
    with pytest.raises(ValueError, match="illegal action 1"):
        env.step(1)


def test_turn_based_pickles_and_is_reproducible():
    env = TurnBasedEnv(ToyGame)
    env.reset(seed=9)
    env.step(0)
    twin = pickle.loads(pickle.dumps(env))
    assert twin.state == env.state

    def trace(e):
        steps = _episode(e, 11, lambda o: int(np.flatnonzero(o["mask"])[-1]))
        return [(a, x, r.tolist()) for a, x, r, _ in steps]

    assert trace(env) == trace(twin)


def test_to_rllib_obs_renames_keys_as_float32():
    out = to_rllib_obs({"observation": np.array([5, 2], np.int8), "action_mask": np.array([1, 0], np.int8)})
    assert set(out) == {"observations", "action_mask"}
    assert out["observations"].dtype == np.float32 and out["observations"].tolist() == [5.0, 2.0]
    assert out["action_mask"].tolist() == [1.0, 0.0]


def test_rllib_core_protocol_on_toy_game():
    env = RLlibTurnCore({"game": ToyGame})
    space = rllib_obs_space(env.game)
    for seed in range(10):
        obs, _ = env.reset(seed=seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        while True:
            (agent,) = obs
            assert space.contains(obs[agent])
            legal = np.flatnonzero(obs[agent]["action_mask"])
            assert legal.tolist() == env.game.legal_actions(env.state)
            obs, rew, terms, _, _ = env.step({agent: int(legal[0])})
            for k, v in rew.items():
                totals[k] += v
            if terms["__all__"]:
                break
        assert set(obs) == set(env.possible_agents)  # everyone sees the end
        assert all(not o["action_mask"].any() for o in obs.values())
        assert [totals[a] for a in env.possible_agents] == list(env.game.returns(env.state))
    with pytest.raises(ValueError, match="is the one to act"):
        env.reset(seed=0)
        env.step({"player_1": 0})


def test_rllib_module_does_not_import_ray():
    import subprocess
    import sys

    code = "import sys, setgames.wrappers.rllib; print('ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("seed", [-1, 2**63, 1.5, "3", True])
def test_turn_based_reset_refuses_a_bad_seed(seed):
    env = TurnBasedEnv(ToyGame)
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=seed)


@pytest.mark.parametrize("action", [0.0, "0", True, np.array([0.0])])
def test_turn_based_step_refuses_non_integer_actions(action):
    env = TurnBasedEnv(ToyGame)
    env.reset(seed=1)
    before = env.game.to_json(env.state)
    with pytest.raises(ValueError, match="is not an integer action id"):
        env.step(action)
    assert env.game.to_json(env.state) == before
