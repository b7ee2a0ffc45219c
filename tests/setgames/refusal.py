"""Helpers for the state-validation tests of every game: a refused state changes nothing."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest


def snapshot(env: Any) -> tuple:
    """What a refused ``set_game_state`` must leave as it was: the state, seed and actions."""
    return env.seed_used, list(env.actions), json.dumps(env.game.to_json(env.game_state), sort_keys=True)


def assert_refused(env_class: type, config: dict[str, Any], state: Any, match: str) -> None:
    """``set_game_state(state)`` raises a one-line ValueError matching ``match`` on the
    engine and on the rules layer, after a few steps of a seeded game, changing nothing;
    the env then still plays its own game."""
    for engine in (True, False):
        env = env_class(engine=engine, **config)
        env.reset(seed=5)
        for _ in range(3):
            env.step(int(env.action_mask().nonzero()[0][0]))
        before = snapshot(env)
        with pytest.raises(ValueError, match=match) as info:
            env.set_game_state(copy.deepcopy(state))
        assert "\n" not in str(info.value)
        assert snapshot(env) == before
        env.step(int(env.action_mask().nonzero()[0][0]))  # the old game goes on


def edited(game: Any, state: Any, **fields: Any) -> Any:
    """A copy of ``state`` with ``fields`` set by hand (no check: what a careless caller makes)."""
    twin = copy.deepcopy(state)
    for name, value in fields.items():
        setattr(twin, name, value)
    return twin
