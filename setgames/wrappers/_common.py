"""What the views share: naming a game, naming opponents, their options' words,
trainers' actions, pictures of a batch's slots, pickling."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from setgames.batch.guard import SHORT_DEAL_MODES, as_actions, check_opponents
from setgames.bots.base import Bot, RandomBot
from setgames.checks import as_action
from setgames.game import Game

__all__ = [
    "ILLEGAL_ACTION_MODES",
    "RENDER_VIEWS",
    "SHORT_DEALS_MODES",
    "VECTOR_OPPONENTS",
    "GameStatePickling",
    "PolicyBot",
    "check_view_options",
    "integer_actions",
    "rebuild_game",
    "render_slots",
    "resolve_game",
    "resolve_opponent",
    "resolve_opponents",
    "trainer_action",
]

ILLEGAL_ACTION_MODES = ("terminate", "raise")  # the views' words: the batch's, the views' default first
SHORT_DEALS_MODES = SHORT_DEAL_MODES
RENDER_VIEWS = ("learner", "spectator")  # what a picture shows: the learner's view, or everything
VECTOR_OPPONENTS = ("random", "greedy")  # the batch's own opponents, played in C


def trainer_action(action: Any) -> int:
    """A trainer's action as an id: what :func:`setgames.checks.as_action` takes,
    plus an integer array of one element (a batch of one, as policies return).

    Raises:
        ValueError: a float, bool, string, a non-integer array or one of several elements.
    """
    if isinstance(action, np.ndarray) and action.size == 1 and action.ndim:
        action = action.reshape(())
    return as_action(action)


def integer_actions(actions: Any, n: int) -> np.ndarray:
    """A vector view's actions as an integer array for the batch: an integer ndarray
    as it is, a sequence of ints as an array; never a cast from floats.

    Raises:
        ValueError: floats, bools or anything else that is not integers (one line).
    """
    if not isinstance(actions, (np.ndarray, list, tuple)):  # a tensor, an array-like
        actions = np.asarray(actions)
    return as_actions(actions, n)


def check_view_options(game: Any, config: dict[str, Any], opponents: Any, illegal_action: Any,
                       short_deals: Any, render_mode: Any, render_modes: Sequence[str],
                       render_view: Any) -> Game:
    """The options a batched view checks before it builds its batch; the game.

    Raises:
        ValueError: a bad option, naming it (one line).
    """
    if opponents is None:
        raise ValueError("opponents None (self-play) is not for a view: the view is single-agent (step "
                         "the batch itself for self-play)")
    check_opponents(opponents, VECTOR_OPPONENTS)
    if illegal_action not in ILLEGAL_ACTION_MODES:
        raise ValueError(f"illegal_action {illegal_action!r} is not one of {ILLEGAL_ACTION_MODES}")
    if short_deals not in SHORT_DEALS_MODES:
        raise ValueError(f"short_deals {short_deals!r} is not one of {SHORT_DEALS_MODES}")
    if render_mode is not None and render_mode not in render_modes:
        raise ValueError(f"render_mode {render_mode!r} is not None or one of {list(render_modes)}")
    if render_view not in RENDER_VIEWS:
        raise ValueError(f"render_view {render_view!r} is not one of {RENDER_VIEWS}")
    return resolve_game(game, config)


def render_slots(batch: Any, game: Game, render_mode: str, render_view: str) -> tuple[Any, ...]:
    """Every slot of ``batch`` drawn from its rules-layer state (``batch.state(i)``):
    ``(H, W, 3) uint8`` frames (``"rgb_array"``, :mod:`setgames.draw`) or text
    (``"ansi"``), of what the slot's learner may see or (``"spectator"``) everything."""
    frames = []
    for i in range(batch.num_envs):
        state = batch.state(i)
        seat = None if render_view == "spectator" else int(batch.learner_seat[i])
        if render_mode == "rgb_array":
            from setgames.draw import draw_state

            frames.append(draw_state(game, state, seat=seat).to_rgb())
        else:
            frames.append(game.render(state, seat))
    return tuple(frames)


def resolve_game(game: Any, config: dict[str, Any]) -> Game:
    """A :class:`Game` from a registry name, ``"module:Class"``, a ``Game`` subclass
    or an instance.

    Raises:
        ValueError: an unknown name, or a config given together with an instance.
    """
    if isinstance(game, str):
        if ":" in game:  # "package.module:GameClass", for games outside the registry
            import importlib

            mod, _, cls = game.partition(":")
            try:
                game = getattr(importlib.import_module(mod), cls)
            except (ImportError, AttributeError):
                raise ValueError(f"game {game!r}: no class {cls!r} in module {mod!r}") from None
            return resolve_game(game, config)
        from setgames.registry import make_game

        return make_game(game, **config)
    if isinstance(game, type) and issubclass(game, Game):
        return game(**config)
    if isinstance(game, Game):
        if config:
            raise ValueError(f"config {sorted(config)} given with a Game instance; "
                             "pass the game's name or class instead")
        return game
    raise ValueError(f"game {game!r} is neither a game name, a Game subclass nor a Game")


def rebuild_game(game: Game) -> tuple[type[Game], dict[str, Any]]:
    """``(class, config)`` that rebuilds ``game``: what a pickle stores, because
    action layouts hold label functions that plain ``pickle`` cannot carry."""
    return type(game), game.config_dict()


class PolicyBot(Bot):
    """A bot that plays a policy of the learner's kind: ``policy(obs, mask) -> action``.

    ``obs`` is the seat's flat int8 observation, ``mask`` its int8 legal-action
    mask. The action is checked like any opponent's.

    Args:
        policy: the callable (a frozen network, a lambda, a model's ``predict``).
        name: label used in errors and reprs.
    """

    name = "policy"

    def __init__(self, policy: Callable[[np.ndarray, np.ndarray], Any], name: str = "policy"):
        super().__init__(None)
        if not callable(policy):
            raise ValueError(f"policy {policy!r} is not callable")
        self.policy = policy
        self.label = name

    def act(self, game: Game, state: Any, seat: int) -> int:
        """The policy's action on ``seat``'s observation and mask."""
        out = self.policy(game.observe(state, seat), game.legal_mask(state))
        return int(np.asarray(out).reshape(-1)[0]) if np.ndim(out) else int(out)

    def supports_engine(self, game: Game, engine: Any) -> bool:
        """Every engine gives the observation and the mask (equal to the rules layer's)."""
        return self._moves_as(PolicyBot)

    def act_engine(self, game: Game, engine: Any, seat: int) -> int:
        """The policy's action on the engine's observation and mask of ``seat``."""
        out = self.policy(engine.observe(seat), engine.mask())
        return int(np.asarray(out).reshape(-1)[0]) if np.ndim(out) else int(out)

    def __repr__(self) -> str:
        return f"PolicyBot({self.label})"


def resolve_opponent(opp: Any, game: Game, seed: int | None) -> Bot:
    """A :class:`Bot` from a built-in bot spec (``"greedy"``, ``"level:3"``,
    ``"greedy:epsilon=0.2"``), a bot, or a ``policy(obs, mask)`` callable."""
    if isinstance(opp, Bot):
        return opp
    if isinstance(opp, str):
        if opp == "random":
            return RandomBot(seed)
        from setgames.bots.registry import make_bot, parse_bot_spec

        name, options = parse_bot_spec(opp)
        return make_bot(name, game.name, seed, **options)
    if hasattr(opp, "act") and callable(opp.act):
        return opp  # a duck-typed bot
    if callable(opp):
        return PolicyBot(opp)
    raise ValueError(f"opponent {opp!r} is neither a bot name, a Bot nor a callable")


def resolve_opponents(opponents: Any, game: Game) -> list[Bot]:
    """One opponent per other seat, in order after the learner (clockwise).

    A single name, bot or callable plays every other seat (a name gives each
    seat its own bot); a sequence gives one per seat.
    """
    k = game.num_players - 1
    if opponents is None:
        opponents = "random"
    if isinstance(opponents, Sequence) and not isinstance(opponents, str):
        if len(opponents) != k:
            raise ValueError(f"{len(opponents)} opponents given; {game.name} with "
                             f"{game.num_players} players needs {k}")
        return [resolve_opponent(o, game, None) for o in opponents]
    return [resolve_opponent(opponents, game, None) for _ in range(k)]


class GameStatePickling:
    """Pickle support for views holding ``self.game`` and ``self.state``.

    Action layouts hold label functions that plain ``pickle`` cannot carry, so
    the game is rebuilt from its class and config and the state travels as
    JSON (what SB3's ``SubprocVecEnv`` needs). ``state`` is read and set as an
    attribute, so a view may make it a property (one stepping a compiled
    engine rebuilds it from the engine, and loads the engine when it is set).
    """

    def __getstate__(self) -> dict[str, Any]:
        d = self.__dict__.copy()
        game = d.pop("game")
        d["_game_spec"] = rebuild_game(game)
        state = self.state
        d.pop("state", None)
        d["_state_json"] = None if state is None else game.to_json(state)
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        cls, config = d.pop("_game_spec")
        state_json = d.pop("_state_json")
        self.__dict__.update(d)
        self.game = cls(**config)
        self.state = None if state_json is None else self.game.from_json(state_json)
