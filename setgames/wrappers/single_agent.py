"""A Gymnasium ``Env`` view of any of our games for single-agent trainers.

The learner plays one seat; the other seats are played by bots (or by
``policy(obs, mask)`` callables, e.g. a frozen copy of the learner) inside
:meth:`SingleAgentEnv.step`, until it is the learner's turn again or the game
is over. The reward of a step is everything the learner's seat earned from
its action up to its next turn, so a game that an opponent's move ends still
pays the learner (negative when it lost).

>>> from setgames.wrappers import SingleAgentEnv
>>> env = SingleAgentEnv("bharg", opponents="random")      # doctest: +SKIP
>>> obs, info = env.reset(seed=0)                            # doctest: +SKIP
>>> obs, r, term, trunc, info = env.step(env.action_masks().nonzero()[0][0])  # doctest: +SKIP

Choices (documented constants/options):

- ``learner_seat``: an int (fixed), ``"rotate"`` (episode ``i`` after a
  seeded reset plays seat ``i mod n``, so ``reset(seed=s)`` is reproducible)
  or ``"random"`` (drawn from the env's seeded generator).
- ``illegal_action``: ``"terminate"`` (default: a Gymnasium env must accept
  every element of its action space, and ``check_env`` samples unmasked
  actions) ends the episode with ``illegal_reward`` and
  ``info["illegal_action"] = True``; ``"raise"`` raises the game's
  ``ValueError`` naming the action and the legal ones.
- A deal where the game ends before the learner ever acts is re-dealt (at
  most :data:`MAX_REDEALS` times): Gymnasium's ``reset`` cannot return a
  finished episode. ``info["redeals"]`` counts them.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from setgames.aec import MAX_ILLEGAL_REWARD
from setgames.checks import check_real, is_integer
from setgames.game import Game, IllegalActionError, rng_from_seed
from setgames.wrappers._common import (
    GameStatePickling,
    PolicyBot,
    resolve_game,
    resolve_opponents,
    trainer_action,
)

__all__ = ["ILLEGAL_ACTION_MODES", "LEARNER_SEAT_MODES", "MAX_REDEALS", "OBS_MODES", "PolicyBot",
           "SingleAgentEnv"]

OBS_MODES = ("flat", "dict")
ILLEGAL_ACTION_MODES = ("terminate", "raise")
LEARNER_SEAT_MODES = ("rotate", "random")
MAX_REDEALS = 100  # deals in a row that end before the learner acts, before giving up
_MAX_SEED = 2**63 - 1


class SingleAgentEnv(GameStatePickling, gym.Env):
    """One seat of a game as a Gymnasium environment; bots play the others.

    Args:
        game: a registry name (``"bharg"``), a :class:`~setgames.game.Game`
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
            text) or ``"human"`` (prints it).
        **config: the game's options (validated by the game).

    Raises:
        ValueError: a bad game, opponent, seat, mode or config.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"]}

    def __init__(
        self,
        game: Any,
        opponents: Any = "random",
        learner_seat: int | str = 0,
        obs_mode: str = "flat",
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
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
        self.seat_mode = learner_seat
        self.obs_mode = obs_mode
        self.illegal_action = illegal_action
        self.illegal_reward = check_real("illegal_reward", illegal_reward, -MAX_ILLEGAL_REWARD,
                                         MAX_ILLEGAL_REWARD)
        self.render_mode = render_mode
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
        self.state: Any = None
        self.learner_seat: int = 0 if isinstance(learner_seat, str) else int(learner_seat)
        self.game_seed: int | None = None
        self._episode = 0
        self._done = True
        self._mask = np.zeros(self._n_actions, dtype=np.int8)

    # ----------------------------------------------------------------- opponents
    def set_opponents(self, opponents: Any) -> None:
        """Replace the opponents (same forms as the constructor); applies from the next step."""
        self.opponents = resolve_opponents(opponents, self.game)

    def _opponent(self, seat: int):
        n = self.game.num_players
        return self.opponents[(seat - self.learner_seat - 1) % n]

    def _play_opponents(self) -> float:
        """Let the other seats act until the learner's turn or the end; the
        learner's reward earned meanwhile."""
        game, state, me = self.game, self.state, self.learner_seat
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
            self.state = self.game.new_state(rng_from_seed(self.game_seed))
            self._play_opponents()
            if not self.game.is_over(self.state):
                break
            redeals += 1
            if redeals > MAX_REDEALS:
                raise RuntimeError(f"{redeals} deals in a row ended before seat "
                                   f"{self.learner_seat} could act")
        self._done = False
        self._update_mask()
        return self._obs(), {"learner_seat": self.learner_seat, "game_seed": self.game_seed,
                             "redeals": redeals}

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """Play the learner's ``action``, then the opponents' moves up to the
        learner's next turn or the end of the game."""
        if self.state is None:
            raise RuntimeError("step() called before reset()")
        if self._done:
            raise RuntimeError("step() called after the episode ended; call reset()")
        a = trainer_action(action)
        game, state = self.game, self.state
        if not (0 <= a < self._n_actions and self._mask[a]):
            if self.illegal_action == "raise":
                game.check_action(state, a)  # raises, naming the legal actions
            return self._illegal(a)
        reward = 0.0
        rewards = game.apply(state, a)
        if rewards is not None:
            reward += float(rewards[self.learner_seat])
        reward += self._play_opponents()
        info: dict[str, Any] = {"learner_seat": self.learner_seat}
        terminated = truncated = False
        if game.is_over(state):
            self._done = True
            truncated = bool(game.is_truncated(state))
            terminated = not truncated
            info.update(game.outcome(state))
            info["returns"] = tuple(float(x) for x in game.returns(state))
        self._update_mask()
        return self._obs(), reward, terminated, truncated, info

    def _illegal(self, a: int) -> tuple[Any, float, bool, bool, dict]:
        self._done = True
        self._mask = np.zeros(self._n_actions, dtype=np.int8)
        label = self.game.action_to_str(a) if 0 <= a < self._n_actions else "out of range"
        info = {"learner_seat": self.learner_seat, "illegal_action": True,
                "reason": f"illegal action {a} ({label}) by seat {self.learner_seat}"}
        return self._obs(), self.illegal_reward, True, False, info

    def _update_mask(self) -> None:
        mask = np.zeros(self._n_actions, dtype=np.int8)
        if not self.game.is_over(self.state):
            mask[self.game.legal_actions(self.state)] = 1
        self._mask = mask

    def _obs(self) -> Any:
        obs = self.game.observe(self.state, self.learner_seat)
        if self.obs_mode == "flat":
            return obs
        return {"observation": obs, "action_mask": self._mask.copy()}

    # ----------------------------------------------------------------- helpers
    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now, as booleans (sb3-contrib's MaskablePPO
        calls this); all False once the episode has ended."""
        return self._mask.astype(bool)

    def legal_actions(self) -> list[int]:
        """Legal action ids of the learner now (empty once the episode has ended)."""
        return [] if self._done else self.game.legal_actions(self.state)

    def render(self) -> str | None:
        """The game as the learner sees it: returned (``"ansi"``) or printed (``"human"``)."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode=")
            return None
        if self.state is None:
            raise RuntimeError("render() called before reset()")
        text = self.game.render(self.state, self.learner_seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

