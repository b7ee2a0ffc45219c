"""Tet Hsi as a PettingZoo AEC environment.

``env(**config)`` is the wrapped environment (illegal actions raise, or end
the game with ``illegal_action="terminate"``); ``raw_env`` is the bare AEC env.
Agents ``player_0`` and ``player_1``; every decision of a turn (discard, take /
set / nothing, play) is one step of the same agent. Observations are
``{"observation": int8 (304,), "action_mask": int8 (704,)}``; the layout is in
``tethsi_env/README.md``. Rewards come at the end only: +1 / -1, 0 for a tie;
``infos`` then carry the outcome and its reason.

>>> e = env(render_mode="ansi")
>>> e.reset(seed=3)
>>> e.agent_selection, int(e.observe("player_0")["action_mask"].sum())
('player_0', 2)
"""

from __future__ import annotations

from typing import Any, ClassVar

from setgames.aec import RENDER_FPS, RENDER_MODES, LeanWrapper, SetGameEnv, make_env
from tethsi_env.rules import TetHsiGame

__all__ = ["env", "raw_env"]


class raw_env(SetGameEnv):
    """The bare Tet Hsi AEC env; keyword arguments are the game config plus ``render_mode``."""

    game_class = TetHsiGame
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": RENDER_MODES,
        "name": "tethsi_v0",
        "is_parallelizable": False,
        "render_fps": RENDER_FPS,
    }


def env(**config: Any) -> LeanWrapper:
    """The wrapped Tet Hsi env: ``illegal_action`` ("raise" or "terminate"),
    ``illegal_reward``, ``render_mode`` and the game config (``first_player``)."""
    return make_env(raw_env, **config)
