"""The env's engine path (setgames.engine) and the differential checks, on the toy game."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

from setgames.aec import SetGameEnv, make_env
from setgames.engine import ENGINE_ENV_VAR, engine_class
from setgames.testing import check_engine_matches_rules, check_env_engine_matches_rules
from tests.setgames.toy_engine import Engine, ToyGameWithEngine
from tests.setgames.toy_game import ToyGame, make_toy_env_class

ToyEnv = make_toy_env_class()


class ToyEngineEnv(SetGameEnv):
    game_class = ToyGameWithEngine
    metadata = {"render_modes": ["ansi", "human"], "name": "toy_v0"}  # noqa: RUF012


def _with_one_token_left(env, seed):
    """``env`` reset with ``seed``, then continued from the same deal with one token left."""
    env.reset(seed=seed)
    base = env.unwrapped
    state = base.game.from_json(base.game.to_json(base.game_state))
    state.pile = 1
    base.set_game_state(state)
    return env


def test_env_steps_the_engine_and_plays_the_rules_layers_games():
    steps = check_env_engine_matches_rules(lambda **kw: make_env(ToyEngineEnv, **kw), range(40))
    assert steps > 200
    env = ToyEngineEnv()
    env.reset(seed=5)
    env.step(0)
    assert env.engine.applied == 1


def test_api_test_passes_on_the_engine_path():
    api_test(ToyEngineEnv(), num_cycles=100)
    api_test(make_env(ToyEngineEnv), num_cycles=100)


def test_game_state_is_a_snapshot_rebuilt_after_each_step():
    env = ToyEngineEnv()
    env.reset(seed=2)
    pile = env.game_state.pile
    env.step(0)
    assert env.game_state.pile == pile - 1 == env.engine.state.pile
    env.game_state.pile = 1  # a snapshot: the engine's game goes on unchanged
    assert env.engine.state.pile == pile - 1


def test_set_game_state_loads_the_engine():
    env = _with_one_token_left(ToyEngineEnv(), seed=2)
    assert env.engine.state.pile == 1
    assert np.flatnonzero(env.last()[0]["action_mask"]).tolist() == [0]
    env.step(0)
    assert all(env.terminations.values())


def test_engine_option_is_checked():
    assert ToyEnv().engine is None and ToyEngineEnv(engine=False).engine is None
    with pytest.raises(ValueError, match="no compiled engine"):
        ToyEnv(engine=True)
    with pytest.raises(ValueError, match="engine 'yes'"):
        ToyEngineEnv(engine="yes")


def test_environment_variable_switches_engines_off(monkeypatch):
    assert engine_class(ToyGameWithEngine()) is Engine
    monkeypatch.setenv(ENGINE_ENV_VAR, "0")
    assert engine_class(ToyGameWithEngine()) is None
    assert ToyEngineEnv().engine is None


def test_differential_check_passes_a_faithful_engine_and_catches_a_wrong_one():
    assert check_engine_matches_rules(ToyGameWithEngine(), range(20)) > 50

    class OffByOne(Engine):
        def observe(self, seat):
            out = super().observe(seat)
            if self.state.pile == 3:
                out[0] += 1
            return out

    with pytest.raises(AssertionError, match="observation differs"):
        check_engine_matches_rules(ToyGameWithEngine(), range(20), engine_cls=OffByOne)
    with pytest.raises(AssertionError, match="no compiled engine"):
        check_engine_matches_rules(ToyGame(), range(2))


def test_illegal_action_on_the_engine_path_raises_the_rules_layers_error_and_changes_nothing():
    env = _with_one_token_left(ToyEngineEnv(), seed=0)
    with pytest.raises(ValueError, match=r"illegal action 1 \(take 2\); legal: 0 \(take 1\)"):
        env.step(1)
    with pytest.raises(ValueError, match="illegal action 5"):
        env.step(5)
    assert env.engine.applied == 0 and env.game_state.pile == 1


def test_terminate_option_on_the_engine_path():
    env = _with_one_token_left(make_env(ToyEngineEnv, illegal_action="terminate"), seed=0)
    offender = env.agent_selection
    env.step(1)
    assert all(env.terminations.values()) and env._cumulative_rewards[offender] == -1.0


def test_every_game_has_its_engine_built_where_ci_requires_it():
    # .ci/run sets SETGAMES_REQUIRE_ENGINES=1: the engines are optional extensions, so a
    # failed compile would otherwise leave CI green on the rules layer alone.
    import os

    from setgames.registry import make_game

    if os.environ.get("SETGAMES_REQUIRE_ENGINES") != "1":
        pytest.skip("SETGAMES_REQUIRE_ENGINES is not set")
    missing = [name for name in ("tethsi", "bharg", "tusac") if engine_class(make_game(name)) is None]
    assert not missing, f"compiled engines not built: {missing}"
    from setgames import seeding

    assert seeding._c_words32 is not None, "setgames._seedhash not built"
    from tusac_env import greedy as greedy_tusac

    assert greedy_tusac._tusac_greedy is not None, "tusac_env._greedy not built"
    # The batched engines and the compiled bots: their tests skip when they are not built.
    from setgames.batch import batch_class

    unbatched = [name for name in ("tethsi", "bharg", "tusac") if batch_class(make_game(name)) is None]
    assert not unbatched, f"batched engines not built: {unbatched}"
    import importlib

    for module in ("tethsi_env._greedy", "bharg_env._greedy", "setgames.batch._rng"):
        importlib.import_module(module)  # an ImportError names what was not built
