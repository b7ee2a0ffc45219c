"""Bharg state validation (``bharg_env/validate.py``): the states of issue #20 that
crashed the engine or corrupted its heap are refused in one line, changing nothing."""

from __future__ import annotations

import numpy as np
import pytest

from bharg_env.env import raw_env
from bharg_env.rules import BhargGame
from setgames.game import rng_from_seed
from tests.setgames.refusal import assert_refused, edited


def _mid_game(game, seed=3, steps=9):
    state = game.new_state(rng_from_seed(seed))
    for _ in range(steps):
        game.apply(state, game.legal_actions(state)[-1])
    return state


@pytest.mark.parametrize("n", [2, 3])
def test_every_state_of_random_play_passes(n):
    game = BhargGame(num_players=n, excuse=True, pawns=True)
    for seed in range(4):
        state = game.new_state(rng_from_seed(seed))
        while True:
            game.validate(state)
            assert game.from_json(game.to_json(state)) == state
            legal = game.legal_actions(state)
            if not legal:
                break
            game.apply(state, legal[seed % len(legal)])


@pytest.mark.parametrize(("field", "value", "match"), [
    ("aces", [10**6], "aces"),
    ("seat", 10**6, "seat"),
    ("seat", 5, "seat"),
    ("discard", [10**6], "discard"),
    ("discard", [70], "discard"),
    ("scores", [0, 0], "scores"),  # three players
    ("turn", 10**12, "turn"),
    ("phase", 7, "phase"),
    ("draws", -1, "draws"),
])
def test_the_crashing_json_states_of_the_issue_are_refused(field, value, match):
    game = BhargGame(num_players=3)
    data = game.to_json(_mid_game(game))
    data[field] = value
    with pytest.raises(ValueError, match=match):
        game.from_json(data)
    assert_refused(raw_env, {"num_players": 3}, edited(game, game.from_json(game.to_json(_mid_game(game))),
                                                       **{field: value}), match)


@pytest.mark.parametrize("bit", [45, 55, 63, 64, 200])
def test_hand_bits_beyond_the_deck_are_refused(bit):
    game = BhargGame()
    state = _mid_game(game)
    hands = list(state.hands)
    hands[0] |= 1 << bit
    assert_refused(raw_env, {}, edited(game, state, hands=hands, obs_bytes=None, codes=None), "hands")


def test_extended_cards_are_refused_unless_the_config_has_them():
    game = BhargGame()
    data = game.to_json(_mid_game(game))
    data["deck"] = [*data["deck"], 36]  # a Pawn, not in the standard deck
    with pytest.raises(ValueError, match="not a card of this deck"):
        game.from_json(data)


@pytest.mark.parametrize(("edit", "match"), [
    (lambda d: d["deck"].append(d["deck"][0]), "both in deck and in deck"),
    (lambda d: d["deck"].pop(), "in no zone"),
    (lambda d: d["hands"].__setitem__(1, d["hands"][1] & (d["hands"][1] - 1)), "in no zone"),
    (lambda d: d.__setitem__("rewards", [float("inf"), 0.0]), "rewards"),
    (lambda d: d.__setitem__("seat", True), "seat True"),
    (lambda d: d.__setitem__("turn", 2.0), "turn 2.0"),
    (lambda d: d.__setitem__("seed", "5"), "seed"),
    (lambda d: d.__setitem__("truncated", 1), "truncated"),
    (lambda d: d.pop("known"), "lacks"),
])
def test_broken_json_is_refused_in_one_line(edit, match):
    game = BhargGame()
    data = game.to_json(_mid_game(game))
    edit(data)
    with pytest.raises(ValueError, match=match) as info:
        game.from_json(data)
    assert "\n" not in str(info.value)


def test_a_hand_of_the_wrong_size_is_refused():
    # 7 cards each at the draw; seat 1 holding 8 is no deal's state (a card from the deck)
    game = BhargGame()
    data = game.to_json(game.new_state(rng_from_seed(1)))
    data["hands"][1] |= 1 << data["deck"].pop()
    with pytest.raises(ValueError, match="seat 1 holds 8 cards, not 7"):
        game.from_json(data)


def test_stale_derived_data_is_refused():
    game = BhargGame()
    state = _mid_game(game)
    game.observe(state, 0)  # builds obs_bytes, which apply() then patches
    game.validate(edited(game, state, deck=state.deck[1:] + state.deck[:1]))  # order unobserved
    unknown = state.hands[1] & ~state.known[1]
    assert unknown
    broken = edited(game, state, known=[state.known[0], state.known[1] | (unknown & -unknown)])
    with pytest.raises(ValueError, match="obs_bytes"):
        game.validate(broken)
    broken.obs_bytes = None  # the documented rule for a hand edit: then it passes
    game.validate(broken)
    wrong_codes = edited(game, state, codes=[0, 0])
    with pytest.raises(ValueError, match="codes"):
        game.validate(wrong_codes)


@pytest.mark.parametrize("seat", [-1, 2, True, 1.0])
def test_observe_and_determinize_refuse_a_seat_that_is_not_one(seat):
    game = BhargGame()
    state = game.new_state(rng_from_seed(0))
    with pytest.raises(ValueError, match="seat"):
        game.observe(state, seat)
    with pytest.raises(ValueError, match="seat"):
        game.determinize(state, seat, np.random.default_rng(0))


def test_win_mode_rewards_minus_one_per_loser_on_the_engine_too():
    # bharg_env/README.md, rules choice 5: +1 / -1; the engine scores through the rules layer's _end_round.
    from bharg_env.env import raw_env as bharg_raw

    env = bharg_raw(num_players=3, reward="win", engine=True)
    for seed in range(40):
        env.reset(seed=seed)
        while env.agents and not any(env.terminations.values()) and not any(env.truncations.values()):
            env.step(int(env.action_mask().nonzero()[0][0]))
        if any(env.terminations.values()):
            winner = env.infos["player_0"]["winner"]
            assert sorted(env._cumulative_rewards.values()) == [-1.0, -1.0, 1.0]
            assert env._cumulative_rewards[f"player_{winner}"] == 1.0
            return
    pytest.fail("no game of 40 ended with a winner")
