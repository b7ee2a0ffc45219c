"""A trained sb3-contrib ``MaskablePPO`` model as a :class:`~setgames.bots.Bot`,
so the arena can play it against the built-in bots.

``BotSpec("ppo", "ppo", (("path", "model.zip"),), factory=maskable_ppo_bot)``
lets :func:`setgames.arena.run_arena` build it in each worker. sb3-contrib is
imported when a model is loaded, not when this module is.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from setgames.bots.base import Bot
from setgames.game import Game

__all__ = ["MaskablePPOBot", "maskable_ppo_bot"]

# (path, mtime, size) -> loaded model: an arena loads each file once per process, and a file
# saved again at the same path (a checkpoint along a training run) is loaded again.
_MODELS: dict[tuple[str, int, int], Any] = {}


class MaskablePPOBot(Bot):
    """Plays a ``MaskablePPO`` policy on its seat's flat observation and mask.

    Args:
        model: a loaded ``MaskablePPO``, or the path of a saved one.
        seed: unused by a deterministic policy; seeds sampling otherwise.
        deterministic: take the most likely legal action (else sample).
        obs_mode: ``"flat"`` or ``"dict"``, as the model was trained.
    """

    name = "maskable_ppo"

    def __init__(self, model: Any, seed: int | None = None, deterministic: bool = True,
                 obs_mode: str = "flat"):
        super().__init__(seed)
        if isinstance(model, str):
            model = _load(model)
        self.model = model
        self.deterministic = bool(deterministic)
        if obs_mode not in ("flat", "dict"):
            raise ValueError(f"obs_mode {obs_mode!r} is not 'flat' or 'dict'")
        self.obs_mode = obs_mode

    def act(self, game: Game, state: Any, seat: int) -> int:
        """The policy's action (always legal: the mask is applied)."""
        obs = game.observe(state, seat)
        mask = game.legal_mask(state)
        if self.obs_mode == "dict":
            obs = {"observation": obs, "action_mask": mask}
        action, _ = self.model.predict(obs, action_masks=mask.astype(bool),
                                       deterministic=self.deterministic)
        return int(np.asarray(action).reshape(-1)[0])


def _load(path: str) -> Any:
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
    if key not in _MODELS:
        from sb3_contrib import MaskablePPO

        _MODELS[key] = MaskablePPO.load(path, device="cpu")
    return _MODELS[key]


def maskable_ppo_bot(game_name: str, seed: int | None = None, path: str = "",
                     deterministic: bool = True, obs_mode: str = "flat") -> MaskablePPOBot:
    """Arena factory: ``(game_name, seed, **options) -> Bot`` for a saved model at ``path``."""
    if not path:
        raise ValueError("maskable_ppo_bot needs path= (a saved MaskablePPO .zip)")
    return MaskablePPOBot(path, seed, deterministic, obs_mode)
