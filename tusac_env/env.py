"""Tu Sac as a PettingZoo AEC environment (``tusac_v0``).

``env(**config)`` is the wrapped environment (``illegal_action="raise"`` or
``"terminate"``), ``raw_env`` the bare one. Config: ``num_players`` (2-4),
``penalty_rule``, ``first_player``, ``reward_scale``; ``render_mode`` ``"ansi"``
or ``"human"``. Claims are automatic: ``agent_selection`` always names the
player whose decision is pending. See ``tusac_env/README.md``.
"""

from __future__ import annotations

from typing import Any

from setgames.aec import RENDER_FPS, RENDER_MODES, LeanWrapper, SetGameEnv, make_env
from tusac_env.rules import TuSacGame

__all__ = ["env", "raw_env"]


class raw_env(SetGameEnv):
    """The bare Tu Sac AEC environment."""

    game_class = TuSacGame
    metadata = {  # noqa: RUF012
        "render_modes": RENDER_MODES,
        "name": "tusac_v0",
        "is_parallelizable": False,
        "render_fps": RENDER_FPS,
    }


def env(**kwargs: Any) -> LeanWrapper:
    """The wrapped Tu Sac environment (see :func:`setgames.aec.make_env`)."""
    return make_env(raw_env, **kwargs)
