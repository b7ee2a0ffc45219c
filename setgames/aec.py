"""The PettingZoo plumbing shared by all three games, written once.

:class:`SetGameEnv` is a bare ``AECEnv`` around a :class:`~setgames.game.Game`:
it maps seats to agents, seeds, encodes observations and masks, keeps the
reward bookkeeping PettingZoo expects, and renders. :class:`LeanWrapper` gives
``env()`` what PettingZoo's standard wrappers give (errors for ``step`` before
``reset`` or an out-of-range action, the illegal-action option) at a fraction
of their per-step cost.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from setgames.checks import NUMPY_INTEGER_TYPES as _NP_INTS
from setgames.checks import as_action, check_real, check_seed, short_repr
from setgames.engine import engine_class
from setgames.game import Game, IllegalActionError, rng_from_seed

__all__ = ["ILLEGAL_ACTION_MODES", "MAX_ILLEGAL_REWARD", "RENDER_FPS", "RENDER_MODES", "AgentIterable",
           "LeanWrapper", "SetGameEnv", "make_env"]

ILLEGAL_ACTION_MODES = ("raise", "terminate")
MAX_ILLEGAL_REWARD = 1e6  # |illegal_reward| at most this: the games' own rewards are far smaller
RENDER_FPS = 2  # frames a second a viewer shows: a card game is read, not watched
# Text, printed text, SVG markup, an (H, W, 3) uint8 frame (setgames.draw).
RENDER_MODES = ["ansi", "human", "svg", "rgb_array"]
_MAX_SEED = 2**63 - 1
_INT8 = np.dtype(np.int8)
_frombuffer = np.frombuffer


class AgentIterable:
    """What ``agent_iter`` returns: the agent to act, until every agent is done
    or ``max_iter`` agents were given, like PettingZoo's ``AECIterable``.

    A generator in place of PettingZoo's iterator class: its ``__next__`` is a
    Python method call on every step of every training loop, and resuming a
    generator costs a third of that here.
    """

    __slots__ = ("env", "max_iter")

    def __init__(self, env: AECEnv, max_iter: int):
        self.env = env
        self.max_iter = max_iter

    def __iter__(self) -> Iterator[str]:
        env = self.env
        left = self.max_iter
        while env.agents and left > 0:
            left -= 1
            yield env.agent_selection


class SetGameEnv(AECEnv):
    """Bare AEC environment over a game's rules layer.

    Subclasses set ``game_class`` and ``metadata``. Keyword arguments other
    than ``render_mode``, ``engine`` and ``action_features`` are the game's config and are
    validated by it (``obs`` among them: the observation mode, :mod:`setgames.obs`).

    ``action_features=True`` (for a game with ``game.action_spec``) adds the acting agent's
    per-action feature rows to its info, ``info["action_features"]``: an int8 array
    ``(num_actions, action_spec.size)`` aligned with ``info["action_mask"]``, the format
    Deep Monte-Carlo learners score one row at a time.

    Where the game has a compiled engine (:mod:`setgames.engine`) the env steps
    it, and the rules-layer state is rebuilt from it when ``game_state`` is
    read; ``engine=False`` steps the rules layer instead (same games, slower),
    ``engine=True`` raises when no engine is built.

    Attributes:
        game: the :class:`Game` (rules under this config).
        game_state: the current rules-layer state (None before ``reset``). With
            an engine it is a snapshot: changing it does not change the game
            (:meth:`set_game_state` does).
        engine: the compiled engine stepping the game, or None.
        seed_used: the seed of the current game; with :attr:`actions` it
            replays the game exactly.
        actions: action ids played so far in this game.
    """

    game_class: ClassVar[type[Game]]
    metadata: ClassVar[dict[str, Any]] = {"render_modes": RENDER_MODES, "name": "setgame",
                                          "render_fps": RENDER_FPS}

    def __init__(self, render_mode: str | None = None, engine: bool | None = None,
                 action_features: bool = False, **config: Any):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}"
            )
        # Exactly None, True or False: 0 == False and 1 == True, but engine=0 is a mistake.
        if engine is not None and engine is not True and engine is not False:
            raise ValueError(f"engine {short_repr(engine)} must be None (use one when built), True or False")
        self.render_mode = render_mode
        self.game = self.game_class(**config)
        cls = engine_class(self.game) if engine is not False else None
        if engine is True and cls is None:
            raise ValueError(f"{self.game.name} has no compiled engine here (not built, or "
                             f"SETGAMES_ENGINE=0); pass engine=None or False")
        self.engine = cls(self.game) if cls is not None else None
        if action_features is not True and action_features is not False:
            raise ValueError(f"action_features {short_repr(action_features)} must be True or False")
        if action_features and self.game.action_spec is None:
            raise ValueError(f"{self.game.name} has no per-action features (game.action_spec is None)")
        # With it on, the acting agent's info also holds its per-action feature rows.
        self._features = action_features
        self._engine_deals = hasattr(self.engine, "deal")
        n = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": self.game.obs_spec.box(),
                "action_mask": spaces.Box(0, 1, (self.game.num_actions,), dtype=np.int8),
            }
        )
        act_space = spaces.Discrete(self.game.num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._obs_size = self.game.obs_spec.size
        self._n_actions = self.game.num_actions
        # The generator behind unseeded resets is made on the first one: a
        # seeded reset only notes its seed (default_rng costs ~40 us here).
        self._seed_rng: np.random.Generator | None = None
        self._seed_rng_seed: int | None = None
        self._state = None
        self._stale = False  # the engine has moved on from self._state
        self.seed_used: int | None = None
        self.actions: list[int] = []
        self._no_mask = np.zeros(self._n_actions, dtype=np.int8)
        self._no_mask.flags.writeable = False
        self._zero_mask_bytes = bytes(self._n_actions)
        self._mask = self._no_mask
        # the mask's bytes (rules layer only: an engine tests legality itself)
        self._legal_bytes: bytes | bytearray = self._zero_mask_bytes
        self._rewarded = False
        self._outcome: dict[str, Any] | None = None  # the detailed outcome of the finished game

    # ----------------------------------------------------------------- pickling
    def __getstate__(self) -> dict[str, Any]:
        """Everything but the game and the engine, which are rebuilt from the config: trainers
        ship envs to worker processes by pickle, and the rules' action layouts hold lambdas
        while an engine is compiled code. The position travels as the rules' JSON."""
        d = self.__dict__.copy()
        state = self.game_state if (self._state is not None or self._stale) else None
        d["_state"] = None if state is None else self.game.to_json(state)
        d["_stale"] = False
        d["_pickled"] = (self.game.config_dict(), self.engine is not None)
        del d["game"], d["engine"]
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        """Rebuild the game and engine, then load the position (see :meth:`__getstate__`)."""
        config, had_engine = d.pop("_pickled")
        self.__dict__.update(d)
        self.game = self.game_class(**config)
        cls = engine_class(self.game) if had_engine else None
        self.engine = cls(self.game) if cls is not None else None  # rules layer where none is built
        self._engine_deals = hasattr(self.engine, "deal")
        if self._state is not None:
            self._state = self.game.from_json(self._state)
            if self.engine is not None:
                self.engine.load(self._state)
        if self.engine is None and self._state is not None and self.game.current_seat(self._state) >= 0:
            self._rules_mask()  # its legal bytes: the pickled env may have been stepping an engine

    # ----------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> spaces.Space:
        """The same ``Dict`` space object for every call and agent."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The same ``Discrete`` space object for every call and agent."""
        return self.action_spaces[agent]

    # ----------------------------------------------------------------- life cycle
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game. ``seed`` makes it reproducible; without one a seed
        is drawn from this env's own generator (never the global one).

        ``options`` is ignored (no game takes reset options; PettingZoo's API
        test passes some).

        Raises:
            ValueError: a seed that is not an integer 0..2**63-1 (not a bool,
                float or string); nothing changes (the previous game,
                ``seed_used`` and the generator of unseeded resets are as they were).
        """
        if seed is None:
            if self._seed_rng is None:
                self._seed_rng = np.random.default_rng(self._seed_rng_seed)
            seed = int(self._seed_rng.integers(_MAX_SEED))
        else:
            seed = check_seed(seed)
            self._seed_rng = None
            self._seed_rng_seed = seed
        self.seed_used = seed
        if self._engine_deals:
            # The engine deals itself (the same draws): the rules-layer state is
            # built only if someone reads game_state.
            self.engine.deal(rng_from_seed(seed))
            self._state = None
            self._stale = True
        else:
            self._set_state(self.game.new_state(rng_from_seed(seed)))
        self.actions = []
        self._start_episode()

    def set_game_state(self, state: Any) -> None:
        """Continue from a rules-layer state (a clone, or one loaded from JSON).

        Raises:
            ValueError: a state the rules could not produce (``game.validate``);
                nothing is changed (state, engine, ``seed_used``, ``actions``).
        """
        if self.engine is None:
            self.game.validate(state)
            self._set_state(state)
        else:
            self.engine.load(state)  # validates before it copies anything
            self._state = state
            self._stale = False
        self.seed_used = None
        self.actions = []
        self._start_episode()

    def _set_state(self, state: Any) -> None:
        self._state = state
        self._stale = False
        if self.engine is not None:
            self.engine.load(state)

    @property
    def game_state(self) -> Any:
        """The rules-layer state of the game (rebuilt from the engine, when one
        steps the game, on the first read after a step)."""
        if self._stale:
            self._state = self.game.from_json(self.engine.to_json())
            self._stale = False
        return self._state

    def _start_episode(self) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {"action_mask": self._no_mask} for a in self.agents}
        self._rewarded = False
        self._outcome = None
        self._refresh(None)
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            # Over at the deal (a game whose first player can win on the dealt hand): pay out at once.
            rewards = self.game.returns(self.game_state)
            self.rewards = {a: float(rewards[i]) for i, a in enumerate(self.agents)}
            self._rewarded = True
            self._accumulate_rewards()

    def _refresh(self, acted: str | None) -> None:
        """Point ``agent_selection`` and the mask at whoever acts next."""
        game, state, eng = self.game, self._state, self.engine
        seat = game.current_seat(state) if eng is None else eng.current_seat()
        if seat >= 0:
            # A fresh writable array each step (callers may keep old masks).
            mask = self._rules_mask() if eng is None else eng.mask()
            self._mask = mask
            agent = self.possible_agents[seat]
            if acted is not None and acted != agent:
                self.infos[acted] = {"action_mask": self._no_mask}
            self.infos[agent] = {"action_mask": mask}
            if self._features:
                self.infos[agent]["action_features"] = self._action_rows(seat)
            self.agent_selection = agent
            return
        if eng is None:
            truncated, outcome = game.is_truncated(state), game.outcome(state)
        else:
            truncated, outcome = eng.is_truncated(), eng.outcome()
        self._mask = self._no_mask
        self._legal_bytes = self._zero_mask_bytes
        # Infos get the outcome's fixed-shape numbers only (trainers' buffers
        # copy infos and need one shape every game); the rest is outcome().
        self._outcome = outcome
        final = game.outcome_info(outcome)
        for a in self.agents:
            if truncated:
                self.truncations[a] = True
            else:
                self.terminations[a] = True
            self.infos[a] = {"action_mask": self._no_mask, **final}
        self.agent_selection = acted if acted is not None else self.agents[0]

    def _action_rows(self, seat: int) -> np.ndarray:
        """``seat``'s per-action feature rows, ``(num_actions, action_spec.size)`` int8."""
        eng = self.engine
        if eng is None:
            return self.game.action_features(self._state, seat)
        rows = getattr(eng, "action_features", None)
        # An engine without its own rows answers through the rules layer's snapshot.
        return rows(seat) if rows is not None else self.game.action_features(self.game_state, seat)

    def _rules_mask(self) -> np.ndarray:
        """The rules layer's legal actions as a fresh mask; its bytes are kept as
        ``_legal_bytes`` for step()'s legality test.

        A bytearray filled in Python and wrapped costs about half of np.zeros
        plus a fancy-index write of a Python list, and indexing it is 3x cheaper
        than indexing the array. Caching masks by legal set was measured and
        dropped: half the legal sets of a game are new, and a miss costs more.
        """
        buf = bytearray(self._zero_mask_bytes)
        for a in self.game.legal_actions(self._state):
            buf[a] = 1
        self._legal_bytes = buf
        return _frombuffer(buf, _INT8)

    def step(self, action: Any) -> None:
        """Play ``action`` for ``agent_selection`` (``None`` for an agent that is done)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is int:
            a = action
        elif type(action) in _NP_INTS:  # what Discrete.sample and policies hand over
            a = int(action)
        else:
            try:
                a = as_action(action)
            except ValueError as exc:
                raise IllegalActionError(str(exc)) from None
        eng = self.engine
        if eng is None:
            if not 0 <= a < self._n_actions or not self._legal_bytes[a]:
                self.game.check_action(self._state, a)  # raises with the legal list
            game, state = self.game, self._state
            rewards = game.apply(state, a)
            seat = game.current_seat(state)
            if seat >= 0:
                mask = self._rules_mask()
        else:
            # The engine tests legality itself (in C, nothing to look up here) and
            # raises ValueError on an illegal action, changing nothing; the rules
            # layer then words the error.
            try:
                rewards = eng.apply(a)
            except (ValueError, OverflowError):  # OverflowError: beyond a C int
                self.game.check_action(self.game_state, a)
                raise
            self._stale = True
            seat = eng.current_seat()
            if seat >= 0:
                mask = eng.mask()
        self._cumulative_rewards[agent] = 0.0
        self.actions.append(a)
        if rewards is not None:
            self.rewards = {x: float(rewards[self._seat_of[x]]) for x in self.agents}
            self._rewarded = True
        elif self._rewarded:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._rewarded = False
        if seat >= 0:
            # _refresh's live branch, inlined: this is the hottest path of every env.
            self._mask = mask
            nxt = self.possible_agents[seat]
            infos = self.infos
            if nxt != agent:
                infos[agent] = {"action_mask": self._no_mask}
            infos[nxt] = {"action_mask": mask}
            if self._features:
                infos[nxt]["action_features"] = self._action_rows(seat)
            self.agent_selection = nxt
        else:
            self._refresh(agent)
        if self._rewarded:
            self._accumulate_rewards()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation and action mask (all zeros unless it is to act)."""
        eng = self.engine
        if eng is None:
            out = self.game.observe(self._state, self._seat_of[agent])
        else:
            out = eng.observe(self._seat_of[agent])
        mask = self._mask if agent == self.agent_selection else self._no_mask.copy()
        return {"observation": out, "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``(observation, cumulative reward, termination, truncation, info)`` of
        ``agent_selection``, as ``AECEnv.last`` gives them (one call layer less)."""
        agent = self.agent_selection
        obs = None
        if observe:
            eng = self.engine
            obs = {"observation": self.game.observe(self._state, self._seat_of[agent]) if eng is None
                   else eng.observe(self._seat_of[agent]), "action_mask": self._mask}
        return (obs, self._cumulative_rewards[agent], self.terminations[agent],
                self.truncations[agent], self.infos[agent])

    def agent_iter(self, max_iter: int = 2**63) -> AgentIterable:
        """Yield the agent to act until the game is over (see :class:`AgentIterable`)."""
        return AgentIterable(self, max_iter)

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The legal-action mask of ``agent`` (default: the agent to act)."""
        if agent is None or agent == self.agent_selection:
            return self._mask
        return self._no_mask.copy()

    def outcome(self) -> dict[str, Any]:
        """The detailed outcome of the game (``game.outcome``: winner, reason,
        scores, sets or payments; strings and ragged lists included).

        The final ``infos`` carry only its fixed-shape numbers
        (``game.outcome_info``); this is the whole of it, for the finished game
        or, while it runs, for the game so far. After an illegal action ended
        the game under ``illegal_action="terminate"``: ``illegal_action``,
        ``offender`` (the agent) and ``reason``.
        """
        if self._outcome is not None:
            return self._outcome
        if self.game_state is None:
            raise RuntimeError("outcome() before reset()")
        return self.game.outcome(self.game_state)

    def record(self) -> dict[str, Any]:
        """This game as a replayable record (see :mod:`setgames.records`)."""
        if self.seed_used is None:
            raise ValueError("a game continued from a set state has no seed to record")
        return {
            "game": self.game.name,
            "version": self.game.version,
            "config": self.game.config_dict(),
            "seed": self.seed_used,
            "actions": list(self.actions),
        }

    # ----------------------------------------------------------------- render
    def render(self) -> Any:
        """``"ansi"``: return the full table as text; ``"human"``: print it;
        ``"svg"``: the table as SVG markup; ``"rgb_array"``: the SVG as an
        ``(H, W, 3) uint8`` frame (needs ``setgames[pictures]``). Pictures show
        everything (a spectator's view, :mod:`setgames.draw`)."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=")
            return None
        if self.game_state is None:
            raise RuntimeError("render() before reset()")
        if self.render_mode in ("svg", "rgb_array"):
            from setgames.draw import draw_state

            picture = draw_state(self.game, self.game_state)
            return picture.svg if self.render_mode == "svg" else picture.to_rgb()
        text = self.game.render(self.game_state, None)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release; present because ``render`` is."""

    def _repr_svg_(self) -> str | None:
        """A notebook shows the table (everything) once the env is reset."""
        if self.game_state is None:
            return None
        from setgames.draw import draw_state

        return draw_state(self.game, self.game_state).svg


class LeanWrapper(BaseWrapper):
    """What PettingZoo's standard wrappers give, without their per-step cost.

    - ``step``/``observe``/``last`` before ``reset`` raise ``RuntimeError``;
    - an action outside the action space raises ``ValueError``;
    - ``illegal_action="raise"`` (default) keeps the bare env's ``ValueError``;
      ``"terminate"`` ends the game instead, the offender scoring
      ``illegal_reward`` and every other agent 0, with ``info["illegal_action"]``,
      ``info["offender"]`` (its seat) and ``info["returns"]`` (what each seat
      got over the game, the penalty included); ``outcome()`` words it.
    """

    def __init__(
        self, env: SetGameEnv, illegal_action: str = "raise", illegal_reward: float = -1.0
    ):
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(
                f"illegal_action {illegal_action!r} is not one of {ILLEGAL_ACTION_MODES}"
            )
        super().__init__(env)
        self._base = env
        self._illegal_action = illegal_action
        self._illegal_reward = check_real("illegal_reward", illegal_reward,
                                          -MAX_ILLEGAL_REWARD, MAX_ILLEGAL_REWARD)
        self._has_reset = False
        self._n = env.game.num_actions

    # Forward the hot attributes directly instead of through __getattr__.
    @property
    def agent_selection(self) -> str:  # type: ignore[override]
        return self._base.agent_selection

    @property
    def agents(self) -> list[str]:  # type: ignore[override]
        return self._base.agents

    @property
    def terminations(self) -> dict[str, bool]:  # type: ignore[override]
        return self._base.terminations

    @property
    def truncations(self) -> dict[str, bool]:  # type: ignore[override]
        return self._base.truncations

    @property
    def rewards(self) -> dict[str, float]:  # type: ignore[override]
        return self._base.rewards

    @property
    def infos(self) -> dict[str, dict]:  # type: ignore[override]
        return self._base.infos

    @property
    def _cumulative_rewards(self) -> dict[str, float]:  # type: ignore[override]
        return self._base._cumulative_rewards

    @property
    def possible_agents(self) -> list[str]:  # type: ignore[override]
        return self._base.possible_agents

    @property
    def observation_spaces(self) -> dict:  # type: ignore[override]
        return self._base.observation_spaces

    @property
    def action_spaces(self) -> dict:  # type: ignore[override]
        return self._base.action_spaces

    @property
    def render_mode(self) -> str | None:  # type: ignore[override]
        return self._base.render_mode

    @property
    def max_num_agents(self) -> int:  # type: ignore[override]
        return len(self._base.possible_agents)

    @property
    def num_agents(self) -> int:  # type: ignore[override]
        return len(self._base.agents)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Reset the bare env."""
        self._has_reset = True
        self._base.reset(seed=seed, options=options)

    def _require_reset(self, what: str) -> None:
        if not self._has_reset:
            raise RuntimeError(f"{what} called before reset()")

    def step(self, action: Any) -> None:
        """Check order and bounds, apply the illegal-action policy, then step."""
        if not self._has_reset:
            self._require_reset("step()")
        base = self._base
        agent = base.agent_selection
        if action is None or base.terminations[agent] or base.truncations[agent]:
            base.step(action)
            return
        a = as_action(action)
        if not 0 <= a < self._n:
            raise ValueError(f"action {short_repr(a)} is outside the action space Discrete({self._n})")
        if self._illegal_action == "raise" or base._mask[a]:
            base.step(a)
            return
        self._terminate_illegal(agent, a)

    def _terminate_illegal(self, agent: str, action: int) -> None:
        base = self._base
        label = base.game.action_to_str(action)
        base._cumulative_rewards[agent] = 0.0
        base.rewards = {x: (self._illegal_reward if x == agent else 0.0) for x in base.agents}
        base._rewarded = True
        seat = base._seat_of[agent]
        # What each seat got over the game: earned before, plus this penalty.
        returns = np.asarray(base.game.returns(base.game_state), dtype=np.float32)
        returns[seat] += self._illegal_reward
        base._outcome = {"illegal_action": True, "offender": agent, "winner": None,
                         "reason": f"illegal action {action} ({label}) by {agent}",
                         "returns": returns.tolist()}
        for x in base.agents:
            base.terminations[x] = True
            base.infos[x] = {"action_mask": base._no_mask, "illegal_action": True, "offender": seat,
                             "winner": -1, "returns": returns.copy()}
        base._mask = base._no_mask
        base._legal_bytes = base._zero_mask_bytes
        base._accumulate_rewards()

    def observe(self, agent: str) -> Any:
        """Observation of ``agent`` (after ``reset``)."""
        if not self._has_reset:
            self._require_reset("observe()")
        return self._base.observe(agent)

    def last(self, observe: bool = True) -> tuple:
        """``(observation, cumulative reward, termination, truncation, info)`` of the agent to act."""
        if not self._has_reset:
            self._require_reset("last()")
        return self._base.last(observe)

    def agent_iter(self, max_iter: int = 2**63) -> AgentIterable:
        """Yield the agent to act until the game is over (see :class:`AgentIterable`)."""
        return AgentIterable(self._base, max_iter)

    def outcome(self) -> dict[str, Any]:
        """The bare env's detailed outcome (see :meth:`SetGameEnv.outcome`)."""
        self._require_reset("outcome()")
        return self._base.outcome()

    def render(self) -> Any:
        """Render the bare env (after ``reset``)."""
        self._require_reset("render()")
        return self._base.render()

    def __str__(self) -> str:
        return str(self._base)

    def _repr_svg_(self) -> str | None:
        """A notebook shows the bare env's table (see :meth:`SetGameEnv._repr_svg_`)."""
        return self._base._repr_svg_()


def make_env(env_class: type[SetGameEnv], illegal_action: str = "raise",
             illegal_reward: float = -1.0, **kwargs: Any) -> LeanWrapper:
    """``env()`` for a game: the bare env behind :class:`LeanWrapper`."""
    if illegal_action not in ILLEGAL_ACTION_MODES:
        raise ValueError(f"illegal_action {illegal_action!r} is not one of {ILLEGAL_ACTION_MODES}")
    return LeanWrapper(env_class(**kwargs), illegal_action, illegal_reward)
