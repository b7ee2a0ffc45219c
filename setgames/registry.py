"""The games, by short name: the one place the core names them.

Each game package holds everything about its game and describes what it
offers in one :class:`GameInfo` (``<package>/descriptor.py``, attribute
``DESCRIPTOR``): the rules, the env, its title, its greedy bot, the hooks it
lends the search and its tools for human play. The core's tools (bots, search,
arena, play, wrappers) ask this registry and never branch on a game's name.

The references are ``"module:attribute"`` strings, imported on first use, so
listing the games imports no game (the tools name the games, the games never
import the tools). A game outside this list (a test game, a game of another
distribution) joins with :func:`register` and then gets every tool the
descriptor names, as the built-in games do:

>>> info = GameInfo(name="toy", title="Toy", rules="tests.setgames.toy_game:ToyGame")
>>> register(info) is info, describe("toy").title, "toy" in game_names()
(True, 'Toy', True)
>>> unregister("toy")
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BUILTIN_DESCRIPTORS",
    "BUILTIN_TITLES",
    "GameInfo",
    "describe",
    "env_class",
    "game_class",
    "game_names",
    "game_title",
    "load_ref",
    "make_game",
    "part",
    "register",
    "unregister",
]

# The built-in games: short name -> descriptor module, in the order tools list them. The
# names are here too (not only in the descriptors) so that listing the games imports none.
BUILTIN_DESCRIPTORS = {
    "tethsi": "tethsi_env.descriptor",
    "bharg": "bharg_env.descriptor",
    "tusac": "tusac_env.descriptor",
}
# Their titles, for the same reason: the command line's help names the games without
# importing them (describe() holds each descriptor to its title here).
BUILTIN_TITLES = {"tethsi": "Tet Hsi", "bharg": "Bharg", "tusac": "Tu Sac"}


@dataclass(frozen=True)
class GameInfo:
    """What a game package offers the tools.

    Every reference is a ``"module:attribute"`` string (imported by
    :func:`load_ref` when a tool first needs it) or None where the game has
    no such part.

    Attributes:
        name: the short name tools and records use (``"tusac"``).
        title: the name people read (``"Tu Sac"``).
        rules: the :class:`~setgames.game.Game` subclass.
        env: the bare AEC env class (``raw_env``), or None.
        greedy: the greedy :class:`~setgames.bots.base.Bot` class, or None.
        search_hooks: the :class:`~setgames.bots.hooks.GameHooks` the game
            lends ISMCTS (rollout policy, prior, evaluator, root candidates,
            compiled rollouts, default budgets), or None.
        table_tools: the :class:`~setgames.play.tools.TableTools` of the play
            session (extra commands, move warnings, event lines), or None.
        card_style: how the terminal colours card names: ``"decktet"`` (by
            suit) or ``"chess"`` (Vietnamese chess cards, by colour); None for
            no colour.
        drawing: ``(game, state, seat=None, legal=None, title=None) -> str``,
            the SVG of a state (:mod:`setgames.draw`), or None; a game whose table
            tools tell a drawn card also takes ``drawn=`` (the card to mark).
        ppo_weights: the folder of the ``ppo`` bot's trained policies (one
            ``ppo*.npz`` per configuration, :mod:`setgames.bots.ppo`), a package
            resource written ``"package:relative/folder"``, or None.
        greedy_features: ``(game, state, seat) -> (rows, k) float32``, what the
            greedy bot weighs for each move, a row per move kind the game defines
            (zeros when ``seat`` is not to act; the ``features`` prior of
            ``setgames train``; its batch's ``greedy_features`` is the compiled
            twin), or None.
        greedy_features_engine: ``(game, engine, seat) -> the same table or None``,
            from a compiled engine's position (None where it cannot), or None.
        greedy_feature_names: the names of the table's columns, or None.
        greedy_feature_moves: the action each row of the table describes (what the
            move head of ``setgames train --head`` scores), or None. A column named
            ``greedy_tie`` flags the moves greedy chose among by a coin toss.
        ppo_note: what people should know of the game's ``ppo`` policies, said after
            the game's title in the bots listing (``"plays greedy's moves"``), or None.
        docs_picture: the documentation's position, ``(config, deal seed, moves
            played by greedy bots)`` (:func:`setgames.docs.docs_picture`), or None.
        ladder: the game's :class:`~setgames.bots.levels.GameLadder` (the epsilons of
            levels 2 to 4, the gauntlet's configs and its references' ratings), or None
            for a game outside the strength ladder.
    """

    name: str
    title: str
    rules: str
    env: str | None = None
    greedy: str | None = None
    search_hooks: str | None = None
    table_tools: str | None = None
    card_style: str | None = None
    drawing: str | None = None
    ppo_weights: str | None = None
    greedy_features: str | None = None
    greedy_features_engine: str | None = None
    greedy_feature_names: str | None = None
    greedy_feature_moves: str | None = None
    ppo_note: str | None = None
    docs_picture: str | None = None
    ladder: str | None = None


# name -> its GameInfo, or for a built-in game not asked for yet, its descriptor module
_GAMES: dict[str, GameInfo | str] = dict(BUILTIN_DESCRIPTORS)


def register(info: GameInfo) -> GameInfo:
    """Add a game to the registry (or replace one of the same name); returns ``info``."""
    if not isinstance(info, GameInfo):
        raise TypeError(f"register() takes a GameInfo, not {type(info).__name__}")
    _GAMES[info.name] = info
    _REFS.clear()
    return info


def unregister(name: str) -> None:
    """Remove a game added with :func:`register` (a built-in game returns to its descriptor)."""
    _GAMES.pop(name, None)
    if name in BUILTIN_DESCRIPTORS:
        _GAMES[name] = BUILTIN_DESCRIPTORS[name]
    _REFS.clear()


def game_names() -> tuple[str, ...]:
    """The registered games' short names, built-in games first (imports no game)."""
    return tuple(_GAMES)


def describe(name: str) -> GameInfo:
    """The :class:`GameInfo` of game ``name`` (importing its descriptor on first use).

    Raises:
        ValueError: no game of that name is registered.
    """
    try:
        entry = _GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; choose from {', '.join(_GAMES)}") from None
    if isinstance(entry, str):
        entry = importlib.import_module(entry).DESCRIPTOR
        if entry.name != name:
            raise RuntimeError(f"descriptor of {name!r} names itself {entry.name!r}")
        if entry.title != BUILTIN_TITLES.get(name, entry.title):
            raise RuntimeError(f"descriptor of {name!r} is titled {entry.title!r}, the registry "
                               f"lists {BUILTIN_TITLES[name]!r}")
        _GAMES[name] = entry
    return entry


_REFS: dict[str, Any] = {}


def load_ref(ref: str) -> Any:
    """The object a ``"module:attribute"`` reference names (imported once)."""
    try:
        return _REFS[ref]
    except KeyError:
        pass
    module, _, attr = ref.partition(":")
    obj = getattr(importlib.import_module(module), attr)
    _REFS[ref] = obj
    return obj


def part(name: str, field: str) -> Any:
    """Part ``field`` of game ``name``'s descriptor, loaded (None when the game
    has no such part; a ValueError for an unknown game)."""
    ref = getattr(describe(name), field)
    return None if ref is None else load_ref(ref)


def game_title(name: str) -> str:
    """The title of game ``name``, or ``name`` itself for an unregistered game (a built-in
    game not described yet is not imported for it)."""
    entry = _GAMES.get(name)
    if isinstance(entry, str) and name in BUILTIN_TITLES:
        return BUILTIN_TITLES[name]
    return describe(name).title if entry is not None else name


def game_class(name: str) -> type:
    """The :class:`~setgames.game.Game` subclass of game ``name``."""
    return part(name, "rules")


def env_class(name: str) -> type:
    """The bare AEC env class (``raw_env``) of game ``name``."""
    cls = part(name, "env")
    if cls is None:
        raise ValueError(f"game {name!r} has no environment")
    return cls


def make_game(name: str, **config: Any) -> Any:
    """The rules of game ``name`` under ``config`` (validated)."""
    return game_class(name)(**config)


def __getattr__(attr: str) -> Any:
    # GAME_NAMES was a constant before games could register: keep it readable.
    if attr == "GAME_NAMES":
        return game_names()
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")
