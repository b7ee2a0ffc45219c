"""A toy take-away game for 2-4 players, to test seat filling with more than two seats.

A pile of 7..12 tokens; in turn, players take 1 or 2; whoever takes the last
token wins (+ (n - 1)), every other seat scores -1. Each player holds one
hidden card (0..3) so that determinize has something to re-deal.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from setgames.actions import ActionBlock, ActionLayout
from setgames.game import Game
from setgames.spec import Feature, ObsSpec


@dataclass(frozen=True)
class MultiConfig:
    num_players: int = 3


@dataclass
class MultiState:
    pile: int
    hidden: list[int]
    seat: int = 0
    winner: int = -1
    events: list = field(default_factory=list)


class MultiToyGame(Game[MultiState]):
    name = "toy_multi"
    env_name = "toy_multi_v0"

    def __init__(self, num_players: int = 3):
        if num_players not in (2, 3, 4):
            raise ValueError(f"num_players {num_players!r} must be 2, 3 or 4")
        self.config = MultiConfig(num_players)
        self.num_players = num_players
        self.layout = ActionLayout([ActionBlock("take", 2, lambda i: f"take {i + 1}")])
        self.obs_spec = ObsSpec([Feature("pile", (), 20, "tokens left"),
                                 Feature("my_card", (), 3, "my hidden card")])

    def new_state(self, rng):
        return MultiState(int(rng.integers(7, 13)), [int(x) for x in rng.integers(0, 4, self.num_players)])

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
            return self.returns(state)
        state.seat = (state.seat + 1) % self.num_players
        return None

    def is_over(self, state):
        return state.winner >= 0

    def returns(self, state):
        n = self.num_players
        if state.winner < 0:
            return (0.0,) * n
        return tuple(float(n - 1) if s == state.winner else -1.0 for s in range(n))

    def observe(self, state, seat):
        return np.array([state.pile, state.hidden[seat]], dtype=np.int8)

    def outcome(self, state):
        return {"winner": state.winner}

    def clone(self, state):
        return MultiState(state.pile, list(state.hidden), state.seat, state.winner, list(state.events))

    def to_json(self, state):
        return {"pile": state.pile, "hidden": state.hidden, "seat": state.seat,
                "winner": state.winner, "events": [list(e) for e in state.events]}

    def from_json(self, data):
        return MultiState(data["pile"], list(data["hidden"]), data["seat"], data["winner"],
                          [tuple(e) for e in data["events"]])

    def determinize(self, state, seat, rng):
        twin = self.clone(state)
        for s in range(self.num_players):
            if s != seat:
                twin.hidden[s] = int(rng.integers(0, 4))
        return twin

    def render(self, state, seat=None):
        return f"pile {state.pile}"
