"""Where each game lives, so tools can name games by a short string.

Imports are lazy: the tools layer names the games, the games never import
the tools.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["GAME_NAMES", "env_class", "game_class", "make_game"]

_WHERE = {
    "tethsi": ("tethsi_env.rules", "TetHsiGame", "tethsi_env.env", "raw_env"),
    "bharg": ("bharg_env.rules", "BhargGame", "bharg_env.env", "raw_env"),
    "tusac": ("tusac_env.rules", "TuSacGame", "tusac_env.env", "raw_env"),
}
GAME_NAMES = tuple(_WHERE)


def _check(name: str) -> tuple[str, str, str, str]:
    try:
        return _WHERE[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; choose from {', '.join(GAME_NAMES)}") from None


def game_class(name: str) -> type:
    """The :class:`~setgames.game.Game` subclass of game ``name``."""
    mod, cls, _, _ = _check(name)
    return getattr(importlib.import_module(mod), cls)


def env_class(name: str) -> type:
    """The bare AEC env class (``raw_env``) of game ``name``."""
    _, _, mod, cls = _check(name)
    return getattr(importlib.import_module(mod), cls)


def make_game(name: str, **config: Any) -> Any:
    """The rules of game ``name`` under ``config`` (validated)."""
    return game_class(name)(**config)
