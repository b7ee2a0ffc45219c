"""A game seen in another observation mode: what a policy trained on ``structure`` reads
while it plays a game made in ``cards`` (the arena's, the web table's).

A game's states do not depend on its observation mode (:mod:`setgames.obs`), so a copy of
the game with the other mode observes the same state as the policy was trained to see it.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from setgames.game import Game
from setgames.obs import DEFAULT_OBS

__all__ = ["game_obs", "in_mode"]


def game_obs(game: Game) -> str:
    """The observation mode ``game`` was made with (``cards`` for a game without the option)."""
    return str(getattr(game.config, "obs", DEFAULT_OBS))


def in_mode(game: Game, mode: str) -> Game:
    """``game`` itself when it observes in ``mode``, else the same game in ``mode``.

    Raises:
        ValueError: the game does not offer ``mode`` (one line naming the modes it does).
    """
    if game_obs(game) == mode:
        return game
    offered = tuple(getattr(game, "obs_specs", None) or {DEFAULT_OBS: None})
    if mode not in offered:
        raise ValueError(f"{game.name} has no observation mode {mode!r}; it offers {', '.join(offered)}")
    return _made(type(game), json.dumps({**game.config_dict(), "obs": mode}, sort_keys=True))


@functools.lru_cache(maxsize=64)
def _made(cls: type, config: str) -> Any:
    # Games are immutable once made, so one copy per config serves every bot that asks.
    return cls(**json.loads(config))
