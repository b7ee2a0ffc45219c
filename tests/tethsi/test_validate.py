"""Tet Hsi state validation (``tethsi_env/validate.py``): the states of issue #20 that
overran the engine's buffers are refused in one line, changing nothing."""

from __future__ import annotations

import pytest

from setgames.game import rng_from_seed
from tests.setgames.refusal import assert_refused, edited
from tests.tethsi.positions import position
from tethsi_env.env import raw_env
from tethsi_env.layout import Phase
from tethsi_env.rules import TetHsiGame

GAME = TetHsiGame()


def _play_phase_state():
    state = GAME.new_state(rng_from_seed(2))
    while state.phase != Phase.PLAY:
        GAME.apply(state, GAME.legal_actions(state)[0])  # discard, then take
    return state


def test_every_state_of_random_play_passes():
    for seed in range(6):
        state = GAME.new_state(rng_from_seed(seed))
        while True:
            GAME.validate(state)
            assert GAME.from_json(GAME.to_json(state)) == state
            legal = GAME.legal_actions(state)
            if not legal:
                break
            GAME.apply(state, legal[(seed * 7) % len(legal)])


@pytest.mark.parametrize("bit", [36, 40, 63, 64, 100])
def test_hand_bits_beyond_the_deck_in_the_play_phase_are_refused(bit):
    state = _play_phase_state()
    assert_refused(raw_env, {}, edited(GAME, state, concealed=[state.concealed[0] | 1 << bit,
                                                               state.concealed[1]], _obs=None),
                   "not cards of this deck")


def test_a_one_card_center_in_the_discard_phase_is_refused():
    # It made legal actions [19, -1] and then a segfault.
    state = GAME.new_state(rng_from_seed(0))
    low = state.center & -state.center
    broken = edited(GAME, state, center=state.center ^ low, discard=state.discard | low, _obs=None)
    assert_refused(raw_env, {}, broken, "two center cards")


@pytest.mark.parametrize(("field", "value", "match"), [
    ("remaining", 36, "remaining"), ("seat", 2, "seat"), ("seat", True, "seat"), ("phase", 4, "phase"),
    ("turn", 0, "turn"), ("winner", 1, "winner"), ("center", -1, "center"), ("reason", 5, "reason"),
    ("pile", [1, 1], "both in"), ("events", [5], "events"), ("sets", [[(0, 1, 2, 0)], []], "sets"),
])
def test_bad_fields_are_refused(field, value, match):
    state = GAME.new_state(rng_from_seed(4))
    assert_refused(raw_env, {}, edited(GAME, state, _obs=None, **{field: value}), match)


def test_a_set_that_is_no_set_is_refused():
    state = position(["4MS", "8MS", "AS"], ["AV", "AL"], ["AM"], ["9LK"], phase=Phase.CHOOSE, remaining="AM",
                     sets0=(("2MK", "2SY", "2VL"),))
    GAME.validate(state)
    x, y, r, k = state.sets[0][0]
    for bad in ((x, y, r, (k + 1) % 5), (y, x, r, k), (x, x, r, k)):
        with pytest.raises(ValueError, match="sets"):
            GAME.validate(edited(GAME, state, sets=[[bad], []]))


@pytest.mark.parametrize(("edit", "match"), [
    (lambda d: d.__setitem__("remaining", 1.0), "remaining"),
    (lambda d: d.__setitem__("pile", [*d["pile"], 10**6]), "pile"),
    (lambda d: d["concealed"][0].append(True), "concealed"),
    (lambda d: d.__setitem__("center", "12"), "center"),
    (lambda d: d.pop("turn"), "lacks"),
    (lambda d: d.__setitem__("sets", None), "sets"),
])
def test_broken_json_is_refused_in_one_line(edit, match):
    data = GAME.to_json(GAME.new_state(rng_from_seed(1)))
    edit(data)
    with pytest.raises(ValueError, match=match) as info:
        GAME.from_json(data)
    assert "\n" not in str(info.value)


def test_stale_observation_buffers_are_refused():
    state = GAME.new_state(rng_from_seed(1))
    GAME.observe(state, 0)  # builds the buffers apply() patches
    low = state.center & -state.center
    pile_card = state.pile[0]
    broken = edited(GAME, state, center=state.center ^ low | 1 << pile_card,
                    pile=[low.bit_length() - 1, *state.pile[1:]])
    with pytest.raises(ValueError, match="_obs"):
        GAME.validate(broken)
    broken._obs = None
    GAME.validate(broken)


@pytest.mark.parametrize("seat", [-1, 2, True, 1.0])
def test_observe_refuses_a_seat_that_is_not_one(seat):
    with pytest.raises(ValueError, match="seat"):
        GAME.observe(GAME.new_state(rng_from_seed(0)), seat)
