"""RLlib: the mapping its action-masking module reads, a turn-based
``MultiAgentEnv``, and a PettingZoo wrapper for RLlib's own ``PettingZooEnv``;
ray is imported only when it is asked for.

RLlib's ``ActionMaskingTorchRLModule`` (``ray.rllib.examples.rl_modules.
classes.action_masking_rlm``) expects each observation to be a dict with
``"observations"`` and ``"action_mask"``; :func:`to_rllib_obs` makes one
from our ``{"observation", "action_mask"}`` pair. Both pieces are float32
because the module takes ``log(action_mask)`` and its encoders want floats.

Two routes, both passing RLlib's env check as they are:

- the library's view, :class:`RLlibTurnCore` (tested without ray) mixed into
  ``MultiAgentEnv`` by :func:`rllib_env_class` / :func:`register_rllib_env`:
  only the agent to act has an observation; the agent that acted always gets
  a reward entry (0.0 when it earned nothing: a seat that acts twice in a row,
  draw then discard, receives its next observation in the same step, and
  RLlib's episode needs a reward with it); rewards earned by others are
  paid when earned; on the last step every agent gets its final observation
  (all-zero mask) with ``terminateds["__all__"] = True``. An illegal action
  ends the game by default (``illegal_action="terminate"``: RLlib's env check
  steps an unmasked random action), the offender scoring ``illegal_reward``;
- RLlib's own adapter: ``PettingZooEnv(rllib_keys(bharg_env.env(illegal_action=
  "terminate")))``: :func:`rllib_keys` renames the keys of a PettingZoo AEC env.

>>> obs = {"observation": np.array([3, 1], np.int8), "action_mask": np.array([1, 0], np.int8)}
>>> to_rllib_obs(obs)["action_mask"]
array([1., 0.], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

from setgames.aec import MAX_ILLEGAL_REWARD
from setgames.bots.base import Bot
from setgames.checks import check_real, check_seed
from setgames.game import rng_from_seed
from setgames.wrappers._common import resolve_game

__all__ = [
    "ILLEGAL_ACTION_MODES",
    "MAX_REDEALS",
    "RLModuleBot",
    "RLlibKeys",
    "RLlibTurnCore",
    "register_rllib_env",
    "rllib_env_class",
    "rllib_keys",
    "rllib_obs_space",
    "rlmodule_bot",
    "to_rllib_obs",
]

_MAX_SEED = 2**63 - 1
ILLEGAL_ACTION_MODES = ("terminate", "raise")
MAX_REDEALS = 100  # deals in a row that end before anyone acts, before giving up


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


class RLlibKeys(BaseWrapper):
    """A PettingZoo AEC env of ours whose observations are :func:`to_rllib_obs`'s
    (``observations`` / ``action_mask``, float32), for RLlib's own ``PettingZooEnv``.

    Everything else (rewards, infos, the illegal-action option) is the wrapped
    env's; wrap ``env(illegal_action="terminate")`` to pass RLlib's env check.
    """

    def __init__(self, env: Any):
        super().__init__(env)
        space = rllib_obs_space(env.unwrapped.game)
        self._spaces = dict.fromkeys(env.possible_agents, space)

    def observation_space(self, agent: str) -> spaces.Space:
        """The float32 ``Dict`` space (the same object for every agent)."""
        return self._spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation, renamed and as float32."""
        return to_rllib_obs(self.env.observe(agent))

    def last(self, observe: bool = True) -> tuple:
        """``env.last()`` with the observation renamed and as float32."""
        obs, rew, term, trunc, info = self.env.last(observe)
        return (to_rllib_obs(obs) if observe else None), rew, term, trunc, info

    def outcome(self) -> dict[str, Any]:
        """The wrapped env's detailed outcome."""
        return self.env.outcome()


def rllib_keys(env: Any) -> RLlibKeys:
    """``env`` (one of our AEC envs) with RLlib's observation keys: see :class:`RLlibKeys`."""
    return RLlibKeys(env)


class RLlibTurnCore:
    """A game in RLlib's multi-agent dict protocol, without importing ray.

    Args:
        config: ``{"game": name or Game class, "illegal_action": "terminate" |
            "raise", "illegal_reward": float, **game options}`` (RLlib passes
            its ``env_config`` here); ``game`` is required.

    Final infos hold numbers only: ``game.outcome_info`` and ``returns``
    (float32 over seats); :attr:`outcome` has the detailed outcome.
    """

    def __init__(self, config: dict[str, Any] | None = None):
        config = dict(config or {})
        if "game" not in config:
            raise ValueError("env_config needs a 'game': a registered name or a Game class")
        game = config.pop("game")
        self.illegal_action = config.pop("illegal_action", "terminate")
        if self.illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action {self.illegal_action!r} is not one of {ILLEGAL_ACTION_MODES}")
        self.illegal_reward = check_real("illegal_reward", config.pop("illegal_reward", -1.0),
                                         -MAX_ILLEGAL_REWARD, MAX_ILLEGAL_REWARD)
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
        self.outcome: dict[str, Any] | None = None
        self._over = True

    def _obs(self, seat: int, done: bool) -> dict[str, np.ndarray]:
        mask = np.zeros(self.game.num_actions, dtype=np.float32)
        if not done:
            mask[self.game.legal_actions(self.state)] = 1.0
        return {"observations": self.game.observe(self.state, seat).astype(np.float32),
                "action_mask": mask}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Deal (again while a deal ends the game before anyone acts: RLlib's
        ``reset`` cannot return a finished episode); the observation of the
        agent to act."""
        if seed is not None:
            self._seed_rng = np.random.default_rng(check_seed(seed))
        self.outcome = None
        self._over = False
        for _ in range(MAX_REDEALS + 1):
            self.state = self.game.new_state(rng_from_seed(int(self._seed_rng.integers(_MAX_SEED))))
            seat = self.game.current_seat(self.state)
            if seat >= 0:
                agent = self.possible_agents[seat]
                return {agent: self._obs(seat, False)}, {agent: {}}
        raise RuntimeError(f"{MAX_REDEALS + 1} deals in a row ended the game at once")

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Play the acting agent's action (the one key of ``action_dict``)."""
        game, state = self.game, self.state
        if self._over or state is None:
            raise RuntimeError("step() before reset() or after the game ended")
        seat = game.current_seat(state)
        agent = self.possible_agents[seat]
        if set(action_dict) != {agent}:
            raise ValueError(f"actions for {sorted(action_dict)}; {agent} is the one to act")
        raw = action_dict[agent]
        a = int(np.asarray(raw).reshape(-1)[0]) if np.ndim(raw) else int(raw)
        if self.illegal_action == "terminate" and a not in game.legal_actions(state):
            return self._terminate_illegal(seat, a)
        a = game.check_action(state, a)
        rewards = game.apply(state, a)
        rew = {agent: 0.0}
        if rewards is not None:
            rew.update((self.possible_agents[s], float(r)) for s, r in enumerate(rewards))
        nxt = game.current_seat(state)
        if nxt >= 0:
            nagent = self.possible_agents[nxt]
            return ({nagent: self._obs(nxt, False)}, rew, {"__all__": False}, {"__all__": False},
                    {nagent: {}})
        truncated = bool(game.is_truncated(state))
        self._over = True
        self.outcome = game.outcome(state)
        final = game.outcome_info(self.outcome)
        final["returns"] = np.asarray(game.returns(state), dtype=np.float32)
        rew = {x: rew.get(x, 0.0) for x in self.possible_agents}
        return self._final(rew, truncated, final)

    def _final(self, rew: dict[str, float], truncated: bool, info: dict[str, Any]) -> tuple:
        obs = {x: self._obs(s, True) for s, x in enumerate(self.possible_agents)}
        terms = {x: not truncated for x in self.possible_agents}
        truncs = {x: truncated for x in self.possible_agents}
        terms["__all__"], truncs["__all__"] = not truncated, truncated
        return obs, rew, terms, truncs, {x: dict(info) for x in self.possible_agents}

    def _terminate_illegal(self, seat: int, action: int) -> tuple:
        game = self.game
        label = game.action_to_str(action) if 0 <= action < game.num_actions else "out of range"
        agent = self.possible_agents[seat]
        self.outcome = {"illegal_action": True, "offender": agent,
                        "reason": f"illegal action {action} ({label}) by {agent}"}
        rew = {x: (self.illegal_reward if x == agent else 0.0) for x in self.possible_agents}
        self._over = True  # the game stops here, its state as it was before the action
        obs = {x: {"observations": game.observe(self.state, s).astype(np.float32),
                   "action_mask": np.zeros(game.num_actions, dtype=np.float32)}
               for s, x in enumerate(self.possible_agents)}
        terms = dict.fromkeys(self.possible_agents, True)
        truncs = dict.fromkeys(self.possible_agents, False)
        terms["__all__"], truncs["__all__"] = True, False
        # What each seat got over the game: earned before, plus this penalty.
        returns = np.asarray(game.returns(self.state), dtype=np.float32)
        returns[seat] += self.illegal_reward
        info = {"illegal_action": True, "offender": seat, "winner": -1, "returns": returns}
        return obs, rew, terms, truncs, {x: dict(info) for x in self.possible_agents}


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


class RLModuleBot(Bot):
    """A trained RLlib ``RLModule`` (e.g. ``ActionMaskingTorchRLModule``) as an
    arena bot: the most likely legal action of ``forward_inference`` on the
    seat's :func:`to_rllib_obs` observation (torch and ray imported here).

    Args:
        module: the module, or the path it was saved to (``save_to_path``).
        seed: unused (the policy is deterministic); kept for the bot protocol.
    """

    name = "rlmodule"

    def __init__(self, module: Any, seed: int | None = None):
        super().__init__(seed)
        if isinstance(module, str):
            from ray.rllib.core.rl_module.rl_module import RLModule

            module = RLModule.from_checkpoint(module)
        self.module = module

    def act(self, game: Any, state: Any, seat: int) -> int:
        """The legal action with the highest logit."""
        import torch

        obs = to_rllib_obs({"observation": game.observe(state, seat), "action_mask": game.legal_mask(state)})
        batch = {"obs": {k: torch.from_numpy(v)[None] for k, v in obs.items()}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"][0].numpy()
        logits = np.where(obs["action_mask"] > 0, logits, -np.inf)
        return int(np.argmax(logits))

    def __repr__(self) -> str:
        return "RLModuleBot()"


def rlmodule_bot(game_name: str, seed: int | None = None, path: str = "") -> RLModuleBot:
    """Arena factory: ``(game_name, seed, path=...) -> Bot`` for an RLModule saved at ``path``."""
    if not path:
        raise ValueError("rlmodule_bot needs path= (a directory written by RLModule.save_to_path)")
    return RLModuleBot(path, seed)
