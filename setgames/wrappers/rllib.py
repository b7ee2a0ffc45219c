"""The mapping RLlib's action-masking module reads, and a turn-based
``MultiAgentEnv`` for RLlib, with ray imported only when it is asked for.

RLlib's ``ActionMaskingTorchRLModule`` (``ray.rllib.examples.rl_modules.
classes.action_masking_rlm``) expects each observation to be a dict with
``"observations"`` and ``"action_mask"``; :func:`to_rllib_obs` makes one
from our ``{"observation", "action_mask"}`` pair. Both pieces are float32
because the module takes ``log(action_mask)`` and its encoders want floats.

:class:`RLlibTurnCore` is the whole env logic (tested without ray):
``reset`` / ``step`` speak RLlib's multi-agent dicts; only the agent to act
has an observation, rewards go to every agent that earned one, and on the
last step every agent gets its final observation with
``terminateds["__all__"] = True``. :func:`rllib_env_class` mixes it into
``ray.rllib.env.multi_agent_env.MultiAgentEnv``.

>>> obs = {"observation": np.array([3, 1], np.int8), "action_mask": np.array([1, 0], np.int8)}
>>> to_rllib_obs(obs)["action_mask"]
array([1., 0.], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from setgames.checks import check_seed
from setgames.game import rng_from_seed
from setgames.wrappers._common import resolve_game

__all__ = ["RLlibTurnCore", "register_rllib_env", "rllib_env_class", "rllib_obs_space", "to_rllib_obs"]

_MAX_SEED = 2**63 - 1


def to_rllib_obs(obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``{"observation", "action_mask"}`` -> ``{"observations", "action_mask"}`` (float32)."""
    return {
        "observations": np.asarray(obs["observation"], dtype=np.float32),
        "action_mask": np.asarray(obs["action_mask"], dtype=np.float32),
    }


def rllib_obs_space(game: Any) -> spaces.Dict:
    """The ``Dict`` space of :func:`to_rllib_obs`'s output for ``game``."""
    spec = game.obs_spec
    return spaces.Dict({
        "observations": spaces.Box(spec.low.astype(np.float32), spec.high.astype(np.float32),
                                   dtype=np.float32),
        "action_mask": spaces.Box(0.0, 1.0, (game.num_actions,), dtype=np.float32),
    })


class RLlibTurnCore:
    """A game in RLlib's multi-agent dict protocol, without importing ray.

    Args:
        config: ``{"game": name or Game class, **game options}`` (RLlib passes
            its ``env_config`` here); ``game`` is required.
    """

    def __init__(self, config: dict[str, Any] | None = None):
        config = dict(config or {})
        if "game" not in config:
            raise ValueError("env_config needs a 'game': a registered name or a Game class")
        game = config.pop("game")
        self.game = resolve_game(game, config)
        n = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = list(self.possible_agents)
        space = rllib_obs_space(self.game)
        act = spaces.Discrete(self.game.num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act)
        self.observation_space = spaces.Dict(self.observation_spaces)
        self.action_space = spaces.Dict(self.action_spaces)
        self._seed_rng = np.random.default_rng()
        self.state: Any = None

    def _obs(self, seat: int, done: bool) -> dict[str, np.ndarray]:
        mask = np.zeros(self.game.num_actions, dtype=np.float32)
        if not done:
            mask[self.game.legal_actions(self.state)] = 1.0
        return {"observations": self.game.observe(self.state, seat).astype(np.float32),
                "action_mask": mask}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Deal; the observation of the agent to act."""
        if seed is not None:
            self._seed_rng = np.random.default_rng(check_seed(seed))
        self.state = self.game.new_state(rng_from_seed(int(self._seed_rng.integers(_MAX_SEED))))
        seat = self.game.current_seat(self.state)
        if seat < 0:
            raise RuntimeError("the game ended on the deal")
        agent = self.possible_agents[seat]
        return {agent: self._obs(seat, False)}, {agent: {}}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Play the acting agent's action (the one key of ``action_dict``)."""
        game, state = self.game, self.state
        seat = game.current_seat(state)
        agent = self.possible_agents[seat]
        if set(action_dict) != {agent}:
            raise ValueError(f"actions for {sorted(action_dict)}; {agent} is the one to act")
        a = game.check_action(state, action_dict[agent])
        rewards = game.apply(state, a)
        rew = {} if rewards is None else {
            self.possible_agents[s]: float(r) for s, r in enumerate(rewards)}
        nxt = game.current_seat(state)
        if nxt >= 0:
            nagent = self.possible_agents[nxt]
            return ({nagent: self._obs(nxt, False)}, rew, {"__all__": False}, {"__all__": False},
                    {nagent: {}})
        truncated = bool(game.is_truncated(state))
        outcome = game.outcome(state)
        obs = {x: self._obs(s, True) for s, x in enumerate(self.possible_agents)}
        rew = {x: rew.get(x, 0.0) for x in self.possible_agents}
        terms = {x: not truncated for x in self.possible_agents}
        truncs = {x: truncated for x in self.possible_agents}
        terms["__all__"], truncs["__all__"] = not truncated, truncated
        return obs, rew, terms, truncs, {x: dict(outcome) for x in self.possible_agents}


def rllib_env_class() -> type:
    """:class:`RLlibTurnCore` as a ``ray.rllib`` ``MultiAgentEnv`` (imports ray)."""
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    class SetGameRLlibEnv(RLlibTurnCore, MultiAgentEnv):
        """One of our games as an RLlib multi-agent env with action masks."""

        def __init__(self, config: dict[str, Any] | None = None):
            MultiAgentEnv.__init__(self)
            RLlibTurnCore.__init__(self, config)

    return SetGameRLlibEnv


def register_rllib_env(name: str = "setgames") -> str:
    """Register the env with ``ray.tune`` under ``name``; pass ``{"game": ...}`` as env_config."""
    from ray.tune.registry import register_env

    cls = rllib_env_class()
    register_env(name, lambda cfg: cls(dict(cfg)))
    return name
