"""The thinnest AEC env with a given game's spaces: the ceiling of the loop.

:class:`NullEnv` has the same ``Dict`` observation space and ``Discrete``
action space as the game it stands in for, returns one fixed observation and
a fixed mask with a few legal actions, and keeps PettingZoo's bookkeeping the
same minimal way :class:`~setgames.aec.SetGameEnv` does (agent cycling,
rewards on the last step, ``_accumulate_rewards``, dead steps). It does no
game work at all, so ``steps/s of env / steps/s of NullEnv`` measured in the
same run says how much of the loop a game's rules and observations cost,
whatever the machine's speed that minute.

>>> from gymnasium import spaces
>>> import numpy as np
>>> obs = spaces.Dict({"observation": spaces.Box(0, 1, (4,), dtype=np.int8),
...                    "action_mask": spaces.Box(0, 1, (6,), dtype=np.int8)})
>>> env = NullEnv(obs, spaces.Discrete(6), num_agents=2, steps_per_game=3)
>>> env.reset(seed=0)
>>> env.step(0); env.step(3); env.step(5)
>>> env.terminations, env._cumulative_rewards
({'player_0': True, 'player_1': True}, {'player_0': 1.0, 'player_1': -1.0})
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

__all__ = ["NULL_LEGAL_ACTIONS", "NullEnv", "null_env_like"]

NULL_LEGAL_ACTIONS = 4  # legal actions in the null env's fixed mask, spread over the action range


class NullEnv(AECEnv):
    """Do-nothing AEC env with the given spaces.

    Args:
        observation_space: the ``Dict`` space with ``"observation"`` and
            ``"action_mask"`` keys, shared by every agent.
        action_space: the ``Discrete`` action space.
        num_agents: number of agents (``player_0`` ...), cycled in order.
        steps_per_game: live steps before every agent terminates (set it to
            the game's mean game length so reset costs weigh the same).
        legal_actions: how many actions the fixed mask allows.
    """

    metadata = {"render_modes": [], "name": "null_v0"}  # noqa: RUF012

    def __init__(self, observation_space: spaces.Dict, action_space: spaces.Discrete,
                 num_agents: int = 2, steps_per_game: int = 100,
                 legal_actions: int = NULL_LEGAL_ACTIONS):
        super().__init__()
        if num_agents < 1:
            raise ValueError(f"num_agents {num_agents!r} must be at least 1")
        if steps_per_game < 1:
            raise ValueError(f"steps_per_game {steps_per_game!r} must be at least 1")
        n = int(action_space.n)
        if not 1 <= legal_actions <= n:
            raise ValueError(f"legal_actions {legal_actions!r} must be 1..{n}")
        self.possible_agents = [f"player_{i}" for i in range(num_agents)]
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, action_space)
        box = observation_space["observation"]
        self._obs = np.zeros(box.shape, dtype=box.dtype)
        self._mask = np.zeros(n, dtype=np.int8)
        self._mask[np.linspace(0, n - 1, legal_actions).astype(np.int64)] = 1
        self._no_mask = np.zeros(n, dtype=np.int8)
        self._len = int(steps_per_game)
        self._next = {a: self.possible_agents[(i + 1) % num_agents]
                      for i, a in enumerate(self.possible_agents)}
        self._final = {a: (1.0 if i == 0 else -1.0 / max(1, num_agents - 1))
                       for i, a in enumerate(self.possible_agents)}
        self._t = 0

    def observation_space(self, agent: str) -> spaces.Space:
        """The shared ``Dict`` space."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The shared ``Discrete`` space."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new (empty) game; ``seed`` is accepted and unused."""
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self._t = 0

    def step(self, action: Any) -> None:
        """Count a step (the action must be one of the mask's); end the game after ``steps_per_game``."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = int(action)
        if not 0 <= a < self._mask.size or not self._mask[a]:
            raise ValueError(f"illegal action {a} in the null env")
        self._cumulative_rewards[agent] = 0.0
        self._t += 1
        if self._t >= self._len:
            for x in self.agents:
                self.terminations[x] = True
            self.rewards = dict(self._final)
            self._accumulate_rewards()
            return
        self.agent_selection = self._next[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The fixed observation and the mask (all zeros unless ``agent`` is to act)."""
        mask = self._mask if agent == self.agent_selection else self._no_mask
        return {"observation": self._obs, "action_mask": mask}

    def close(self) -> None:
        """Nothing to release."""


def null_env_like(env: AECEnv, steps_per_game: int = 100) -> NullEnv:
    """A :class:`NullEnv` with the spaces and agent count of ``env`` (raw or wrapped),
    allowing :data:`NULL_LEGAL_ACTIONS` actions (all of them in a smaller action space)."""
    agent = env.possible_agents[0]
    act = env.action_space(agent)
    return NullEnv(env.observation_space(agent), act, num_agents=len(env.possible_agents),
                   steps_per_game=steps_per_game, legal_actions=min(NULL_LEGAL_ACTIONS, int(act.n)))
