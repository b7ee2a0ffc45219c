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


def _rllib_episode(env, seed, pick):
    """One game through RLlibTurnCore; (acting agent, rewards dict) per step and the last step."""
    obs, _ = env.reset(seed=seed)
    steps = []
    while True:
        (agent,) = obs
        out = env.step({agent: pick(obs[agent])})
        steps.append((agent, out[1]))
        obs = out[0]
        if out[2]["__all__"] or out[3]["__all__"]:
            return steps, out


@pytest.mark.parametrize("game", ["bharg", "tethsi", "tusac"])
def test_rllib_core_gives_the_acting_agent_a_reward_entry_every_step(game):
    # Bharg's draw-then-discard: the same agent acts twice in a row and gets its
    # next observation in the same step; RLlib needs a reward entry with it.
    env = RLlibTurnCore({"game": game})
    rng = np.random.default_rng(0)
    twice = 0
    for seed in range(3):
        steps, (*_, infos) = _rllib_episode(
            env, seed, lambda o: int(rng.choice(np.flatnonzero(o["action_mask"]))))
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for (agent, r), nxt in zip(steps, [*steps[1:], None], strict=True):
            assert agent in r
            twice += nxt is not None and nxt[0] == agent
            for k, v in r.items():
                totals[k] += v
        returns = list(env.game.returns(env.state))
        assert [totals[a] for a in env.possible_agents] == returns
        for info in infos.values():  # numbers only, the detailed outcome kept aside
            assert info["returns"].tolist() == returns and isinstance(info["winner"], int)
        assert env.outcome == env.game.outcome(env.state)
    assert game != "bharg" or twice > 0


def test_rllib_core_terminates_on_an_illegal_action_by_default():
    env = RLlibTurnCore({"game": ToyGame})
    obs, _ = env.reset(seed=2)
    (agent,) = obs
    env.state.pile = 1  # only "take one" is legal now
    state = env.game.clone(env.state)
    obs, rew, terms, truncs, infos = env.step({agent: 1})
    assert terms["__all__"] and not truncs["__all__"] and set(obs) == set(env.possible_agents)
    assert rew == {a: (-1.0 if a == agent else 0.0) for a in env.possible_agents}
    assert all(not o["action_mask"].any() for o in obs.values())
    assert env.state == state  # the game stopped as it was
    seat = env.possible_agents.index(agent)
    assert all(i["illegal_action"] and i["offender"] == seat for i in infos.values())
    assert infos[agent]["returns"].tolist() == [rew[a] for a in env.possible_agents]
    assert env.outcome["offender"] == agent and "illegal action 1" in env.outcome["reason"]
    with pytest.raises(RuntimeError, match="after the game ended"):
        env.step({agent: 0})
    raising = RLlibTurnCore({"game": ToyGame, "illegal_action": "raise", "illegal_reward": -3})
    obs, _ = raising.reset(seed=2)
    raising.state.pile = 1
    with pytest.raises(ValueError, match="illegal action 1"):
        raising.step({next(iter(obs)): 1})
    with pytest.raises(ValueError, match="illegal_action 'ignore'"):
        RLlibTurnCore({"game": ToyGame, "illegal_action": "ignore"})


def test_rllib_keys_renames_a_pettingzoo_env_for_rllib():
    from setgames.aec import make_env
    from setgames.wrappers.rllib import rllib_keys
    from tests.setgames.toy_game import make_toy_env_class

    env = rllib_keys(make_env(make_toy_env_class()))
    env.reset(seed=0)
    space = env.observation_space("player_0")
    assert space is env.observation_space("player_1") and space == rllib_obs_space(env.unwrapped.game)
    while True:
        obs, _, term, trunc, _ = env.last()
        assert space.contains(obs) and set(obs) == {"observations", "action_mask"}
        if term or trunc:
            break
        raw = env.env.observe(env.agent_selection)
        assert np.array_equal(obs["observations"], raw["observation"].astype(np.float32))
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.outcome() == env.unwrapped.outcome()


def test_turn_based_final_info_is_numbers_and_outcome_the_rest():
    env = TurnBasedEnv("bharg")
    steps = _episode(env, 3, lambda o: int(np.flatnonzero(o["mask"])[0]))
    info = steps[-1][3]
    assert info["closing"] and info["returns"].dtype == np.float32
    assert info["returns"].tolist() == list(env.game.returns(env.state))
    assert all(isinstance(v, (bool, int, np.ndarray)) for v in info.values())
    assert env.outcome == env.game.outcome(env.state) and "reason" in env.outcome
