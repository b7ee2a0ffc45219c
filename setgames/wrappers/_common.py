"""What the views share: naming a game, naming opponents, pickling."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from setgames.bots.base import Bot, RandomBot
from setgames.checks import as_action
from setgames.game import Game

__all__ = [
    "GameStatePickling",
    "PolicyBot",
    "rebuild_game",
    "resolve_game",
    "resolve_opponent",
    "resolve_opponents",
    "trainer_action",
]


def trainer_action(action: Any) -> int:
    """A trainer's action as an id: what :func:`setgames.checks.as_action` takes,
    plus an integer array of one element (a batch of one, as policies return).

    Raises:
        ValueError: a float, bool, string, a non-integer array or one of several elements.
    """
    if isinstance(action, np.ndarray) and action.size == 1 and action.ndim:
        action = action.reshape(())
    return as_action(action)


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
    """A :class:`Bot` from a bot name, a bot, or a ``policy(obs, mask)`` callable."""
    if isinstance(opp, Bot):
        return opp
    if isinstance(opp, str):
        if opp == "random":
            return RandomBot(seed)
        from setgames.bots.registry import make_bot

        return make_bot(opp, game.name, seed)
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
