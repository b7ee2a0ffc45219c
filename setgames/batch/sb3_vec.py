"""The Stable-Baselines3 ``VecEnv`` view of a batched engine (needs ``stable-baselines3``).

One learner decision per slot and step, the other seats played in C inside
the batch's step; a finished game's slot deals its next game in the same
step and reports ``infos[i]["terminal_observation"]``, as SB3's vector envs
do. ``env_method("action_masks")`` returns every slot's mask at once, so
sb3-contrib's ``MaskablePPO`` trains on it unchanged:

>>> from sb3_contrib import MaskablePPO                                  # doctest: +SKIP
>>> venv = BatchVecEnv("tethsi", num_envs=64, opponents="greedy")       # doctest: +SKIP
>>> MaskablePPO("MlpPolicy", venv).learn(10_000)                         # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

try:  # the training extras; without them the module imports and the class refuses to build
    from stable_baselines3.common.vec_env import VecEnv
except ImportError:  # pragma: no cover - depends on the install
    VecEnv = object  # type: ignore[assignment,misc]
from setgames.batch import make_batch
from setgames.wrappers._common import resolve_game

__all__ = ["BatchVecEnv"]


class BatchVecEnv(VecEnv):
    """``num_envs`` games of one game as an SB3 ``VecEnv`` on its batched engine.

    Args:
        game: a registry name (``"tethsi"``), a Game subclass or instance.
        num_envs: the number of slots.
        opponents: ``"random"`` or ``"greedy"``.
        learner_seat: a seat, ``"rotate"`` or ``"random"``.
        num_threads: threads of the batched step.
        seed: master seed (slot ``i``'s first game: ``seed + i``); ``seed()`` sets the next one.
        **config: the game's options.
    """

    def __init__(self, game: Any = "tethsi", num_envs: int = 1, opponents: str = "random",
                 learner_seat: int | str = 0, num_threads: int = 1, seed: int | None = None,
                 **config: Any):
        if VecEnv is object:
            raise ImportError("BatchVecEnv needs stable-baselines3 (pip install -e '.[train]')")
        if opponents not in ("random", "greedy"):
            raise ValueError(f"opponents {opponents!r} must be 'random' or 'greedy': "
                             f"the view is single-agent")
        self.game = resolve_game(game, config)
        self.batch = make_batch(self.game, num_envs, seed=seed, num_threads=num_threads,
                                opponents=opponents, learner_seat=learner_seat, autoreset="same_step")
        self.render_mode = None  # no rendering (SB3 warns when the attribute is missing)
        super().__init__(num_envs, self.game.obs_spec.box(), spaces.Discrete(self.game.num_actions))
        self._next_seed = seed
        self._actions = np.zeros(num_envs, dtype=np.int64)

    def reset(self) -> np.ndarray:
        """Deal in every slot (from the seed given to :meth:`seed`, once)."""
        self.batch.reset(seed=self._next_seed)
        self._next_seed = None
        return self.batch.obs.copy()

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the next :meth:`reset`: slot ``i`` gets ``seed + i``."""
        self._next_seed = seed
        return [None if seed is None else seed + i for i in range(self.num_envs)]

    def step_async(self, actions: np.ndarray) -> None:
        """Keep the actions for :meth:`step_wait`."""
        np.copyto(self._actions, np.asarray(actions).reshape(self.num_envs), casting="unsafe")

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Step every slot: ``(obs, rewards, dones, infos)``."""
        b = self.batch
        b.step(self._actions)
        dones = b.terminated | b.truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            infos[i] = {"terminal_observation": b.final_obs[i].copy(),
                        "TimeLimit.truncated": bool(b.truncated[i] and not b.terminated[i]),
                        "seed": int(b.final_seed[i]), "learner_seat": int(b.final_learner_seat[i])}
        return b.obs.copy(), b.learner_reward.copy(), dones, infos

    def action_masks(self) -> np.ndarray:
        """Every slot's legal actions, ``(num_envs, n_actions)`` bool."""
        return self.batch.mask.astype(bool)

    def close(self) -> None:
        """Nothing to release."""

    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """The attribute of the view, once per slot asked for (the slots share one engine)."""
        value = getattr(self, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        """Set an attribute of the view (the slots share it)."""
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
                   ) -> list[Any] | np.ndarray:
        """``action_masks`` returns all the slots' masks as one ``(n, n_actions)`` array (what
        MaskablePPO stacks); any other method of the view is called once per slot asked for."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return masks if len(idx) == self.num_envs else masks[idx]
        method = getattr(self, method_name)
        return [method(*method_args, **method_kwargs) for _ in idx]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        """No slot is wrapped."""
        return [False for _ in self._indices(indices)]
