"""What the client tests share: the games, their AEC envs, random legal play."""

from __future__ import annotations

from typing import Any

import numpy as np

from setgames.aec import make_env
from setgames.registry import GAME_NAMES, env_class

GAMES = list(GAME_NAMES)


def aec_env(game: str, **kwargs: Any) -> Any:
    """``<game>_env.env(**kwargs)``, named through the registry."""
    return make_env(env_class(game), **kwargs)


def legal_choice(mask: Any, rng: np.random.Generator) -> int:
    """A uniformly random action among the nonzero entries of ``mask``."""
    legal = np.flatnonzero(np.asarray(mask))
    assert legal.size, "an empty mask for the agent to act"
    return int(legal[rng.integers(legal.size)])
