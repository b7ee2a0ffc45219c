"""The strength ladder: ``level:1`` (Beginner) to ``level:6`` (Master), and the gauntlet's references.

One versioned ladder holds everything two people's reports must agree on. The
logic and the shared rungs live here; each game's own numbers (its epsilons, its
gauntlet configs and its references' ratings) live in its package, as a
:class:`GameLadder` its descriptor names (``GameInfo.ladder``), read through
:mod:`setgames.registry`:

- :data:`LEVELS`: per level, its name and the bot spec it stands for in each
  game (``level:N`` is a bot spec on every command: ``arena``, ``play
  --opponents``, the web lobby, ``eval``). The levels are built from the
  existing bots: ``random``; ``greedy`` weakened by ``epsilon`` (a share of
  uniformly random moves, :mod:`setgames.bots.epsilon`); ``greedy``; and the
  the compiled search (``search``, its default budget).
- :data:`GAUNTLET_CONFIGS`, :data:`REFERENCES` and :data:`REFERENCE_ELO`
  (the first and last gathered from the games' ladders when read):
  what ``setgames eval`` plays a bot against, and the fixed ratings those
  references hold, per game and config (measured with
  ``python benchmarks/levels.py``, see :func:`setgames.arena.gauntlet.measure_ladder`).
- :data:`RATING_ANCHORS`: the scale of the gauntlet's rating, random (level 1)
  at 0 and greedy (level 5) at 1000 in every game and config.

Any change to a level's spec, a reference, a config or a constant, here or in a
game's ladder, changes what a rating means: raise :data:`LADDER_VERSION` with it
(the gauntlet's seeds derive from the version, so its games change too).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from setgames import registry

__all__ = [
    "GAUNTLET_CONFIGS",  # noqa: F822 (gathered by the module __getattr__ when read)
    "LADDER_VERSION",
    "LEVELS",
    "LEVEL_PREFIX",
    "RATING_ANCHORS",
    "REFERENCES",
    "REFERENCE_ELO",  # noqa: F822 (as GAUNTLET_CONFIGS)
    "GameLadder",
    "Level",
    "bot_title",
    "config_key",
    "game_ladders",
    "gauntlet_configs",
    "level",
    "level_spec",
    "parse_level",
    "reference_elo",
]

LADDER_VERSION = 2
LEVEL_PREFIX = "level:"


Config = tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class GameLadder:
    """One game's numbers on the ladder (its package holds it; the registry finds it).

    Attributes:
        epsilons: the share of random moves of greedy at levels 2, 3 and 4
            (``greedy:epsilon=E``), weakest first.
        gauntlet: the gauntlet's configs of the game, each with its items sorted
            and the Elo every reference holds there (:data:`REFERENCES`, level 1
            at 0), as ``(config, {reference: elo})`` pairs in the order played.
    """

    epsilons: tuple[float, float, float]
    gauntlet: tuple[tuple[Config, dict[str, float]], ...]

    def level_spec(self, number: int) -> str:
        """The bot spec level ``number`` (1..6) plays in this game."""
        if number in _SHARED_SPECS:
            return _SHARED_SPECS[number]
        return f"greedy:epsilon={self.epsilons[number - 2]:g}"


# The rungs every game shares: the anchored scale needs random (level 1) and greedy (level 5)
# everywhere, and level 6 is the compiled search at its default budget (the strongest bot
# the library has); levels 2 to 4 are each game's greedy with its own share of random moves.
_SHARED_SPECS = {1: "random", 5: "greedy", 6: "search"}


def game_ladders() -> tuple[tuple[str, GameLadder], ...]:
    """The registered games that have a ladder, with it, in the registry's order."""
    out = []
    for name in registry.game_names():
        ladder = registry.part(name, "ladder")
        if ladder is not None:
            out.append((name, ladder))
    return tuple(out)


@dataclass(frozen=True)
class Level:
    """One rung of the ladder.

    Attributes:
        number: 1 (weakest) to 6 (strongest).
        name: what people read ("Beginner").
    """

    number: int
    name: str

    @property
    def specs(self) -> tuple[tuple[str, str], ...]:
        """Per game name (the games with a ladder), the built-in bot spec the level plays."""
        return tuple((name, ladder.level_spec(self.number)) for name, ladder in game_ladders())

    def spec(self, game_name: str) -> str:
        """The bot spec this level plays in ``game_name``.

        Raises:
            ValueError: the ladder has no entry for that game.
        """
        specs = self.specs
        for name, spec in specs:
            if name == game_name:
                return spec
        have = ", ".join(name for name, _ in specs)
        raise ValueError(f"level:{self.number} is defined for {have}, not for {game_name!r}")


# Levels 2 to 4 split the Elo between random and greedy into about four equal steps in each
# game (each game's ladder says how); docs/levels.md gives every measured step and which of
# them reach 58%.
LEVELS: tuple[Level, ...] = (
    Level(1, "Beginner"),
    Level(2, "Novice"),
    Level(3, "Intermediate"),
    Level(4, "Advanced"),
    Level(5, "Expert"),
    Level(6, "Master"),
)


def gauntlet_configs() -> tuple[tuple[str, Config], ...]:
    """The games and configs of the gauntlet, as (game name, config) with the config's items
    sorted, from the games' ladders (:data:`GAUNTLET_CONFIGS`)."""
    return tuple((name, config) for name, ladder in game_ladders() for config, _ in ladder.gauntlet)


# The gauntlet's references: every level, then the named bots that are not a level already
# (level 1 is random, level 5 greedy, level 6 the default search).
REFERENCES: tuple[str, ...] = (*(f"{LEVEL_PREFIX}{lv.number}" for lv in LEVELS), "ppo")

# The scale of the gauntlet's rating: these references' ratings, in every game and config.
RATING_ANCHORS: dict[str, float] = {"level:1": 0.0, "level:5": 1000.0}

# Each reference's Elo (400 log10 odds; level 1 = 0) per config, measured by benchmarks/levels.py
# (Bradley-Terry over the ladder's steps, duplicate deals; docs/levels.md has the steps):
# version 2: `python benchmarks/levels.py --games 400 --workers 2 --seed 1`, every step from 400
# games (402 at 3 players); level 6 and ppo from `--only level:5,level:6,ppo` (same count and
# seed, the search at its default budget per game), counted from level 5's Elo. The numbers are
# in each game's ladder.
def reference_elo() -> dict[str, dict[str, float]]:
    """Each reference's Elo per config key (:func:`config_key`), from the games' ladders
    (:data:`REFERENCE_ELO`)."""
    return {config_key(name, config): dict(elo) for name, ladder in game_ladders()
            for config, elo in ladder.gauntlet}


def __getattr__(attr: str) -> Any:
    # Gathered when read, not at import: the games' packages import this module for GameLadder,
    # and a game registered later joins the tables.
    if attr == "GAUNTLET_CONFIGS":
        return gauntlet_configs()
    if attr == "REFERENCE_ELO":
        return reference_elo()
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


def config_key(game_name: str, config: tuple[tuple[str, Any], ...] | dict[str, Any]) -> str:
    """The short name of a game and config in the tables: the game's name, then its
    player count and other options (``"cards-3p"``).

    >>> config_key("cards", {"num_players": 4}), config_key("solo", ())
    ('cards-4p', 'solo')
    """
    items = dict(config)
    players = items.pop("num_players", None)
    parts = [game_name] + ([f"{players}p"] if players is not None else [])
    parts += [f"{k}={v}" for k, v in sorted(items.items())]
    return "-".join(parts)


def parse_level(text: str) -> int:
    """The level number of ``"level:N"``.

    Raises:
        ValueError: not ``level:`` followed by a level's number.

    >>> parse_level("level:3")
    3
    """
    rest = text.strip()[len(LEVEL_PREFIX):] if text.strip().startswith(LEVEL_PREFIX) else ""
    if not rest.strip().isdigit() or not 1 <= int(rest) <= len(LEVELS):
        raise ValueError(f"bad level {text.strip()!r}; write level:1 ({LEVELS[0].name}) to "
                         f"level:{len(LEVELS)} ({LEVELS[-1].name})")
    return int(rest)


def level(number: int) -> Level:
    """Level ``number`` (1..6).

    Raises:
        ValueError: no such level.
    """
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(LEVELS):
        raise ValueError(f"level {number!r} must be 1 ({LEVELS[0].name}) to {len(LEVELS)} "
                         f"({LEVELS[-1].name})")
    return LEVELS[number - 1]


def level_spec(number: int, game_name: str) -> str:
    """The bot spec level ``number`` plays in ``game_name``.

    >>> level_spec(5, registry.game_names()[0])
    'greedy'
    """
    return level(number).spec(game_name)


def bot_title(spec: str) -> str:
    """How people read a bot spec: a level with its name, anything else as written.

    >>> bot_title("level:1"), bot_title("greedy")
    ('level:1 Beginner', 'greedy')
    """
    try:
        number = parse_level(spec)
    except ValueError:
        return spec
    return f"{spec.strip()} {LEVELS[number - 1].name}"
