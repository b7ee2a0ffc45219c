"""The strength ladder: ``level:1`` (Beginner) to ``level:6`` (Master), and the gauntlet's references.

One versioned table holds everything two people's reports must agree on:

- :data:`LEVELS`: per level, its name and the bot spec it stands for in each
  game (``level:N`` is a bot spec on every command: ``arena``, ``play
  --opponents``, the web lobby, ``eval``). The levels are built from the
  existing bots: ``random``; ``greedy`` weakened by ``epsilon`` (a share of
  uniformly random moves, :mod:`setgames.bots.epsilon`); ``greedy``; and the
  the compiled search (``search``, its default budget).
- :data:`GAUNTLET_CONFIGS`, :data:`REFERENCES` and :data:`REFERENCE_ELO`:
  what ``setgames eval`` plays a bot against, and the fixed ratings those
  references hold, per game and config (measured with
  ``python benchmarks/levels.py``, see :func:`setgames.arena.gauntlet.measure_ladder`).
- :data:`RATING_ANCHORS`: the scale of the gauntlet's rating, random (level 1)
  at 0 and greedy (level 5) at 1000 in every game and config.

Any change to a level's spec, a reference, a config or a constant changes
what a rating means: raise :data:`LADDER_VERSION` with it (the gauntlet's
seeds derive from the version, so its games change too).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "GAUNTLET_CONFIGS",
    "LADDER_VERSION",
    "LEVELS",
    "LEVEL_PREFIX",
    "RATING_ANCHORS",
    "REFERENCES",
    "REFERENCE_ELO",
    "Level",
    "bot_title",
    "config_key",
    "level",
    "level_spec",
    "parse_level",
]

LADDER_VERSION = 2
LEVEL_PREFIX = "level:"


@dataclass(frozen=True)
class Level:
    """One rung of the ladder.

    Attributes:
        number: 1 (weakest) to 6 (strongest).
        name: what people read ("Beginner").
        specs: per game name, the built-in bot spec the level plays.
    """

    number: int
    name: str
    specs: tuple[tuple[str, str], ...]

    def spec(self, game_name: str) -> str:
        """The bot spec this level plays in ``game_name``.

        Raises:
            ValueError: the ladder has no entry for that game.
        """
        for name, spec in self.specs:
            if name == game_name:
                return spec
        have = ", ".join(name for name, _ in self.specs)
        raise ValueError(f"level:{self.number} is defined for {have}, not for {game_name!r}")


def _every_game(spec: str) -> tuple[tuple[str, str], ...]:
    return tuple((name, spec) for name in ("tethsi", "bharg", "tusac"))


# Levels 2 to 4 are greedy with a share of random moves, chosen per game so that they split the
# Elo between random and greedy into about four equal steps; level 5 is greedy itself, level 6 the
# compiled search at its default budget (the strongest bot the library has). Tu Sac's greedy beats
# random by much less (about 150-220 Elo) than the others' (430-620), so its steps are the narrow
# ones, and the search's edge over greedy is small in Tet Hsi and Tu Sac: docs/levels.md gives
# every measured step and which of them reach 58%.
LEVELS: tuple[Level, ...] = (
    Level(1, "Beginner", _every_game("random")),
    Level(2, "Novice", (("tethsi", "greedy:epsilon=0.7"), ("bharg", "greedy:epsilon=0.8"),
                        ("tusac", "greedy:epsilon=0.8"))),
    Level(3, "Intermediate", (("tethsi", "greedy:epsilon=0.45"), ("bharg", "greedy:epsilon=0.55"),
                              ("tusac", "greedy:epsilon=0.5"))),
    Level(4, "Advanced", (("tethsi", "greedy:epsilon=0.2"), ("bharg", "greedy:epsilon=0.3"),
                          ("tusac", "greedy:epsilon=0.25"))),
    Level(5, "Expert", _every_game("greedy")),
    Level(6, "Master", _every_game("search")),
)

# The games and configs of the gauntlet, as (game name, config) with the config's items sorted.
GAUNTLET_CONFIGS: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = (
    ("tethsi", ()),
    ("bharg", (("num_players", 2),)),
    ("bharg", (("num_players", 3),)),
    ("tusac", (("num_players", 2),)),
    ("tusac", (("num_players", 3),)),
    ("tusac", (("num_players", 4),)),
)

# The gauntlet's references: every level, then the named bots that are not a level already
# (level 1 is random, level 5 greedy, level 6 the default search).
REFERENCES: tuple[str, ...] = (*(f"{LEVEL_PREFIX}{lv.number}" for lv in LEVELS), "ppo")

# The scale of the gauntlet's rating: these references' ratings, in every game and config.
RATING_ANCHORS: dict[str, float] = {"level:1": 0.0, "level:5": 1000.0}

# Each reference's Elo (400 log10 odds; level 1 = 0) per config, measured by benchmarks/levels.py
# (Bradley-Terry over the ladder's steps, duplicate deals; docs/levels.md has the steps):
# version 2: `python benchmarks/levels.py --games 400 --workers 2 --seed 1`, every step from 400
# games (402 at 3 players); level 6 and ppo from `--only level:5,level:6,ppo` (same count and
# seed, the search at its default budget per game), counted from level 5's Elo.
REFERENCE_ELO: dict[str, dict[str, float]] = {
    "tethsi": {"level:1": 0.0, "level:2": 77.0, "level:3": 217.0, "level:4": 370.0,
               "level:5": 497.0, "level:6": 549.0, "ppo": 538.0},
    "bharg-2p": {"level:1": 0.0, "level:2": 193.0, "level:3": 379.0, "level:4": 489.0,
                 "level:5": 602.0, "level:6": 702.0, "ppo": 606.0},
    "bharg-3p": {"level:1": 0.0, "level:2": 163.0, "level:3": 337.0, "level:4": 467.0,
                 "level:5": 583.0, "level:6": 676.0, "ppo": 634.0},
    "tusac-2p": {"level:1": 0.0, "level:2": 70.0, "level:3": 132.0, "level:4": 166.0,
                 "level:5": 220.0, "level:6": 233.0, "ppo": 226.0},
    "tusac-3p": {"level:1": 0.0, "level:2": 36.0, "level:3": 106.0, "level:4": 139.0,
                 "level:5": 193.0, "level:6": 215.0, "ppo": 204.0},
    "tusac-4p": {"level:1": 0.0, "level:2": 29.0, "level:3": 87.0, "level:4": 112.0,
                 "level:5": 168.0, "level:6": 185.0, "ppo": 161.0},
}


def config_key(game_name: str, config: tuple[tuple[str, Any], ...] | dict[str, Any]) -> str:
    """The short name of a game and config in the tables: ``"tethsi"``, ``"bharg-3p"``.

    >>> config_key("tusac", {"num_players": 4}), config_key("tethsi", ())
    ('tusac-4p', 'tethsi')
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

    >>> level_spec(5, "bharg")
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
