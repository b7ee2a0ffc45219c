"""The Gymnasium 1.x ``VectorEnv`` view of a batched engine, for single-agent trainers.

The learner plays one seat of every slot; the batch plays the others inside
its C step (``opponents="random"`` or ``"greedy"``), so each step is one
learner decision per slot. Contract (Gymnasium 1.x, as its ``SyncVectorEnv``
keeps it):

- **Autoreset**: ``autoreset_mode`` takes every spelling of
  :mod:`setgames.batch.modes` (an ``AutoresetMode`` member, ``"SameStep"``,
  ``"SAME_STEP"``, ``"same_step"``, ...); the default is
  :data:`~setgames.batch.modes.DEFAULT_AUTORESET`, ``SAME_STEP``: the step
  that ends a slot's game returns the next game's first observation, and the
  infos carry ``final_obs`` (an object array: the ended slots' last
  observations, None elsewhere) and ``final_info`` (a dict of arrays, each
  with its ``_``-mask: the ending step's infos), with their masks
  ``_final_obs`` and ``_final_info``. ``NEXT_STEP``: the step after an end
  deals, its action ignored. ``DISABLED``: an ended slot stays over;
  stepping while one is over raises the batch's ``ValueError``, as
  Gymnasium's own vector envs refuse it, until
  ``reset(options={"reset_mask": mask})`` deals in the masked slots. The mode
  is ``env.autoreset_mode`` and ``env.metadata["autoreset_mode"]`` (an
  ``AutoresetMode``).
- ``reset(seed=s)`` seeds slot ``i`` with ``s + i``: its first game is the
  game ``raw_env().reset(seed=s + i)`` deals.
- **Rewards**: what the learner's seat earned on the step. What it earns
  before its first move of a game (match play: the seats before it can
  score) is added to its first step's reward in that game, as
  :class:`~setgames.wrappers.SingleAgentEnv` and the batch do, so a game's
  rewards sum to its returns for the learner's seat.
- **Illegal actions**: ``illegal_action="terminate"`` (default: the clients
  that cannot mask, plain SB3 ``PPO``, CleanRL's ``ppo.py``, TorchRL's spec
  probe, are this view's common users) ends that slot's game with
  ``illegal_reward`` (default -1.0) for the learner, the other slots stepping
  on; ``"raise"`` keeps the batch's ``ValueError`` (no slot moves).
  Actions are integers (an integer array or a list of ints); floats are
  refused in one line, never cast.
- **Infos** are dicts of arrays, each with its ``_key`` bool mask:
  ``action_mask`` (every slot, ``bool``: the dtype of :meth:`action_masks`
  too) and ``skipped_deals`` (every slot, int64: how many deals the slot has
  skipped, see below); where a game ended on this step ``seed`` (the seed
  that replays it, int64), ``learner_seat`` and ``illegal_action`` (True where an
  illegal action ended it). Under ``SAME_STEP`` ``final_info`` holds those
  three and the final ``action_mask`` (all False) for the ended slots; the
  top-level ``action_mask`` is then the next game's.
- **Short deals**: a deal that ends before the learner acts is, under
  ``short_deals="skip"`` (default), not played (the slot deals the next one,
  counted in ``skipped_deals``); under ``"play"`` it is a one-step episode:
  the learner sees the finished deal with only action 0 legal, a no-op whose
  step pays its rewards of the deal and ends the episode.
- **Render**: ``render_mode="rgb_array"`` makes :meth:`BatchVectorEnv.render`
  return a tuple of ``(H, W, 3) uint8`` frames, one per slot, of what the
  slot's learner may see (``render_view="spectator"``: everything; needs
  ``setgames[pictures]``); ``"ansi"`` returns the same as text.

Observations are the learner's int8 vectors (``game.obs_spec``); the arrays
returned are copies (trainers keep them across steps), the batch's step
itself allocates nothing.

>>> import gymnasium as gym
>>> from setgames.registry import game_names
>>> envs = gym.make_vec(f"setgames/{game_names()[0]}-v0", num_envs=4, vectorization_mode="vector_entry_point")
>>> obs, infos = envs.reset(seed=7)
>>> obs.shape, envs.action_masks().shape, envs.autoreset_mode.name
((4, 304), (4, 704), 'SAME_STEP')
>>> sorted(infos)
['_action_mask', '_skipped_deals', 'action_mask', 'skipped_deals']
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from setgames.aec import RENDER_FPS
from setgames.batch import make_batch
from setgames.batch.modes import DEFAULT_AUTORESET, gym_autoreset_mode
from setgames.wrappers._common import (
    ILLEGAL_ACTION_MODES,
    RENDER_VIEWS,
    SHORT_DEALS_MODES,
    check_view_options,
    integer_actions,
    render_slots,
)

__all__ = ["ILLEGAL_ACTION_MODES", "RENDER_MODES", "RENDER_VIEWS", "SHORT_DEALS_MODES", "BatchVectorEnv"]

RENDER_MODES = ["rgb_array", "ansi"]


class BatchVectorEnv(VectorEnv):
    """``num_envs`` games of one game as a Gymnasium ``VectorEnv`` on its batched engine.

    Args:
        game: a registry name (:func:`~setgames.registry.game_names`), a Game subclass or instance (required).
        num_envs: the number of slots.
        opponents: ``"random"``, ``"greedy"`` or ``"search:iters=N[,z=Z]"`` (the other seats,
            played in C).
        learner_seat: a seat, ``"rotate"`` or ``"random"`` (see :mod:`setgames.batch`).
        autoreset_mode: any spelling of :mod:`setgames.batch.modes` (default ``SAME_STEP``).
        illegal_action: ``"terminate"`` (default) or ``"raise"`` (see the module doc).
        illegal_reward: the learner's reward for an illegal action under ``"terminate"``.
        short_deals: ``"skip"`` (default) or ``"play"`` (see the module doc).
        render_mode: None, ``"rgb_array"`` or ``"ansi"``.
        render_view: ``"learner"`` (default) or ``"spectator"``: what the frames show.
        num_threads: threads of the batched step.
        seed: master seed used by the first ``reset()`` without a seed.
        **config: the game's options.

    Raises:
        ValueError: a bad option, or a game without a batched engine here.
    """

    def __init__(self, game: Any, num_envs: int = 1, opponents: str = "random",
                 learner_seat: int | str = 0, autoreset_mode: Any = DEFAULT_AUTORESET,
                 illegal_action: str = "terminate", illegal_reward: float = -1.0,
                 short_deals: str = "skip", render_mode: str | None = None,
                 render_view: str = "learner", num_threads: int = 1, seed: int | None = None,
                 **config: Any):
        mode = gym_autoreset_mode(autoreset_mode)
        self.game = check_view_options(game, config, opponents, illegal_action, short_deals,
                                       render_mode, RENDER_MODES, render_view)
        self.batch = make_batch(self.game, num_envs, seed=seed, num_threads=num_threads,
                                opponents=opponents, learner_seat=learner_seat, autoreset=mode.value,
                                illegal_action=illegal_action, illegal_reward=illegal_reward,
                                short_deals=short_deals)
        self.num_envs = num_envs
        self.autoreset_mode = mode
        self.metadata = {"autoreset_mode": mode, "render_modes": list(RENDER_MODES), "render_fps": RENDER_FPS}
        self.render_mode = render_mode
        self.render_view = render_view
        self.single_observation_space = self.game.obs_spec.box()
        self.single_action_space = spaces.Discrete(self.game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._all = np.ones(num_envs, dtype=bool)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal in every slot, or in those of ``options["reset_mask"]`` (a bool array of
        shape ``(num_envs,)``); ``seed`` seeds slot ``i`` with ``seed + i``."""
        mask = None if options is None else options.get("reset_mask")
        if seed is not None and not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed {seed!r} must be an int (slot i gets seed + i) or None")
        self.batch.reset(seed=seed, mask=mask)
        return self.batch.obs.copy(), self._infos()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One learner decision per slot (the opponents' replies happen inside).

        Raises:
            ValueError: float actions (refused, not cast); from the batch, under
                ``illegal_action="raise"`` an illegal action, and under ``DISABLED``
                a step while a slot's game is over.
        """
        b = self.batch
        b.step(integer_actions(actions, self.num_envs))
        ended = b.terminated | b.truncated
        infos = self._infos()
        if ended.any():
            self._add_ended(infos, ended)
        return b.obs.copy(), b.learner_reward.copy(), b.terminated.copy(), b.truncated.copy(), infos

    def _infos(self) -> dict[str, Any]:
        b = self.batch
        return {"action_mask": b.mask.astype(bool), "_action_mask": self._all.copy(),
                "skipped_deals": b.skipped_deals.copy(), "_skipped_deals": self._all.copy()}

    def _add_ended(self, infos: dict[str, Any], ended: np.ndarray) -> None:
        """The facts of the games that ended on this step, in ``infos`` (and, under
        ``SAME_STEP``, ``final_obs`` and ``final_info`` as Gymnasium builds them)."""
        b = self.batch
        # int64: seeds stay below 2**63 (setgames.batch.seeds), and torch has no uint64 indexing
        facts = {"seed": b.final_seed.astype(np.int64), "learner_seat": b.final_learner_seat.copy(),
                 "illegal_action": b.illegal & ended}
        for key, value in facts.items():
            infos[key] = value
            infos["_" + key] = ended.copy()
        if self.autoreset_mode is not AutoresetMode.SAME_STEP:
            return
        final_obs = np.full(self.num_envs, None, dtype=object)
        for i in np.flatnonzero(ended):
            final_obs[i] = b.final_obs[i].copy()
        final_info: dict[str, Any] = {
            "action_mask": np.zeros((self.num_envs, self.game.num_actions), dtype=bool),
            "_action_mask": ended.copy()}
        for key, value in facts.items():
            final_info[key] = value.copy()
            final_info["_" + key] = ended.copy()
        infos["final_obs"], infos["_final_obs"] = final_obs, ended.copy()
        infos["final_info"], infos["_final_info"] = final_info, ended.copy()

    def action_masks(self) -> np.ndarray:
        """The legal actions of every slot's learner, ``(num_envs, n_actions)`` bool."""
        return self.batch.mask.astype(bool)

    def render(self) -> tuple[Any, ...] | None:
        """One frame per slot (see the module doc); None without a ``render_mode``."""
        if self.render_mode is None:
            from gymnasium import logger

            logger.warn("render() called without a render_mode; pass render_mode=")
            return None
        return render_slots(self.batch, self.game, self.render_mode, self.render_view)

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release (the batch frees its C memory with itself)."""
