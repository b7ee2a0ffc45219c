"""Bharg as a PettingZoo AEC environment (``bharg_v0``).

Agents ``player_0`` .. ``player_{n-1}``; one ``Discrete(47)`` action space
(draw from the deck, take the discard top, discard a card by id); an ``int8``
observation documented in ``bharg_env/README.md``; the action mask in the
observation dict and in ``infos[agent]["action_mask"]``. Config keywords:
see :class:`bharg_env.rules.BhargConfig`.

>>> e = env(num_players=3, pawns=True)
>>> e.reset(seed=1)
>>> e.agent_selection, e.observe("player_0")["action_mask"][:2].tolist()
('player_0', [1, 1])
"""

from __future__ import annotations

from typing import Any

from bharg_env.rules import BhargGame
from setgames.aec import RENDER_FPS, RENDER_MODES, LeanWrapper, SetGameEnv, make_env

__all__ = ["env", "raw_env"]


class raw_env(SetGameEnv):
    """The bare Bharg AEC env (no wrapper)."""

    game_class = BhargGame
    metadata = {"render_modes": RENDER_MODES, "name": "bharg_v0", "is_parallelizable": False,  # noqa: RUF012
                "render_fps": RENDER_FPS}


def env(illegal_action: str = "raise", illegal_reward: float = -1.0, **config: Any) -> LeanWrapper:
    """Bharg wrapped for users: ``illegal_action="raise"`` (ValueError) or ``"terminate"``."""
    return make_env(raw_env, illegal_action=illegal_action, illegal_reward=illegal_reward, **config)
