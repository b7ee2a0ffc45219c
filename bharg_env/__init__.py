"""Bharg (2-3 players, Decktet): set-collection card game as a PettingZoo AEC env.

``env(**config)`` for users, ``raw_env`` for the bare env, ``BhargGame`` for
the pure rules. See ``bharg_env/README.md``.
"""

from bharg_env.env import env, raw_env
from bharg_env.rules import BhargGame

__all__ = ["BhargGame", "env", "raw_env"]
