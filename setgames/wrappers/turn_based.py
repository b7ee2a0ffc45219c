"""A turn-based view for trainers that run every seat in one env (Tianshou).

Each step is one seat's action. The observation names the agent to act::

    {"agent_id": "player_1", "obs": int8 vector, "mask": bool vector}

and the reward is a vector over seats, nonzero only for the seat that just
acted (the form Tianshou's multi-agent dispatcher reads: it keeps
``rew[:, seat]`` for that seat's transitions).

The glue this fixes: when a move ends the game, the other seats have no
transition left to carry their result, so a plain AEC-to-trainer adapter
drops the loser's -1. Here, after the last move, every other seat gets one
*closing step* (in play order): its final observation, a mask allowing only
action 0 (:data:`CLOSING_ACTION`, ignored), and as reward everything it has
earned since it last acted; the episode terminates on the last closing step.
``info["closing"]`` marks those steps.

Rewards earned mid-game (round ends in match play) are paid to a seat on its
next step.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from setgames.checks import check_seed
from setgames.game import rng_from_seed
from setgames.wrappers._common import GameStatePickling, resolve_game, trainer_action

__all__ = ["CLOSING_ACTION", "TurnBasedEnv"]

CLOSING_ACTION = 0  # the only action allowed on a closing step; it is ignored
_MAX_SEED = 2**63 - 1


class TurnBasedEnv(GameStatePickling):
    """Every seat of a game in one env, one seat's action per step.

    Args:
        game: a registry name, a ``Game`` subclass or a ``Game`` instance.
        outcome_in_info: add ``game.outcome`` to the last step's info. Tianshou
            stores infos in its buffer and wants the same keys every step, so
            pass False there (the outcome stays in :attr:`outcome`).
        **config: the game's options.

    Attributes:
        agents: agent ids in seat order (``player_0`` ...).
        agent_idx: agent id -> seat.
        observation_space: the flat int8 ``Box`` of one seat's observation.
        action_space: ``Discrete(num_actions)``.
    """

    def __init__(self, game: Any, outcome_in_info: bool = True, **config: Any):
        self.game = resolve_game(game, config)
        self.outcome_in_info = bool(outcome_in_info)
        self.outcome: dict[str, Any] | None = None
        n = self.game.num_players
        self.agents = [f"player_{i}" for i in range(n)]
        self.possible_agents = list(self.agents)
        self.agent_idx = {a: i for i, a in enumerate(self.agents)}
        self.observation_space = self.game.obs_spec.box()
        self.action_space = spaces.Discrete(self.game.num_actions)
        self._n_actions = self.game.num_actions
        self._seed_rng = np.random.default_rng()
        self.state: Any = None
        self.game_seed: int | None = None
        self._pending = [0.0] * n
        self._closing: list[int] = []
        self._seat = -1
        self._done = True

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Deal a new game; the first observation and an info dict."""
        if seed is not None:
            self._seed_rng = np.random.default_rng(check_seed(seed))
        self.game_seed = int(self._seed_rng.integers(_MAX_SEED))
        self.state = self.game.new_state(rng_from_seed(self.game_seed))
        self._pending = [0.0] * self.game.num_players
        self._closing = []
        self.outcome = None
        self._done = False
        self._seat = self.game.current_seat(self.state)
        if self._seat < 0:
            self._start_closing(last=-1)
        return self._obs(), {"closing": False}

    def _start_closing(self, last: int) -> None:
        n = self.game.num_players
        self._closing = [(last + k) % n for k in range(1, n + (last < 0))]
        self._seat = self._closing.pop(0)

    def step(self, action: Any) -> tuple[dict, np.ndarray, bool, bool, dict]:
        """Play ``action`` for the seat to act; returns ``(obs, rewards, terminated,
        truncated, info)`` with ``rewards`` a float vector over seats."""
        if self.state is None or self._done:
            raise RuntimeError("step() called before reset() or after the episode ended")
        a = trainer_action(action)
        game, state, seat = self.game, self.state, self._seat
        rew = np.zeros(game.num_players, dtype=np.float32)
        info: dict[str, Any] = {"closing": False}
        if game.is_over(state):  # a closing step
            if a != CLOSING_ACTION:
                raise ValueError(f"action {a} on a closing step; only {CLOSING_ACTION} is allowed")
            rew[seat] = self._pending[seat]
            self._pending[seat] = 0.0
            info["closing"] = True
            if self._closing:
                self._seat = self._closing.pop(0)
                return self._obs(), rew, False, False, info
            self._done = True
            truncated = bool(game.is_truncated(state))
            self.outcome = game.outcome(state)
            if self.outcome_in_info:
                info.update(self.outcome)
            return self._obs(), rew, not truncated, truncated, info
        a = game.check_action(state, a)
        rewards = game.apply(state, a)
        if rewards is not None:
            for s, r in enumerate(rewards):
                self._pending[s] += float(r)
        rew[seat] = self._pending[seat]
        self._pending[seat] = 0.0
        nxt = game.current_seat(state)
        if nxt >= 0:
            self._seat = nxt
            return self._obs(), rew, False, False, info
        self._start_closing(last=seat)
        return self._obs(), rew, False, False, info

    def _obs(self) -> dict[str, Any]:
        seat = self._seat
        if self.game.is_over(self.state):
            mask = np.zeros(self._n_actions, dtype=bool)
            mask[CLOSING_ACTION] = True
        else:
            mask = self.game.legal_mask(self.state).astype(bool)
        return {"agent_id": self.agents[seat], "obs": self.game.observe(self.state, seat), "mask": mask}

    @property
    def unwrapped(self) -> TurnBasedEnv:
        """This env (vector-env workers read attributes through ``unwrapped``)."""
        return self

    @property
    def agent_selection(self) -> str:
        """The agent to act now."""
        return self.agents[self._seat]

    def render(self) -> str:
        """The whole table as text."""
        return self.game.render(self.state, None)

    def close(self) -> None:
        """Nothing to release."""

