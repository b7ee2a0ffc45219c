"""Tet Hsi (2 players, the standard Decktet) as a PettingZoo AEC environment.

``env()`` / ``raw_env`` for PettingZoo users, :class:`TetHsiGame` for the pure
rules layer. See ``tethsi_env/README.md``.
"""

from tethsi_env.env import env, raw_env
from tethsi_env.rules import TetHsiGame

__all__ = ["TetHsiGame", "env", "raw_env"]
