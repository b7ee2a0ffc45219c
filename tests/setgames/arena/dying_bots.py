"""A test-only bot that kills the process it plays in, to stand for a worker that dies."""

from __future__ import annotations

import os
import signal

from setgames.bots.base import Bot


class DyingBot(Bot):
    """Plays first-legal, but SIGKILLs its own process in the game it is reset for with ``die_seed``."""

    name = "dying"

    def __init__(self, seed=None, die_seed=-1):
        super().__init__(seed)
        self.die_seed = die_seed
        self.seed = seed

    def reset(self, seed):
        super().reset(seed)
        self.seed = seed

    def act(self, game, state, seat):
        if self.seed == self.die_seed:
            os.kill(os.getpid(), signal.SIGKILL)
        return game.legal_actions(state)[0]


def dying_factory(game_name, seed=None, **options):
    """Picklable factory for the arena."""
    return DyingBot(seed, **options)
