"""A stand-in "compiled engine" for the toy game: the engine protocol of
:mod:`setgames.engine` in plain Python over a private copy of the state, so
the env's engine path and the differential checks can be tested without a
compiler. ``applied`` counts the actions it played (to see the env used it)."""

from __future__ import annotations

from setgames.engine import rebuild
from tests.setgames.toy_game import ToyGame


class Engine:
    """The toy game's engine (see the module docstring)."""

    def __init__(self, game: ToyGame):
        self.game = game
        self.state = None
        self.applied = 0

    def __reduce__(self):
        return rebuild, (type(self), type(self.game), self.game.config_dict(), self.to_json())

    def load(self, state):
        self.state = self.game.from_json(self.game.to_json(state))

    def apply(self, action):
        if action not in self.game.legal_actions(self.state):
            raise ValueError(f"illegal action {action}")
        self.applied += 1
        return self.game.apply(self.state, action)

    def current_seat(self):
        return self.game.current_seat(self.state)

    def legal_actions(self):
        return self.game.legal_actions(self.state)

    def mask(self):
        return self.game.legal_mask(self.state)

    def observe(self, seat):
        return self.game.observe(self.state, seat)

    def is_truncated(self):
        return self.game.is_truncated(self.state)

    def outcome(self):
        return self.game.outcome(self.state)

    def to_json(self):
        return self.game.to_json(self.state)


class ToyGameWithEngine(ToyGame):
    """The toy game, pointing at the engine above."""

    engine_module = "tests.setgames.toy_engine"
