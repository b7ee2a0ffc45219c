"""Test-only bots, a helper that lists the real games that exist yet, and a bot's first moves."""

from __future__ import annotations

from setgames.bots.base import Bot
from setgames.registry import GAME_NAMES, game_class


class FirstLegalBot(Bot):
    """Always the lowest legal action id: a weak, predictable player."""

    name = "first"

    def act(self, game, state, seat):
        return game.legal_actions(state)[0]


def first_legal_factory(game_name, seed=None, **options):
    """Picklable factory for the arena."""
    return FirstLegalBot(seed, **options)


def available_games() -> list[str]:
    """Registry games whose rules import (the games are written in parallel)."""
    out = []
    for name in GAME_NAMES:
        try:
            game_class(name)
        except (ImportError, AttributeError):
            continue
        out.append(name)
    return out


def first_moves(bot, game, seed: int, steps: int = 30) -> list[int]:
    """The first ``steps`` moves ``bot`` makes for every seat of deal ``seed``."""
    from setgames.game import rng_from_seed

    state = game.new_state(rng_from_seed(seed))
    moves = []
    while not game.is_over(state) and len(moves) < steps:
        a = bot.act(game, state, game.current_seat(state))
        moves.append(a)
        game.apply(state, a)
    return moves
