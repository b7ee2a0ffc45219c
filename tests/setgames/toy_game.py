"""A tiny two-player game used to test the shared plumbing on its own.

A pile of 5..9 tokens (dealt from the seed); players alternately take 1 or 2;
who takes the last token wins. Each player also holds one hidden card (0..3)
that only they see, so determinize has something to re-deal.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from setgames.actions import ActionBlock, ActionLayout
from setgames.game import Game
from setgames.spec import Feature, ObsSpec


@dataclass(frozen=True)
class ToyConfig:
    max_pile: int = 9


@dataclass
class ToyState:
    pile: int
    hidden: list[int]
    seat: int = 0
    winner: int = -1
    events: list = field(default_factory=list)


class ToyGame(Game[ToyState]):
    name = "toy"
    env_name = "toy_v0"

    def __init__(self, max_pile: int = 9):
        if not 5 <= max_pile <= 20:
            raise ValueError(f"max_pile {max_pile!r} must be 5..20")
        self.config = ToyConfig(max_pile)
        self.num_players = 2
        self.layout = ActionLayout([ActionBlock("take", 2, lambda i: f"take {i + 1}")])
        self.obs_spec = ObsSpec([
            Feature("pile", (), 20, "tokens left"),
            Feature("my_card", (), 3, "my hidden card"),
        ])
        self.obs_specs = {"cards": self.obs_spec}
        self.action_spec = ObsSpec([
            Feature("left", (), 20, "tokens left after the take"),
            Feature("wins", (), 1, "the take empties the pile"),
        ])

    def new_state(self, rng):
        return ToyState(int(rng.integers(5, self.config.max_pile + 1)),
                        [int(x) for x in rng.integers(0, 4, 2)])

    def current_seat(self, state):
        return -1 if state.winner >= 0 else state.seat

    def legal_actions(self, state):
        if state.winner >= 0:
            return []
        return [0, 1] if state.pile >= 2 else [0]

    def apply(self, state, action):
        state.pile -= action + 1
        state.events.append(("take", state.seat, action + 1))
        if state.pile == 0:
            state.winner = state.seat
            return tuple(1.0 if s == state.seat else -1.0 for s in range(2))
        state.seat ^= 1
        return None

    def is_over(self, state):
        return state.winner >= 0

    def returns(self, state):
        if state.winner < 0:
            return (0.0, 0.0)
        return tuple(1.0 if s == state.winner else -1.0 for s in range(2))

    def observe(self, state, seat):
        return np.array([state.pile, state.hidden[seat]], dtype=np.int8)

    def action_features(self, state, seat):
        rows = np.zeros((2, 2), dtype=np.int8)
        if seat == self.current_seat(state):
            for a in self.legal_actions(state):
                rows[a] = (state.pile - a - 1, state.pile == a + 1)
        return rows

    def outcome(self, state):
        return {"winner": state.winner, "reason": "last token"}

    def clone(self, state):
        return ToyState(state.pile, list(state.hidden), state.seat, state.winner,
                        list(state.events))

    def to_json(self, state):
        return {"pile": state.pile, "hidden": state.hidden, "seat": state.seat,
                "winner": state.winner, "events": [list(e) for e in state.events]}

    def from_json(self, data):
        return ToyState(data["pile"], list(data["hidden"]), data["seat"], data["winner"],
                        [tuple(e) for e in data["events"]])

    def determinize(self, state, seat, rng):
        twin = self.clone(state)
        twin.hidden[1 - seat] = int(rng.integers(0, 4))
        return twin

    def render(self, state, seat=None):
        return f"pile {state.pile}"


def make_toy_env_class():
    from setgames.aec import SetGameEnv

    class ToyEnv(SetGameEnv):
        game_class = ToyGame
        metadata = {"render_modes": ["ansi", "human"], "name": "toy_v0"}  # noqa: RUF012

    return ToyEnv

