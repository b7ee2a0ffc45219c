"""Python bots for the spec and forfeit tests, named by ``module:Name`` specs."""

from __future__ import annotations

import time

from setgames.bots.base import Bot


class FirstLegalBot(Bot):
    """Plays the first legal action; ``offset`` picks a later one (an option to pass)."""

    name = "first"

    def __init__(self, seed=None, offset=0):
        super().__init__(seed)
        self.offset = offset

    def act(self, game, state, seat):
        legal = game.legal_actions(state)
        return legal[min(self.offset, len(legal) - 1)]


class RaisingBot(Bot):
    """Raises at its first decision, as a buggy bot would."""

    name = "raising"

    def act(self, game, state, seat):
        raise ZeroDivisionError("bug in the bot")


class SlowBot(Bot):
    """First legal action, after sleeping ``ms`` milliseconds on each of its first ``moves`` decisions."""

    name = "slow"

    def __init__(self, seed=None, ms=50, moves=1):
        super().__init__(seed)
        self.ms, self.moves, self.done = ms, moves, 0

    def reset(self, seed):
        super().reset(seed)
        self.done = 0

    def act(self, game, state, seat):
        if self.done < self.moves:
            time.sleep(self.ms / 1000)
        self.done += 1
        return game.legal_actions(state)[0]


def first_factory(game_name, seed=None, **options):
    """A factory (not a class): ``(game_name, seed, **options) -> Bot``."""
    return FirstLegalBot(seed, **options)


def not_a_bot(game_name, seed=None, **options):
    """A factory that returns something that is not a Bot."""
    return "greedy"


class NotABot:
    """Has an ``act`` method but is not a Bot subclass."""

    def act(self, game, state, seat):
        return 0
