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


def random_dmc_weights(game, path, hidden: int = 16, seed: int = 0):
    """A ``dmc.npz`` of random weights for ``game`` (in its own observation mode) at ``path``:
    a policy to test the bot's plumbing with, not a strong one."""
    import numpy as np

    from setgames.bots.dmc import DmcPolicy

    rng = np.random.default_rng(seed)
    n_in = game.obs_spec.size + game.action_spec.size
    f32 = np.float32
    layers = [(rng.normal(0, 0.3, (n_in, hidden)).astype(f32), rng.normal(0, 0.1, hidden).astype(f32)),
              (rng.normal(0, 0.3, (hidden, 1)).astype(f32), np.zeros(1, f32))]
    meta = {"game": game.name, "version": game.version, "obs_size": game.obs_spec.size,
            "row_size": game.action_spec.size, "num_actions": game.num_actions,
            "config": game.config_dict(), "library_version": "test"}
    return DmcPolicy(layers, meta).save(path)
