"""The Stable-Baselines3 ``VecEnv`` view of a batched engine (needs ``stable-baselines3``).

One learner decision per slot and step, the other seats played in C inside
the batch's step. The contract is SB3's and the one vocabulary of the views
(:mod:`setgames.batch.gym_vector` states it in full):

- **Autoreset**: SB3's vector envs reset in the same step, so
  ``autoreset_mode`` takes the spellings of :mod:`setgames.batch.modes` and
  refuses any mode but ``same_step`` (the default); a finished game's slot
  deals its next game in the step that ended it and reports
  ``infos[i]["terminal_observation"]`` (and ``"TimeLimit.truncated"``).
- **Rewards**: what the learner's seat earns before its first move of a game
  is added to its first step's reward in that game (the batch does it; a
  game's rewards sum to its returns for the learner's seat).
- **Illegal actions**: ``illegal_action="terminate"`` (default: plain
  ``PPO`` samples unmasked actions) ends that slot's game with
  ``illegal_reward`` and ``infos[i]["illegal_action"] = True``; ``"raise"``
  keeps the batch's ``ValueError``. Float actions are refused, never cast.
- **Infos**: ``infos[i]["skipped_deals"]`` in every step's infos (deals the
  slot skipped because they ended before the learner acted, under
  ``short_deals="skip"``; ``"play"`` makes them one-step episodes whose only
  legal action, 0, pays the deal's rewards); where a game ended ``seed``
  (replays it), ``learner_seat`` and ``illegal_action``.
- **Masks**: ``env_method("action_masks")`` returns every slot's mask at
  once, ``(num_envs, n_actions)`` bool, so sb3-contrib's ``MaskablePPO``
  trains on the view unchanged.
- ``render_mode="rgb_array"``: ``get_images()`` draws each slot's learner view.

>>> from sb3_contrib import MaskablePPO                                  # doctest: +SKIP
>>> venv = BatchVecEnv(GAME, num_envs=64, opponents="greedy")          # doctest: +SKIP
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
from setgames.batch.modes import DEFAULT_AUTORESET
from setgames.batch.modes import autoreset_mode as read_autoreset
from setgames.wrappers._common import check_view_options, integer_actions, render_slots

__all__ = ["RENDER_MODES", "BatchVecEnv"]

RENDER_MODES = ["rgb_array"]


class BatchVecEnv(VecEnv):
    """``num_envs`` games of one game as an SB3 ``VecEnv`` on its batched engine.

    Args:
        game: a registry name (:func:`~setgames.registry.game_names`), a Game subclass or instance (required).
        num_envs: the number of slots.
        opponents: ``"random"``, ``"greedy"`` or ``"search:iters=N[,z=Z]"`` (played in C).
        learner_seat: a seat, ``"rotate"`` or ``"random"``.
        autoreset_mode: any spelling of ``same_step`` (SB3's contract; others are refused).
        illegal_action: ``"terminate"`` (default) or ``"raise"``.
        illegal_reward: the learner's reward for an illegal action under ``"terminate"``.
        short_deals: ``"skip"`` (default) or ``"play"``.
        render_mode: None or ``"rgb_array"``.
        render_view: ``"learner"`` (default) or ``"spectator"``: what the images show.
        num_threads: threads of the batched step.
        seed: master seed (slot ``i``'s first game: ``seed + i``); ``seed()`` sets the next one.
        **config: the game's options.

    Raises:
        ValueError: a bad option, an autoreset mode other than same_step, or a game
            without a batched engine here.
    """

    def __init__(self, game: Any, num_envs: int = 1, opponents: str = "random",
                 learner_seat: int | str = 0, autoreset_mode: Any = DEFAULT_AUTORESET,
                 illegal_action: str = "terminate", illegal_reward: float = -1.0,
                 short_deals: str = "skip", render_mode: str | None = None,
                 render_view: str = "learner", num_threads: int = 1, seed: int | None = None,
                 **config: Any):
        if VecEnv is object:
            raise ImportError("BatchVecEnv needs stable-baselines3 (pip install -e '.[sb3]')")
        if read_autoreset(autoreset_mode) != "same_step":
            raise ValueError(f"autoreset_mode {autoreset_mode!r}: an SB3 VecEnv resets in the same step "
                             f"(use BatchVectorEnv for next_step or disabled)")
        self.game = check_view_options(game, config, opponents, illegal_action, short_deals,
                                       render_mode, RENDER_MODES, render_view)
        self.batch = make_batch(self.game, num_envs, seed=seed, num_threads=num_threads,
                                opponents=opponents, learner_seat=learner_seat, autoreset="same_step",
                                illegal_action=illegal_action, illegal_reward=illegal_reward,
                                short_deals=short_deals)
        self.render_mode = render_mode  # read by VecEnv.__init__ through get_attr
        self.render_view = render_view
        super().__init__(num_envs, self.game.obs_spec.box(), spaces.Discrete(self.game.num_actions))
        self._next_seed = seed
        self._actions: np.ndarray | None = None

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
        """Keep the actions for :meth:`step_wait`.

        Raises:
            ValueError: float actions (refused, not cast).
        """
        if isinstance(actions, np.ndarray):  # SB3 may hand (n, 1) for a Discrete space
            actions = actions.reshape(-1)
        self._actions = integer_actions(actions, self.num_envs)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Step every slot: ``(obs, rewards, dones, infos)``."""
        b = self.batch
        b.step(self._actions)
        dones = b.terminated | b.truncated
        skipped = b.skipped_deals.tolist()
        infos: list[dict[str, Any]] = [{"skipped_deals": k} for k in skipped]
        for i in np.flatnonzero(dones):
            infos[i].update({"terminal_observation": b.final_obs[i].copy(),
                             "TimeLimit.truncated": bool(b.truncated[i] and not b.terminated[i]),
                             "seed": int(b.final_seed[i]), "learner_seat": int(b.final_learner_seat[i]),
                             "illegal_action": bool(b.illegal[i])})
        return b.obs.copy(), b.learner_reward.copy(), dones, infos

    def action_masks(self) -> np.ndarray:
        """Every slot's legal actions, ``(num_envs, n_actions)`` bool."""
        return self.batch.mask.astype(bool)

    def get_images(self) -> Sequence[np.ndarray | None]:
        """Each slot's picture (``render_mode="rgb_array"``), else Nones."""
        if self.render_mode != "rgb_array":
            return [None] * self.num_envs
        return list(render_slots(self.batch, self.game, "rgb_array", self.render_view))

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
