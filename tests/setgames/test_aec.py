"""The shared AEC plumbing, exercised through a tiny toy game."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from setgames.aec import LeanWrapper, make_env
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
