"""The opponent's last turn read back from the public record (:mod:`tethsi_env.infer`), held to
the positions the game actually passed through."""

from __future__ import annotations

import numpy as np
import pytest

from setgames.bots.registry import make_bot
from setgames.registry import make_game
from tethsi_env.infer import last_turn, last_turns

FIELDS = ("concealed", "front", "center", "remaining", "discard", "set_cards", "sets", "pile", "seat",
          "phase", "turn", "events")


def _games(n, bots=("random", "greedy"), history=False):
    """Every decision of ``n`` games, with the state and the moves of the turn before it as played
    (with ``history``, every turn's start and moves so far, by turn number)."""
    game = make_game("tethsi")
    for g in range(n):
        state = game.new_state(np.random.default_rng(g))
        players = [make_bot(bots[0], "tethsi", seed=g), make_bot(bots[1], "tethsi", seed=g + 1)]
        starts: dict[int, tuple] = {}
        while not game.is_over(state):
            seat = game.current_seat(state)
            if state.phase == 0:
                starts[state.turn] = (game.clone(state), [])
            yield game, state, seat, (starts if history else starts.get(state.turn - 1))
            action = players[seat].act(game, state, seat)
            starts[state.turn][1].append(action)
            game.apply(state, action)


@pytest.mark.parametrize("bots", [("random", "greedy"), ("greedy", "random")])
def test_the_last_turn_undone_is_the_position_the_turn_began_in(bots):
    """Takes, Sets, do-nothings and plays from the front, undone at every later decision of
    the next turn, give back the recorded position field for field and the moves as played."""
    checked = 0
    for game, state, seat, before in _games(120, bots):
        got = last_turn(game, state, seat)
        if before is None:
            assert got is None  # the game's first turn has no turn before it
            continue
        want, actions = before
        assert got is not None
        for f in FIELDS:
            assert getattr(got.start, f) == getattr(want, f), f
        assert got.actions == actions
        opp = seat ^ 1
        assert got.used == want.concealed[opp] & ~state.concealed[opp]
        assert got.revealed == len(want.pile) - len(state.pile) == 1
        checked += 1
    assert checked > 2000


def test_the_undo_reads_only_public_cards():
    """Two states that differ in the opponent's hidden cards (a re-deal) give the same start,
    but for those cards, and the same moves and used cards."""
    for game, state, seat, before in _games(30):
        if before is None:
            continue
        twin = game.determinize(state, seat, np.random.default_rng(state.turn))
        a, b = last_turn(game, state, seat), last_turn(game, twin, seat)
        opp = seat ^ 1
        assert (a.actions, a.used, a.revealed) == (b.actions, b.used, b.revealed)
        for f in FIELDS:
            if f not in ("concealed", "pile"):
                assert getattr(a.start, f) == getattr(b.start, f), f
        assert a.start.concealed[seat] == b.start.concealed[seat]
        assert b.start.concealed[opp] == twin.concealed[opp] | b.used


def test_a_record_that_does_not_reach_the_turn_gives_none():
    for game, state, seat, before in _games(3):
        if before is not None:
            cut = game.clone(state)
            cut.events = []
            assert last_turn(game, cut, seat) is None


def test_the_last_turns_are_the_opponents_turns_as_played_the_most_recent_first():
    checked = 0
    for game, state, seat, starts in _games(40, ("greedy", "random"), history=True):
        got = last_turns(game, state, seat, 3)
        opp = seat ^ 1
        want_turns = [t for t in (state.turn - 1, state.turn - 3, state.turn - 5) if t in starts]
        assert len(got) == len(want_turns)
        for turn, number in zip(got, want_turns, strict=True):
            want, actions = starts[number]
            for f in FIELDS:
                assert getattr(turn.start, f) == getattr(want, f), (number, f)
            assert turn.actions == actions
            assert turn.used == want.concealed[opp] & ~state.concealed[opp]
            assert turn.revealed == len(want.pile) - len(state.pile)
            checked += 1
    assert checked > 1000
