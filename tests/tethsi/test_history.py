"""Tet Hsi's ``history`` observation mode (``tethsi_env.history``): rows of hand-scripted games
written out from the README's rules, the compiled engine and the batch against the rules layer's
``observe`` (the reference), ``determinize`` invariance, the bound that keeps every row, the
PettingZoo API test and the README's table.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from setgames.engine import engine_class
from setgames.game import rng_from_seed
from setgames.history import event_rows
from setgames.testing import play_labels
from tests.tethsi.positions import c, position
from tethsi_env.greedy import GreedyTetHsiBot
from tethsi_env.history import (
    HISTORY_KINDS,
    HISTORY_LENGTH,
    HISTORY_SPEC,
    history_events,
    history_rows,
)
from tethsi_env.layout import OBS_SPEC
from tethsi_env.rules import TetHsiGame

CONFIGS = [0, 1, "random"]
SETS0 = (("2MK", "2SY", "2VL"), ("AV", "CV", "5SV"))  # two Sets seat 0 already put aside
L = HISTORY_LENGTH


def _engine_cls():
    cls = engine_class(TetHsiGame(obs="history"))
    if cls is None:
        pytest.skip("tethsi_env._engine is not built")
    return cls


def block_rows(obs: np.ndarray) -> list[tuple[int, int, int, int]]:
    """The non-padding rows of a history observation (newest first) as (kind, seat, card, arg) codes."""
    rows = event_rows(obs[OBS_SPEC.size:], L).tolist()
    return [tuple(r) for r in rows if r[0]]


def count(obs: np.ndarray) -> int:
    return int(obs[-1])


def scripted_win():
    """Seat 0 (two Sets aside, Mountain and Diplomat in hand) wins on its second turn."""
    s = position(["4MS", "8MS"], ["5ML"], ["9LK", "7VY"], pile=["AM", "3LY"], sets0=SETS0)
    script = ["discard Cave", "take", "play Merchant", "discard Savage", "nothing", "discard Merchant",
              "set Mountain + Diplomat"]
    return s, script


def random_states(game, seeds, greedy=False):
    """Every state along games of ``seeds`` (random play, or greedy bots)."""
    for seed in seeds:
        state = game.new_state(rng_from_seed(seed))
        pick, bots = random.Random(seed), [GreedyTetHsiBot(seed), GreedyTetHsiBot(seed + 1)]
        while True:
            yield state
            if game.is_over(state):
                break
            legal = game.legal_actions(state)
            game.apply(state, bots[state.seat].act(game, state, state.seat) if greedy else pick.choice(legal))


# ------------------------------------------------------------------ hand-worked games
def test_a_scripted_winning_game_has_the_rows_the_rules_give():
    # README, "Rules summary": seat 0 discards the Cave, takes the Merchant and plays it (the card just
    # taken may be played, rules choice 11); the Savage is revealed. Seat 1 discards the Savage and
    # does nothing: the Merchant stays (rules choice 4) and the Ace of Moons is revealed. Seat 0
    # discards the Merchant and puts aside Mountain + Diplomat + Ace of Moons, a Kvar (kind 3) that
    # empties its hand: a win, no play, no reveal (rules choice 13).
    game = TetHsiGame(obs="history")
    state, script = scripted_win()
    play_labels(game, state, script)
    cave, merchant, savage, ace = c("7VY"), c("9LK"), c("3LY"), c("AM")
    mountain, diplomat = c("4MS"), c("8MS")
    want = [(1, 0, cave, 0), (2, 0, merchant, 0), (5, 0, merchant, 0), (6, 0, savage, 0),
            (1, 1, savage, 0), (3, 1, merchant, 0), (6, 1, ace, 0),
            (1, 0, merchant, 0), (4, 0, mountain, 3), (4, 0, diplomat, 3), (4, 0, ace, 3), (7, 0, -1, 0)]
    assert history_rows(state.events) == want
    # Seen from seat 1: seat 0 is the seat after it (code 2), seat 1 itself is 1; cards + 1.
    obs = game.observe(state, 1)
    assert block_rows(obs) == [(k, 1 + (s - 1) % 2, card + 1, arg) for k, s, card, arg in reversed(want)]
    assert count(obs) == 12
    mine = game.observe(state, 0)
    assert [r[1] for r in block_rows(mine)] == [1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1]


def test_a_scripted_tie_ends_with_a_tie_row_and_no_reveal():
    # The pile is empty at seat 0's reveal: a tie (rules choice 5), the last row, no card.
    game = TetHsiGame(obs="history")
    state = position(["4MS", "8MS"], ["5ML"], ["9LK", "7VY"], pile=[])
    play_labels(game, state, ["discard Merchant", "nothing"])
    assert history_rows(state.events) == [(1, 0, c("9LK"), 0), (3, 0, c("7VY"), 0), (8, 0, -1, 0)]
    assert block_rows(game.observe(state, 0))[0] == (8, 1, 0, 0)


def test_the_deal_shows_no_row_and_the_count_starts_at_zero():
    game = TetHsiGame(obs="history")
    state = game.new_state(rng_from_seed(3))
    for seat in (0, 1):
        obs = game.observe(state, seat)
        assert obs.size == HISTORY_SPEC.size == OBS_SPEC.size + 4 * L + 1
        assert not obs[OBS_SPEC.size:].any()


def test_kinds_and_spec_ranges():
    assert HISTORY_KINDS == ("discard", "take", "nothing", "set", "play", "reveal", "win", "tie")
    names = [f.name for f in HISTORY_SPEC.features]
    assert names[:len(OBS_SPEC.features)] == [f.name for f in OBS_SPEC.features]
    assert names[len(OBS_SPEC.features):] == ["event_kind", "event_seat", "event_card", "event_arg",
                                              "event_count"]


def test_rows_give_the_record_back():
    game = TetHsiGame()
    for state in random_states(game, range(30)):
        assert history_events(history_rows(state.events)) == state.events


# ------------------------------------------------------------------ the bound
def _longest(game, seeds, greedy):
    return max(len(history_rows(s.events)) for s in random_states(game, seeds, greedy) if game.is_over(s))


def test_no_game_outgrows_the_block_so_nothing_scrolls_off():
    # README, rules choice 15: at most 85 rows a game. Random play comes near it (83 seen in
    # 20,000 games); the count is the whole record and every row is still in the block.
    game = TetHsiGame(obs="history")
    assert _longest(game, range(300), False) <= L
    assert _longest(game, range(60), True) <= L
    for state in random_states(game, range(40)):
        rows = history_rows(state.events)
        obs = game.observe(state, 0)
        assert count(obs) == len(rows) <= L and len(block_rows(obs)) == len(rows)


def test_a_longer_hand_built_record_scrolls_off_the_oldest_in_engine_and_reference():
    # No game reaches L rows; a hand-built record longer than the block shows the ring's scroll.
    cls = _engine_cls()
    game = TetHsiGame(obs="history")
    state = position(["4MS", "8MS"], ["5ML"], ["9LK", "7VY"], pile=["AM", "3LY"])
    state.events = [("discard", i % 2, i % 36) for i in range(L + 20)]
    eng = cls(game)
    eng.load(state)
    obs = game.observe(state, 1)
    np.testing.assert_array_equal(eng.observe(1), obs)
    rows = block_rows(obs)
    assert count(obs) == L + 20 and len(rows) == L
    assert rows[0] == (1, 2, (L + 19) % 36 + 1, 0) and rows[-1] == (1, 2, 20 % 36 + 1, 0)
    eng.apply(game.str_to_action("discard Cave"))
    assert count(eng.observe(0)) == L + 21 and block_rows(eng.observe(0))[0] == (1, 1, c("7VY") + 1, 0)


# ------------------------------------------------------------------ compiled engine and batch
@pytest.mark.parametrize("first_player", CONFIGS)
def test_engine_history_equals_the_reference(first_player):
    from setgames.testing import check_engine_matches_rules

    _engine_cls()
    game = TetHsiGame(first_player=first_player, obs="history")
    assert check_engine_matches_rules(game, range(60)) > 2000


def test_engine_follows_a_scripted_game_row_for_row():
    cls = _engine_cls()
    game = TetHsiGame(obs="history")
    state, script = scripted_win()
    eng = cls(game)
    eng.load(state)
    for label in script:
        a = game.str_to_action(label)
        game.apply(state, a)
        eng.apply(a)
        for seat in (0, 1):
            np.testing.assert_array_equal(eng.observe(seat), game.observe(state, seat))


@pytest.fixture
def rules_twins(monkeypatch):
    """The batch lockstep of ``test_batch`` with its ``raw_env`` twins on the rules layer
    (``engine=False``): the batch's history rows are held to ``observe`` of the reference."""
    from tests.tethsi import test_batch

    class RulesTwin(test_batch._Twin):
        def __init__(self, first_player, opponents, learner_of, obs="cards"):
            super().__init__(first_player, opponents, learner_of, obs)
            self.env = test_batch.raw_env(first_player=first_player, obs=obs, engine=False)

    monkeypatch.setattr(test_batch, "_Twin", RulesTwin)
    return test_batch._lockstep


@pytest.mark.parametrize("first_player", CONFIGS)
def test_batch_self_play_history_equals_the_rules_layer(rules_twins, first_player):
    # Every step, every slot, across auto-resets and in final_obs.
    assert rules_twins(first_player, num_envs=24, steps=500, obs="history") > 200


@pytest.mark.parametrize("opponents,learner_seat",
                         [("greedy", "rotate"), ("random", "random"), ("greedy", 1)])
def test_batch_with_opponents_in_the_step_equals_the_rules_layer(rules_twins, opponents, learner_seat):
    assert rules_twins("random", opponents, learner_seat, num_envs=16, steps=300, obs="history") > 100


def test_batch_next_step_autoreset_history_equals_the_rules_layer(rules_twins):
    assert rules_twins(1, num_envs=12, steps=300, autoreset="next_step", obs="history") > 50


@pytest.mark.long  # two threads over hundreds of slots: CI's long run
def test_batch_on_two_threads_equals_the_rules_layer(rules_twins):
    ended = rules_twins("random", "random", "rotate", num_envs=520, steps=40, num_threads=2, obs="history")
    assert ended > 100


def test_batch_state_carries_the_record_its_ring_holds():
    from setgames.batch import make_batch

    pytest.importorskip("tethsi_env._batch")
    game = TetHsiGame(first_player="random", obs="history")
    b = make_batch(game, 8, seed=11)
    b.reset()
    replay = [game.new_state(rng_from_seed(int(b.game_seed[i]))) for i in range(8)]
    rng = np.random.default_rng(2)
    checked = 0
    for _ in range(200):
        actions = b.sample(rng)
        b.step(actions)
        for i in range(8):
            if b.terminated[i]:  # auto-reset: the slot's next game, from its seed
                replay[i] = game.new_state(rng_from_seed(int(b.game_seed[i])))
            else:
                game.apply(replay[i], int(actions[i]))
            assert b.state(i).events == replay[i].events
            np.testing.assert_array_equal(game.observe(b.state(i), 0), game.observe(replay[i], 0))
            checked += len(replay[i].events) > 40
    assert checked > 100
    # a slot's bytes are the cards mode's and its record's, which holds at least the block
    extra = b.state_bytes - make_batch(TetHsiGame(), 1, seed=0).state_bytes
    assert extra >= 4 * L + 1 and extra % 4 == 0


# ------------------------------------------------------------------ hidden information
def test_determinize_changes_no_history_observation():
    game = TetHsiGame(obs="history")
    rng = np.random.default_rng(7)
    cls = engine_class(game)
    for n, state in enumerate(random_states(game, range(20))):
        if n % 3:
            continue
        for seat in (0, 1):
            want = game.observe(state, seat)
            twin = game.determinize(state, seat, rng)
            np.testing.assert_array_equal(game.observe(twin, seat), want)
            if cls is not None:
                eng = cls(game)
                eng.load(twin)
                np.testing.assert_array_equal(eng.observe(seat), want)


def test_no_hidden_card_is_in_the_block():
    # A row names a card only once it is face up (center, discard pile, a front, a Set): a card
    # still concealed or in the pile (rules choice 6) is never named, whoever observes.
    game = TetHsiGame(obs="history")
    for state in random_states(game, range(30)):
        named = {card for _, _, card, _ in history_rows(state.events) if card >= 0}
        hidden = {x for x in range(36) if ((state.concealed[0] | state.concealed[1]) >> x) & 1}
        assert not named & (hidden | set(state.pile))


# ------------------------------------------------------------------ env and docs
def test_the_history_env_passes_the_pettingzoo_tests_and_stays_in_its_box():
    from functools import partial

    from pettingzoo.test import api_test, seed_test

    from tethsi_env.env import env, raw_env

    api_test(env(obs="history"), num_cycles=200)
    seed_test(partial(raw_env, obs="history"), num_cycles=50)
    for engine in (None, False):
        e = raw_env(obs="history", first_player="random", engine=engine)
        box = e.observation_space("player_0")["observation"]
        assert box.shape == (HISTORY_SPEC.size,)
        for seed in range(4):
            e.reset(seed=seed)
            for _agent in e.agent_iter():
                obs, _, term, trunc, _ = e.last()
                assert box.contains(obs["observation"])
                legal = np.flatnonzero(obs["action_mask"])
                e.step(None if term or trunc else int(legal[seed % len(legal)]))

