"""The shared AEC plumbing, exercised through a tiny toy game."""

from __future__ import annotations

import json
from decimal import Decimal

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from setgames.aec import LeanWrapper, make_env
from setgames.engine import engine_class
from setgames.records import replay
from setgames.registry import GAME_NAMES, env_class
from setgames.testing import check_env_mask_matches_rules, check_final_infos, check_random_play
from tests.setgames.toy_game import ToyGame, make_toy_env_class

ToyEnv = make_toy_env_class()


def test_api_test_passes_for_raw_and_wrapped_env():
    api_test(ToyEnv(), num_cycles=200)
    api_test(make_env(ToyEnv), num_cycles=200)


def test_seed_test_passes():
    seed_test(lambda: make_env(ToyEnv), num_cycles=50)
    seed_test(ToyEnv, num_cycles=50)


def test_random_play_invariants_hold_on_toy_game():
    assert check_random_play(ToyGame(), range(30)) > 0


def test_mask_matches_rules_through_env():
    for seed in range(10):
        check_env_mask_matches_rules(make_env(ToyEnv), seed)


def test_illegal_action_raises_and_leaves_state_unchanged():
    env = ToyEnv()
    env.reset(seed=0)
    env.game_state.pile = 1
    env._refresh(None)
    before = env.game.to_json(env.game_state)
    with pytest.raises(ValueError, match=r"illegal action 1 \(take 2\); legal: 0 \(take 1\)"):
        env.step(1)
    assert env.game.to_json(env.game_state) == before


def test_wrapper_errors_before_reset_and_out_of_bounds():
    env = make_env(ToyEnv)
    with pytest.raises(RuntimeError, match="before reset"):
        env.step(0)
    env.reset(seed=1)
    with pytest.raises(ValueError, match="outside the action space"):
        env.step(7)


def test_terminate_option_ends_game_with_penalty():
    env = make_env(ToyEnv, illegal_action="terminate")
    env.reset(seed=3)
    env.unwrapped.game_state.pile = 1
    env.unwrapped._refresh(None)
    offender = env.agent_selection
    env.step(1)
    other = next(a for a in env.agents if a != offender)
    assert env.terminations[offender] and env.terminations[other]
    assert env._cumulative_rewards[offender] == -1.0 and env._cumulative_rewards[other] == 0.0
    assert env.infos[other]["illegal_action"] is True


def test_bad_config_and_modes_raise_at_construction():
    with pytest.raises(ValueError, match="max_pile 99"):
        ToyEnv(max_pile=99)
    with pytest.raises(ValueError, match="render_mode"):
        ToyEnv(render_mode="rgb_array")
    with pytest.raises(ValueError, match="illegal_action"):
        make_env(ToyEnv, illegal_action="ignore")


def test_step_accepts_numpy_integers_and_records_actions():
    env = make_env(ToyEnv)
    env.reset(seed=5)
    env.step(np.int32(0))
    rec = env.unwrapped.record()
    assert rec["actions"] == [0] and rec["seed"] == 5 and rec["game"] == "toy"


def test_wrapper_is_a_pettingzoo_base_wrapper():
    env = make_env(ToyEnv)
    assert isinstance(env, LeanWrapper) and isinstance(env.unwrapped, ToyEnv)


# ------------------------------------------------ refused actions, seeds and env options
# Every game, on the rules layer and on its engine where one is built.
ENGINE_MODES = [(g, False) for g in GAME_NAMES] + [
    (g, True) for g in GAME_NAMES if engine_class(env_class(g)().game) is not None]
BAD_ACTIONS = [15.99, 15.0, "15", b"15", Decimal("15.5"), True, False, np.bool_(True),
               float("inf"), float("nan"), None, [15], np.array([15]), np.array(15.0), 1j]
OUT_OF_RANGE = [-1, 2**31, 2**31 + 15, 2**32 + 15, 2**63, 2**64 + 15, -2**63 - 1, 10**30, 10**5000]


def _env(game: str, engine: bool, wrapped: bool = False):
    cls = env_class(game)
    return make_env(cls, engine=engine) if wrapped else cls(engine=engine)


def _snapshot(env):
    base = env.unwrapped
    return (json.dumps(base.game.to_json(base.game_state), sort_keys=True), list(base.actions),
            base.agent_selection, base.seed_used, base._mask.tobytes())


@pytest.mark.parametrize(("game", "engine"), ENGINE_MODES)
@pytest.mark.parametrize("wrapped", [False, True])
def test_step_refuses_floats_strings_bytes_decimals_bools_with_state_unchanged(game, engine, wrapped):
    env = _env(game, engine, wrapped)
    env.reset(seed=3)
    env.step(int(np.flatnonzero(env.unwrapped._mask)[0]))
    before = _snapshot(env)
    for bad in BAD_ACTIONS:
        if bad is None:  # None is the dead-agent step: refused for a live agent
            continue
        with pytest.raises(ValueError, match="is not an integer action id"):
            env.step(bad)
        assert _snapshot(env) == before, bad


@pytest.mark.parametrize(("game", "engine"), ENGINE_MODES)
@pytest.mark.parametrize("wrapped", [False, True])
def test_step_refuses_ids_beyond_a_c_int_and_negative_as_value_error(game, engine, wrapped):
    env = _env(game, engine, wrapped)
    env.reset(seed=4)
    before = _snapshot(env)
    for bad in OUT_OF_RANGE:
        with pytest.raises(ValueError, match=r"out of range|outside the action space") as info:
            env.step(bad)
        assert type(info.value) is not OverflowError and len(str(info.value)) < 2000
        assert _snapshot(env) == before, bad


@pytest.mark.parametrize(("game", "engine"), ENGINE_MODES)
def test_step_accepts_0d_integer_arrays_and_numpy_integers(game, engine):
    env, ref = _env(game, engine), _env(game, engine)
    env.reset(seed=6)
    ref.reset(seed=6)
    kinds = (np.array, np.int64, np.uint16, int)
    for i in range(12):
        if not env.agents or env.terminations[env.agent_selection]:
            break
        a = int(np.flatnonzero(env._mask)[0])
        env.step(kinds[i % 4](a))
        ref.step(a)
    assert env.actions == ref.actions and all(type(a) is int for a in env.actions)


@pytest.mark.parametrize(("game", "engine"), ENGINE_MODES)
@pytest.mark.parametrize("bad", [-1, 2**63, 1.5, "7", True, np.float64(7)])
def test_reset_with_a_refused_seed_changes_nothing(game, engine, bad):
    env = _env(game, engine)
    env.reset(seed=7)
    for _ in range(3):
        env.step(int(np.flatnonzero(env._mask)[0]))
    before = _snapshot(env)
    with pytest.raises(ValueError, match=r"seed .* must be an integer 0\.\.2"):
        env.reset(seed=bad)
    assert _snapshot(env) == before
    assert replay(env.record()).state is not None  # the record still replays
    # Unseeded resets after the refusal draw what they draw without it.
    clean = _env(game, engine)
    clean.reset(seed=7)
    env.reset()
    clean.reset()
    assert env.seed_used == clean.seed_used


@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.parametrize("bad", [0, 1, "yes", np.bool_(True), 0.0, "auto"])
def test_engine_option_is_exactly_none_true_or_false(game, bad):
    with pytest.raises(ValueError, match=r"engine .* must be None \(use one when built\), True or False"):
        env_class(game)(engine=bad)


@pytest.mark.parametrize("bad", [float("inf"), float("nan"), 1e7, "-1", True, None])
def test_illegal_reward_is_finite_and_bounded(bad):
    with pytest.raises(ValueError, match="illegal_reward"):
        make_env(ToyEnv, illegal_reward=bad)
    assert make_env(ToyEnv, illegal_reward=np.float32(-2.5))._illegal_reward == -2.5


def test_final_infos_carry_outcome_numbers_and_outcome_the_rest():
    # The toy outcome has a string reason: outcome() keeps it, the infos do not.
    env = make_env(ToyEnv)
    shapes = check_final_infos(env, range(8))
    assert shapes == {"action_mask": ("array", "i", (2,)), "winner": ("int",)}
    assert env.outcome() == {"winner": env.unwrapped.game_state.winner, "reason": "last token"}
    env.reset(seed=1)
    assert env.outcome()["winner"] == -1  # a running game: the game's outcome so far


def test_terminate_option_infos_are_numbers_and_outcome_words_them():
    env = make_env(ToyEnv, illegal_action="terminate")
    env.reset(seed=3)
    env.unwrapped.game_state.pile = 1
    env.unwrapped._refresh(None)
    offender = env.agent_selection
    env.step(1)
    seat = env.unwrapped._seat_of[offender]
    for info in env.infos.values():
        rest = {k: v for k, v in info.items() if k not in ("action_mask", "returns")}
        assert rest == {"illegal_action": True, "offender": seat, "winner": -1}
        assert info["returns"].tolist() == [-1.0 if s == seat else 0.0 for s in range(2)]
    out = env.outcome()
    assert out["offender"] == offender and out["illegal_action"]
    assert out["reason"].startswith("illegal action 1 (")
    env.reset(seed=3)
    assert "illegal_action" not in env.outcome()  # a new game forgets it


@pytest.mark.parametrize("module", ["tethsi_env", "bharg_env", "tusac_env"])
@pytest.mark.parametrize("engine", [None, False])
def test_an_env_pickles_mid_game_and_plays_on_the_same(module, engine):
    import importlib
    import pickle

    mod = importlib.import_module(module)
    for make in (mod.env, mod.raw_env):
        env = make(engine=engine)
        assert pickle.loads(pickle.dumps(env)).possible_agents == env.possible_agents  # before reset
        env.reset(seed=21)
        rng = np.random.default_rng(5)
        copies = []
        for step in range(400):
            agent = env.agent_selection
            if step in (0, 5, 15, 60):
                copies.append((pickle.loads(pickle.dumps(env)), step))
            if env.terminations[agent] or env.truncations[agent]:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"])))
            env.step(action)
            for twin, _ in copies:
                twin.step(action)
                assert twin.agent_selection == env.agent_selection
                assert twin._cumulative_rewards == env._cumulative_rewards
                assert twin.terminations == env.terminations
                if env.agents:
                    a = env.agent_selection
                    for key in ("observation", "action_mask"):
                        np.testing.assert_array_equal(twin.observe(a)[key], env.observe(a)[key])
            if not env.agents:
                break
        assert not env.agents and len(copies) >= 2
        after = pickle.loads(pickle.dumps(env))  # and once the game is over
        assert after.agents == [] and after.record() == env.record()


def test_action_features_info_holds_the_acting_agents_rows_and_only_its():
    # The rows are the rules layer's for the seat to act, aligned with the mask; the agent that
    # waits gets none (its mask is all zeros).
    env = ToyEnv(action_features=True)
    env.reset(seed=4)
    game = env.game
    for agent in env.agent_iter(50):
        _, _, done, trunc, info = env.last()
        if done or trunc:
            env.step(None)
            continue
        seat = env._seat_of[agent]
        want = game.action_features(env.game_state, seat)
        np.testing.assert_array_equal(info["action_features"], want)
        assert (info["action_features"][info["action_mask"] == 0] == 0).all()
        for other in env.agents:
            if other != agent:
                assert "action_features" not in env.infos[other]
        env.step(int(np.flatnonzero(info["action_mask"])[-1]))


def test_action_features_are_off_by_default_and_refused_where_a_game_has_none():
    env = ToyEnv()
    env.reset(seed=1)
    assert "action_features" not in env.infos[env.agent_selection]
    with pytest.raises(ValueError, match="must be True or False"):
        ToyEnv(action_features=1)
    no_rows = make_toy_env_class()
    no_rows.game_class = type("NoRows", (ToyGame,), {})
    original = ToyGame.__init__

    def init(self, *a, **k):
        original(self, *a, **k)
        self.action_spec = None

    no_rows.game_class.__init__ = init
    with pytest.raises(ValueError, match="no per-action features"):
        no_rows(action_features=True)
