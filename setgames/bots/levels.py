"""The strength ladder: ``level:1`` (Beginner) to ``level:6`` (Master).

One versioned table:

- :data:`LEVELS`: per level, its name and the bot spec it stands for in each
  game (``level:N`` is a bot spec on every command: ``arena``, ``play
  --opponents``, the web lobby, ``eval``). The levels are built from the
  existing bots: ``random``; ``greedy`` weakened by ``epsilon`` (a share of
  uniformly random moves, :mod:`setgames.bots.epsilon`); ``greedy``; and the
  search at two budgets. When the compiled search lands, levels 5 and 6 swap
  their ``ismcts:iterations=...`` for ``search:iters=...``: one line each,
  and :data:`LADDER_VERSION` goes up (the reference ratings are measured again).

Any change to a level's spec changes what a level means: raise
:data:`LADDER_VERSION` with it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "LADDER_VERSION",
    "LEVELS",
    "LEVEL_PREFIX",
    "Level",
    "bot_title",
    "level",
    "level_spec",
    "parse_level",
]

LADDER_VERSION = 1
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


# Levels 2 and 3 are greedy with a share of random moves, chosen per game so that they split
# the Elo between random and greedy in about three equal steps (benchmarks/levels.py measured
# the shares: greedy:epsilon=E against E + 0.2, every config, 300 games a step). Tu Sac's greedy
# beats random by much less (about 150 Elo over the chain at 3 and 4 players) than the others'
# (430-620), so its steps are the narrow ones; docs/levels.md gives the measured steps.
LEVELS: tuple[Level, ...] = (
    Level(1, "Beginner", _every_game("random")),
    Level(2, "Novice", (("tethsi", "greedy:epsilon=0.55"), ("bharg", "greedy:epsilon=0.7"),
                        ("tusac", "greedy:epsilon=0.7"))),
    Level(3, "Intermediate", (("tethsi", "greedy:epsilon=0.25"), ("bharg", "greedy:epsilon=0.4"),
                              ("tusac", "greedy:epsilon=0.4"))),
    Level(4, "Advanced", _every_game("greedy")),
    # The compiled search (spec `search`) replaces these two when it lands: search:iters=...
    Level(5, "Expert", _every_game("ismcts:iterations=16")),
    Level(6, "Master", _every_game("ismcts")),
)

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

    >>> level_spec(4, "bharg")
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
