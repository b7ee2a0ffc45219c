"""A Gymnasium ``Env`` view of any of our games for single-agent trainers.

The learner plays one seat; the other seats are played by bots (or by
``policy(obs, mask)`` callables, e.g. a frozen copy of the learner) inside
:meth:`SingleAgentEnv.step`, until it is the learner's turn again or the game
is over. The reward of a step is everything the learner's seat earned from
its action up to its next turn, so a game that an opponent's move ends still
pays the learner (negative when it lost). What the seat earns before its
first move of a game (in match play the seats before it can end rounds
and score) is added to the reward of its first step in that game: every
reward the seat earns reaches it, and an episode's rewards sum to the game's
``returns`` for the learner's seat. The batched views
(:mod:`setgames.batch.gym_vector`, :mod:`setgames.batch.sb3_vec`) and the
batch make the same choice.

>>> from setgames.wrappers import SingleAgentEnv
>>> env = SingleAgentEnv(GAME, opponents="random")         # doctest: +SKIP
>>> obs, info = env.reset(seed=0)                            # doctest: +SKIP
>>> obs, r, term, trunc, info = env.step(env.action_masks().nonzero()[0][0])  # doctest: +SKIP

Choices (documented constants/options):

- ``learner_seat``: an int (fixed), ``"rotate"`` (episode ``i`` after a
  seeded reset plays seat ``i mod n``, so ``reset(seed=s)`` is reproducible)
  or ``"random"`` (drawn from the env's seeded generator).
- ``illegal_action``: ``"terminate"`` (default: a Gymnasium env must accept
  every element of its action space, and ``check_env`` samples unmasked
  actions) ends the episode with ``illegal_reward`` and
  ``info["illegal_action"] = True`` (a first step pays what the seat earned
  before it too); ``"raise"`` raises the game's
  ``ValueError`` naming the action and the legal ones.
- ``short_deals``: a deal that ends before the learner ever acts (the
  seats before it end it) is, under ``"skip"`` (default), not played: the
  env deals the next one (at most :data:`MAX_REDEALS` in a row), and
  ``info["skipped_deals"]`` (in every info: how many deals this env has
  skipped since it was built, as the batch's ``skipped_deals`` counts per
  slot) says so, since skipping biases win rates. Under ``"play"`` such a
  deal is a one-step episode: ``reset`` returns the learner's view of the
  finished deal with only action :data:`SHORT_DEAL_ACTION` (0) legal, a
  no-op whose step returns the learner's rewards of the deal and ends the
  episode (``terminated``, or ``truncated`` if the deal hit the turn limit).
- Masks: :meth:`SingleAgentEnv.action_masks` (what MaskablePPO calls; through
  Gymnasium wrappers, which no longer forward attributes, it is
  ``env.get_wrapper_attr("action_masks")()``, as SB3 calls it), and
  ``info["action_mask"]`` after every ``reset`` and ``step``, which every
  wrapper and vector env passes on: both ``bool``, equal, as the batched
  views' masks are. The ``"dict"`` observation's ``action_mask`` is int8
  (its space's dtype, as PettingZoo's masks are).
- ``render_mode="rgb_array"``: a picture (:mod:`setgames.draw`, needs
  ``setgames[pictures]``) of what the learner may see, or of everything under
  ``render_view="spectator"``; ``gymnasium.wrappers.RecordVideo`` records
  episodes from it (needs ``moviepy``, in the same ``pictures`` extra).
- Infos hold numbers and fixed-shape arrays only (buffers store them): the
  last step adds ``game.outcome_info`` and ``returns`` (float32, every seat);
  :meth:`SingleAgentEnv.outcome` has the detailed outcome.
- ``engine``: where the game has a compiled engine (:mod:`setgames.engine`)
  and every opponent can move on it (:meth:`setgames.bots.Bot.supports_engine`:
  the random, greedy and ``ppo`` bots and policies do; search bots do not),
  the env steps the engine, the opponents moving with
  :meth:`~setgames.bots.Bot.act_engine` (the greedy bots through their
  compiled copies): a handful of C calls a step instead of the rules layer.
  The games are the same ones, step for step (observations, masks, rewards,
  infos, the opponents' draws). ``engine=None`` (default) does so when it
  can and steps the rules layer otherwise; ``True`` requires it (a
  ``ValueError`` names what is missing); ``False`` steps the rules layer.
  :attr:`SingleAgentEnv.state` is then a snapshot rebuilt from the engine
  (assigning it loads the engine).
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from setgames.aec import MAX_ILLEGAL_REWARD, RENDER_FPS
from setgames.checks import check_real, is_integer, short_repr
from setgames.engine import engine_class
from setgames.game import Game, IllegalActionError, rng_from_seed
from setgames.wrappers._common import (
    ILLEGAL_ACTION_MODES,
    RENDER_VIEWS,
    SHORT_DEALS_MODES,
    GameStatePickling,
    PolicyBot,
    resolve_game,
    resolve_opponents,
    trainer_action,
)

__all__ = ["ILLEGAL_ACTION_MODES", "LEARNER_SEAT_MODES", "MAX_REDEALS", "OBS_MODES", "RENDER_VIEWS",
           "SHORT_DEALS_MODES", "SHORT_DEAL_ACTION", "PolicyBot", "SingleAgentEnv"]

OBS_MODES = ("flat", "dict")
LEARNER_SEAT_MODES = ("rotate", "random")
MAX_REDEALS = 100  # deals in a row that end before the learner acts, before giving up
SHORT_DEAL_ACTION = 0  # the one legal action (a no-op) of a deal that ended before the learner acted
_MAX_SEED = 2**63 - 1


class SingleAgentEnv(GameStatePickling, gym.Env):
    """One seat of a game as a Gymnasium environment; bots play the others.

    Args:
        game: a registry name (:func:`~setgames.registry.game_names`), a :class:`~setgames.game.Game`
            subclass, or a ``Game`` instance (then no ``config``).
        opponents: who plays the other seats: a bot name (``"random"``,
            ``"greedy"``, ...), a :class:`~setgames.bots.Bot`, a
            ``policy(obs, mask) -> action`` callable, or a sequence of these,
            one per other seat in play order after the learner.
        learner_seat: a seat number, ``"rotate"`` or ``"random"``.
        obs_mode: ``"flat"`` (the int8 vector; masks via :meth:`action_masks`)
            or ``"dict"`` (``{"observation", "action_mask"}``).
        illegal_action: ``"terminate"`` or ``"raise"`` (see the module doc).
        illegal_reward: the learner's reward for an illegal action under
            ``"terminate"``.
        render_mode: ``"ansi"`` (``render`` returns the learner's view as
            text), ``"human"`` (prints it) or ``"rgb_array"`` (a picture of it,
            ``(H, W, 3) uint8``: what ``gymnasium.wrappers.RecordVideo`` records).
        engine: ``None`` (step the compiled engine when it is built and every
            opponent can move on it), ``True`` (require that) or ``False``
            (the rules layer); see the module doc.
        short_deals: ``"skip"`` or ``"play"``: deals that end before the
            learner acts (see the module doc).
        render_view: ``"learner"`` (what the learner may see) or
            ``"spectator"`` (everything).
        **config: the game's options (validated by the game).

    Attributes:
        engine: the compiled engine stepping the game, or None (the rules layer).

    Raises:
        ValueError: a bad game, opponent, seat, mode or config; ``engine=True``
            where the game has no engine built or an opponent cannot move on it.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human", "rgb_array"],
                                          "render_fps": RENDER_FPS}

    def __init__(
        self,
        game: Any,
        opponents: Any = "random",
        learner_seat: int | str = 0,
        obs_mode: str = "flat",
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        engine: bool | None = None,
        short_deals: str = "skip",
        render_view: str = "learner",
        **config: Any,
    ):
        self.game: Game = resolve_game(game, config)
        n = self.game.num_players
        if isinstance(learner_seat, str):
            if learner_seat not in LEARNER_SEAT_MODES:
                raise ValueError(f"learner_seat {learner_seat!r} is not a seat number nor one of "
                                 f"{LEARNER_SEAT_MODES}")
        elif not (is_integer(learner_seat) and 0 <= learner_seat < n):  # not True, not 1.0
            raise ValueError(f"learner_seat {learner_seat!r} is not a seat of a {n}-player game")
        if obs_mode not in OBS_MODES:
            raise ValueError(f"obs_mode {obs_mode!r} is not one of {OBS_MODES}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action {illegal_action!r} is not one of {ILLEGAL_ACTION_MODES}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        if short_deals not in SHORT_DEALS_MODES:
            raise ValueError(f"short_deals {short_deals!r} is not one of {SHORT_DEALS_MODES}")
        if render_view not in RENDER_VIEWS:
            raise ValueError(f"render_view {render_view!r} is not one of {RENDER_VIEWS}")
        # Exactly None, True or False: 0 == False and 1 == True, but engine=0 is a mistake.
        if engine is not None and engine is not True and engine is not False:
            raise ValueError(f"engine {short_repr(engine)} must be None (use one when it can), True or False")
        self.seat_mode = learner_seat
        self.obs_mode = obs_mode
        self.illegal_action = illegal_action
        self.illegal_reward = check_real("illegal_reward", illegal_reward, -MAX_ILLEGAL_REWARD,
                                         MAX_ILLEGAL_REWARD)
        self.render_mode = render_mode
        self.render_view = render_view
        self.short_deals = short_deals
        self.opponents = resolve_opponents(opponents, self.game)
        self._n_actions = self.game.num_actions
        self.action_space = spaces.Discrete(self._n_actions)
        box = self.game.obs_spec.box()
        if obs_mode == "flat":
            self.observation_space = box
        else:
            self.observation_space = spaces.Dict({
                "observation": box,
                "action_mask": spaces.Box(0, 1, (self._n_actions,), dtype=np.int8),
            })
        self.learner_seat: int = 0 if isinstance(learner_seat, str) else int(learner_seat)
        self.game_seed: int | None = None
        self._episode = 0
        self._done = True
        self._mask = np.zeros(self._n_actions, dtype=bool)
        self._outcome: dict[str, Any] | None = None
        self._pending = 0.0  # what the seat earned before its first move, owed to its first step
        self._short = False  # a deal that ended before the learner acted (short_deals="play")
        self.skipped_deals = 0
        self._engine_option = engine
        self.engine: Any = None
        self._state: Any = None
        self._stale = False  # the engine has moved on from self._state
        self._returns = [0.0] * n  # what each seat earned this game (the engine path's game.returns)
        self._attach_engine()

    # ----------------------------------------------------------------- engine
    def _attach_engine(self) -> None:
        """Build the game's engine (when allowed and built) and step it if the
        opponents can move on it (at construction and after unpickling)."""
        option = self._engine_option
        cls = engine_class(self.game) if option is not False else None
        if option is True and cls is None:
            raise ValueError(f"{self.game.name} has no compiled engine here (not built, or "
                             f"SETGAMES_ENGINE=0); pass engine=None or False")
        self._spare_engine = cls(self.game) if cls is not None else None
        self._switch(*self._engine_route(self.opponents), self._state)

    def _engine_route(self, bots: list[Any]) -> tuple[Any, list[Any] | None]:
        """``(engine, each bot's act_engine)`` when every bot can move on the engine,
        else ``(None, None)`` (``engine=True``: a ValueError naming the first that cannot)."""
        eng = self._spare_engine
        if eng is None:
            return None, None
        game = self.game
        for bot in bots:
            supports = getattr(bot, "supports_engine", None)
            if not (callable(supports) and supports(game, eng)):
                if self._engine_option is True:
                    raise ValueError(f"engine=True, but opponent {bot!r} cannot move on the compiled "
                                     f"engine (no act_engine route); pass engine=None or False")
                return None, None
        return eng, [bot.act_engine for bot in bots]

    def _switch(self, engine: Any, moves: list[Any] | None, state: Any) -> None:
        """Step ``engine`` (None: the rules layer) from ``state``, the game so far."""
        if engine is not None and state is not None and engine is not self.engine:
            engine.load(state)
            self._returns = list(self.game.returns(state))  # what the seats earned so far
        self.engine = engine
        self._engine_moves = moves
        self._state = state
        self._stale = False

    @property
    def state(self) -> Any:
        """The rules-layer state of the game (None before ``reset``). When an
        engine steps the game it is a snapshot rebuilt from the engine on the
        first read after a step: changing it does not change the game, and
        assigning ``env.state = s`` does (it loads the engine)."""
        if self._stale:
            self._state = self._snapshot()
            self._stale = False
        return self._state

    @state.setter
    def state(self, state: Any) -> None:
        if self.engine is not None and state is not None:
            self.engine.load(state)  # validates before it copies anything
        self._state = state
        self._stale = False
        if state is not None:
            self._returns = list(self.game.returns(state))

    def _snapshot(self) -> Any:
        """The engine's game as a new rules-layer state."""
        return self.game.from_json(self.engine.to_json())

    def __getstate__(self) -> dict[str, Any]:
        # The state travels as JSON (GameStatePickling); the engine is rebuilt from it.
        d = super().__getstate__()
        for key in ("engine", "_spare_engine", "_engine_moves", "_state", "_stale"):
            d.pop(key, None)
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.engine = None  # until _attach_engine: the state below is the rules layer's
        super().__setstate__(d)
        self._attach_engine()

    # ----------------------------------------------------------------- opponents
    def set_opponents(self, opponents: Any) -> None:
        """Replace the opponents (same forms as the constructor); applies from the next step.

        The env steps the engine from then on if every new opponent can move on
        it (and ``engine`` is not False), else the rules layer, the game going on
        from where it is.

        Raises:
            ValueError: a bad opponent; under ``engine=True``, one that cannot move
                on the engine (the opponents are then unchanged).
        """
        bots = resolve_opponents(opponents, self.game)
        route = self._engine_route(bots)
        state = self.state  # the game so far (a snapshot when the engine steps it)
        self.opponents = bots
        self._switch(*route, state)

    def _opponent(self, seat: int):
        n = self.game.num_players
        return self.opponents[(seat - self.learner_seat - 1) % n]

    def _play_opponents(self) -> float:
        """Let the other seats act until the learner's turn or the end; the
        learner's reward earned meanwhile."""
        game, state, me = self.game, self._state, self.learner_seat
        earned = 0.0
        seat = game.current_seat(state)
        while seat >= 0 and seat != me:
            bot = self._opponent(seat)
            a = bot.act(game, state, seat)
            try:
                a = game.check_action(state, a)
            except IllegalActionError as exc:
                raise ValueError(f"opponent {bot!r} in seat {seat}: {exc}") from None
            rewards = game.apply(state, a)
            if rewards is not None:
                earned += float(rewards[me])
            seat = game.current_seat(state)
        return earned

    def _deal_engine(self, rng: np.random.Generator) -> None:
        """The deal ``game.new_state(rng)`` makes, in the engine (from the same draws)."""
        eng = self.engine
        if hasattr(eng, "deal"):
            eng.deal(rng)  # without building the rules-layer state
        else:
            eng.load(self.game.new_state(rng))
        self._stale = True
        self._returns = [0.0] * self.game.num_players

    def _play_opponents_engine(self) -> float:
        """:meth:`_play_opponents` on the engine: each opponent's ``act_engine``."""
        eng, game, me, moves = self.engine, self.game, self.learner_seat, self._engine_moves
        n = game.num_players
        earned = 0.0
        seat = eng.current_seat()
        while seat >= 0 and seat != me:
            k = (seat - me - 1) % n
            a = moves[k](game, eng, seat)
            if type(a) is not int:  # what the rules path's check_action takes, it takes
                a = self._check_opponent_action(k, seat, a)
            try:
                rewards = eng.apply(a)
            except (ValueError, OverflowError):  # illegal (nothing changed): worded by the rules layer
                self._check_opponent_action(k, seat, a)
                raise
            if rewards is not None:
                earned += float(rewards[me])
                self._add_returns(rewards)
            seat = eng.current_seat()
        return earned

    def _check_opponent_action(self, k: int, seat: int, a: Any) -> int:
        """``a`` as the rules path checks an opponent's action: the id, or the
        rules layer's ValueError naming the opponent (rare: no per-step cost)."""
        try:
            return self.game.check_action(self._snapshot(), a)
        except IllegalActionError as exc:
            raise ValueError(f"opponent {self.opponents[k]!r} in seat {seat}: {exc}") from None

    def _add_returns(self, rewards: Any) -> None:
        # game.returns is the per-seat sum of the rewards apply() gave (the Game contract)
        ret = self._returns
        for i, r in enumerate(rewards):
            ret[i] += r

    # ----------------------------------------------------------------- gym API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        """Deal a new game, let the seats before the learner play, and return
        the learner's first observation. ``seed`` fixes the deal, the seat and
        the opponents' generators."""
        super().reset(seed=seed)
        if seed is not None:
            self._episode = 0
        n = self.game.num_players
        if self.seat_mode == "rotate":
            self.learner_seat = self._episode % n
        elif self.seat_mode == "random":
            self.learner_seat = int(self.np_random.integers(n))
        self._episode += 1
        redeals = 0
        while True:
            self.game_seed = int(self.np_random.integers(_MAX_SEED))
            for bot in self.opponents:
                if hasattr(bot, "reset"):
                    bot.reset(int(self.np_random.integers(_MAX_SEED)))
            if self.engine is not None:
                self._deal_engine(rng_from_seed(self.game_seed))
                earned = self._play_opponents_engine()
                over = self.engine.current_seat() < 0
            else:
                self._state = self.game.new_state(rng_from_seed(self.game_seed))
                earned = self._play_opponents()
                over = self.game.is_over(self._state)
            if not over or self.short_deals == "play":
                break
            redeals += 1
            self.skipped_deals += 1
            if redeals > MAX_REDEALS:
                raise RuntimeError(f"{redeals} deals in a row ended before seat "
                                   f"{self.learner_seat} could act")
        # What the seats before the learner earned it is paid on its first step (the module doc).
        self._pending = earned
        self._short = over
        self._done = False
        self._outcome = None
        if over:
            self._mask = np.zeros(self._n_actions, dtype=bool)
            self._mask[SHORT_DEAL_ACTION] = True
        else:
            self._update_mask()
        return self._obs(), {"learner_seat": self.learner_seat, "game_seed": self.game_seed,
                             "skipped_deals": self.skipped_deals, "action_mask": self._mask.copy()}

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """Play the learner's ``action``, then the opponents' moves up to the
        learner's next turn or the end of the game. The first step of a game
        also pays what the learner's seat earned before its first move."""
        if self._done:
            if self._state is None and not self._stale:
                raise RuntimeError("step() called before reset()")
            raise RuntimeError("step() called after the episode ended; call reset()")
        a = trainer_action(action)
        if not (0 <= a < self._n_actions and self._mask[a]):
            if self.illegal_action == "raise":
                if self._short:
                    raise ValueError(f"action {a} is not legal: this deal ended before seat "
                                     f"{self.learner_seat} could act; legal: [{SHORT_DEAL_ACTION}]")
                self.game.check_action(self.state, a)  # raises, naming the legal actions
            return self._illegal(a)
        reward, self._pending = self._pending, 0.0
        if self._short:
            return self._end_short_deal(reward)
        if self.engine is not None:
            return self._step_engine(a, reward)
        game, state = self.game, self._state
        rewards = game.apply(state, a)
        if rewards is not None:
            reward += float(rewards[self.learner_seat])
        reward += self._play_opponents()
        info: dict[str, Any] = {"learner_seat": self.learner_seat, "skipped_deals": self.skipped_deals}
        terminated = truncated = False
        if game.is_over(state):
            terminated, truncated = self._game_over(info)
        self._update_mask()
        info["action_mask"] = self._mask.copy()
        return self._obs(), reward, terminated, truncated, info

    def _game_over(self, info: dict[str, Any]) -> tuple[bool, bool]:
        """The episode's end: ``(terminated, truncated)``; the outcome and the returns into ``info``."""
        self._done = True
        eng = self.engine
        if eng is not None:
            truncated = bool(eng.is_truncated())
            self._outcome = eng.outcome()
            returns = self._returns
        else:
            truncated = bool(self.game.is_truncated(self._state))
            self._outcome = self.game.outcome(self._state)
            returns = self.game.returns(self._state)
        info.update(self.game.outcome_info(self._outcome))
        info["returns"] = np.asarray(returns, dtype=np.float32)
        return not truncated, truncated

    def _end_short_deal(self, reward: float) -> tuple[Any, float, bool, bool, dict]:
        """The no-op step of a deal that ended before the learner acted (``short_deals="play"``)."""
        self._short = False
        info: dict[str, Any] = {"learner_seat": self.learner_seat, "skipped_deals": self.skipped_deals}
        terminated, truncated = self._game_over(info)
        self._mask = np.zeros(self._n_actions, dtype=bool)
        info["action_mask"] = self._mask.copy()
        return self._obs(), reward, terminated, truncated, info

    def _step_engine(self, a: int, reward: float) -> tuple[Any, float, bool, bool, dict]:
        """:meth:`step` on the engine, for a legal ``a``, from ``reward`` (what is owed
        already): the same sums in the same order as the rules path (so rewards
        are equal to the last bit)."""
        eng, me = self.engine, self.learner_seat
        self._stale = True
        rewards = eng.apply(a)
        if rewards is not None:
            reward += float(rewards[me])
            self._add_returns(rewards)
        reward += self._play_opponents_engine()
        info: dict[str, Any] = {"learner_seat": me, "skipped_deals": self.skipped_deals}
        terminated = truncated = False
        if eng.current_seat() < 0:
            terminated, truncated = self._game_over(info)
        self._update_mask()
        info["action_mask"] = self._mask.copy()
        obs = eng.observe(me)
        if self.obs_mode != "flat":
            obs = {"observation": obs, "action_mask": self._mask.astype(np.int8)}
        return obs, reward, terminated, truncated, info

    def _illegal(self, a: int) -> tuple[Any, float, bool, bool, dict]:
        self._done = True
        self._short = False
        self._mask = np.zeros(self._n_actions, dtype=bool)
        label = self.game.action_to_str(a) if 0 <= a < self._n_actions else "out of range"
        self._outcome = {"illegal_action": True, "offender": self.learner_seat,
                         "reason": f"illegal action {a} ({label}) by seat {self.learner_seat}"}
        info = {"learner_seat": self.learner_seat, "illegal_action": True,
                "skipped_deals": self.skipped_deals, "action_mask": self._mask.copy()}
        # What the seat earned before its first move is owed still (the module doc).
        reward, self._pending = self.illegal_reward + self._pending, 0.0
        return self._obs(), reward, True, False, info

    def _update_mask(self) -> None:
        eng = self.engine
        if eng is not None:
            # the engine's mask is a new 0/1 int8 array: viewed as bool, not copied
            self._mask = eng.mask().view(np.bool_) if eng.current_seat() >= 0 \
                else np.zeros(self._n_actions, dtype=bool)
            return
        mask = np.zeros(self._n_actions, dtype=bool)
        if not self.game.is_over(self._state):
            mask[self.game.legal_actions(self._state)] = True
        self._mask = mask

    def _obs(self) -> Any:
        eng = self.engine
        if eng is not None:
            obs = eng.observe(self.learner_seat)
        else:
            obs = self.game.observe(self._state, self.learner_seat)
        if self.obs_mode == "flat":
            return obs
        return {"observation": obs, "action_mask": self._mask.astype(np.int8)}

    # ----------------------------------------------------------------- helpers
    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now, as booleans (sb3-contrib's MaskablePPO
        calls this): the same bool array as ``info["action_mask"]``; all False once
        the episode has ended."""
        return self._mask.copy()

    def outcome(self) -> dict[str, Any]:
        """The detailed outcome (``game.outcome``, strings and ragged lists
        included) of the game, finished or so far; after an illegal action,
        ``illegal_action``, ``offender`` and ``reason``."""
        if self._outcome is not None:
            return self._outcome
        if self.state is None:
            raise RuntimeError("outcome() called before reset()")
        return self.game.outcome(self.state)

    def legal_actions(self) -> list[int]:
        """Legal action ids of the learner now (empty once the episode has ended)."""
        if self._done:
            return []
        eng = self.engine
        return eng.legal_actions() if eng is not None else self.game.legal_actions(self._state)

    def render(self) -> Any:
        """The game as the learner sees it (``render_view="spectator"``: everything):
        text returned (``"ansi"``) or printed (``"human"``), or an ``(H, W, 3)
        uint8`` frame (``"rgb_array"``, needs ``setgames[pictures]``)."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode=")
            return None
        if self.state is None:
            raise RuntimeError("render() called before reset()")
        seat = None if self.render_view == "spectator" else self.learner_seat
        if self.render_mode == "rgb_array":
            from setgames.draw import draw_state

            return draw_state(self.game, self.state, seat=seat).to_rgb()
        text = self.game.render(self.state, seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text
