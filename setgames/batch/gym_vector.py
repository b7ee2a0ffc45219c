"""The Gymnasium 1.x ``VectorEnv`` view of a batched engine, for single-agent trainers.

The learner plays one seat of every slot; the batch plays the others inside
its C step (``opponents="random"`` or ``"greedy"``), so each step is one
learner decision per slot. Contract (Gymnasium 1.x):

- ``metadata["autoreset_mode"]`` is an ``AutoresetMode``: ``NEXT_STEP``
  (default: the step after a game ends deals the next one and ignores its
  action), ``SAME_STEP`` (the ending step returns the next game's first
  observation, the last one in ``infos["final_obs"]``) or ``DISABLED`` (ended
  slots stay over until ``reset(options={"reset_mask": mask})``).
- ``reset(seed=s)`` seeds slot ``i`` with ``s + i``: its first game is the
  game ``raw_env().reset(seed=s + i)`` deals.
- infos are dicts of arrays, each with its ``_key`` bool mask:
  ``action_mask`` (every slot), and where a game ended on this step ``seed``
  (the seed that replays it), ``learner_seat`` and, under ``SAME_STEP``,
  ``final_obs``.
- ``action_masks()`` returns the ``(num_envs, n_actions)`` masks.

Observations are the learner's int8 vectors (``game.obs_spec``); the arrays
returned are copies (trainers keep them across steps), the batch's step
itself allocates nothing.

>>> import gymnasium as gym
>>> envs = gym.make_vec("setgames/tethsi-v0", num_envs=4, vectorization_mode="vector_entry_point")
>>> obs, infos = envs.reset(seed=7)
>>> obs.shape, envs.action_masks().shape, sorted(infos)
((4, 304), (4, 704), ['_action_mask', 'action_mask'])
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from setgames.batch import make_batch
from setgames.wrappers._common import resolve_game

__all__ = ["BatchVectorEnv"]

_AUTORESET = {AutoresetMode.NEXT_STEP: "next_step", AutoresetMode.SAME_STEP: "same_step",
              AutoresetMode.DISABLED: "disabled"}


class BatchVectorEnv(VectorEnv):
    """``num_envs`` games of one game as a Gymnasium ``VectorEnv`` on its batched engine.

    Args:
        game: a registry name (``"tethsi"``), a Game subclass or instance.
        num_envs: the number of slots.
        opponents: ``"random"`` or ``"greedy"`` (the other seats, played in C).
        learner_seat: a seat, ``"rotate"`` or ``"random"`` (see :mod:`setgames.batch`).
        autoreset_mode: an ``AutoresetMode`` (or its value string).
        num_threads: threads of the batched step.
        seed: master seed used by the first ``reset()`` without a seed.
        **config: the game's options.

    Raises:
        ValueError: a bad option, or a game without a batched engine here.
    """

    def __init__(self, game: Any = "tethsi", num_envs: int = 1, opponents: str = "random",
                 learner_seat: int | str = 0, autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
                 num_threads: int = 1, seed: int | None = None, **config: Any):
        if opponents not in ("random", "greedy"):
            raise ValueError(f"opponents {opponents!r} must be 'random' or 'greedy': the view is "
                             f"single-agent (step the batch itself for self-play)")
        mode = AutoresetMode(autoreset_mode)
        self.game = resolve_game(game, config)
        self.batch = make_batch(self.game, num_envs, seed=seed, num_threads=num_threads,
                                opponents=opponents, learner_seat=learner_seat,
                                autoreset=_AUTORESET[mode])
        self.num_envs = num_envs
        self.metadata = {"autoreset_mode": mode, "render_modes": []}
        self.render_mode = None
        self.single_observation_space = self.game.obs_spec.box()
        self.single_action_space = spaces.Discrete(self.game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._all = np.ones(num_envs, dtype=bool)
        self._actions = np.zeros(num_envs, dtype=np.int64)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal in every slot (or those of ``options["reset_mask"]``); ``seed`` seeds slot ``i``
        with ``seed + i``."""
        mask = None if options is None else options.get("reset_mask")
        if seed is not None and not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed {seed!r} must be an int (slot i gets seed + i) or None")
        self.batch.reset(seed=seed, mask=mask)
        return self.batch.obs.copy(), self._infos(ended=None)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One learner decision per slot (the opponents' replies happen inside)."""
        b = self.batch
        b.step(actions if type(actions) is np.ndarray else np.asarray(actions))
        ended = b.terminated | b.truncated
        return (b.obs.copy(), b.learner_reward.copy(), b.terminated.copy(), b.truncated.copy(),
                self._infos(ended))

    def _infos(self, ended: np.ndarray | None) -> dict[str, Any]:
        b = self.batch
        infos: dict[str, Any] = {"action_mask": b.mask.copy(), "_action_mask": self._all.copy()}
        if ended is not None and ended.any():
            infos["seed"] = b.final_seed.copy()
            infos["_seed"] = ended
            infos["learner_seat"] = b.final_learner_seat.copy()
            infos["_learner_seat"] = ended.copy()
            if self.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP:
                infos["final_obs"] = b.final_obs.copy()
                infos["_final_obs"] = ended.copy()
        return infos

    def action_masks(self) -> np.ndarray:
        """The legal actions of every slot's learner, ``(num_envs, n_actions)`` bool."""
        return self.batch.mask.astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release (the batch frees its C memory with itself)."""
