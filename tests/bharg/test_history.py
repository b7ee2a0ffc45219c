"""The ``history`` observation (bharg_env/history.py): hand-worked rows from the README's rules
and its kinds table, then the compiled engine, the AEC env and the batch held to the rules
layer's ``observe`` on random games of every config."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest

from bharg_env.history import HISTORY_LENGTH, history_rows
from bharg_env.rules import DISCARD0, DRAW_DECK, HISTORY_SPEC, OBS_SPEC, TAKE_DISCARD, BhargGame
from setgames.batch import make_batch
from setgames.game import rng_from_seed
from setgames.history import event_rows
from tests.bharg import test_batch
from tests.bharg.helpers import cards, make_state

# The kinds' codes as the README's table gives them (bharg_env/README.md, "Observation", its history mode).
DEAL, ACE_PILE, START, DRAW, TAKE, DISCARD, RESHUFFLE, WIN, LIMIT = range(1, 10)
CONFIGS = test_batch.CONFIGS
L = HISTORY_LENGTH


def _block(game, state, seat):
    """The (kind, seat, card, arg) rows of ``seat``'s history block, newest first, and the count."""
    block = game.observe(state, seat)[OBS_SPEC.size:]
    rows = [tuple(int(x) for x in r) for r in event_rows(block, L) if r[0]]
    return rows, int(block[-1])


def _id(name):
    return cards(name)[0]


# ----------------------------------------------------------------- hand-worked cases
def test_a_new_games_rows_are_its_deal_and_the_cards_turned_up():
    # Rules summary "Deal": cards are turned up, Aces onto the Ace Pile, until a non-Ace starts
    # the discard pile; rules choice 1: player_0 plays first in round 1.
    game = BhargGame(obs="history")
    seen_ace = False
    for seed in range(40):
        state = game.new_state(rng_from_seed(seed))
        want = [(DEAL, 1, 0, 1)] + [(ACE_PILE, 0, a + 1, 0) for a in state.aces]
        want.append((START, 0, state.discard[0] + 1, 0))
        rows, count = _block(game, state, 0)
        assert rows == want[::-1] and count == len(want)
        seen_ace |= bool(state.aces)
    assert seen_ace


def test_a_scripted_round_of_match_play_as_the_rules_describe_it():
    # Seat 0 holds two sets (6MV 6SY 6LK; CV CK 9MS + the 3LY it will draw) and the 2MK; seat 1
    # the loser of the rules tests, whose best arrangement concedes 7 (tests/bharg/test_rules.py).
    game = BhargGame(target_score=60, obs="history")
    hands = [cards("6MV", "6SY", "6LK", "CV", "CK", "9MS", "2MK"),
             cards("AM", "AS", "2SY", "3MV", "4VL", "8MS", "8YK")]
    state = make_state(game, hands, deck=cards("3LY", "7SK"), discard=cards("7VY"), aces=[])
    for action in (TAKE_DISCARD, DISCARD0 + _id("7VY"),   # seat 0 takes the 7VY and lets it go
                   DRAW_DECK, DISCARD0 + _id("7SK"),      # seat 1 draws the 7SK, face down, and lets it go
                   DRAW_DECK, DISCARD0 + _id("2MK")):     # seat 0 draws the 3LY: the 2MK out, all bound
        game.apply(state, action)
    assert state.round == 2 and state.scores == [7, 0]
    # seen from seat 0 (code 1; seat 1 is code 2), newest first, cards as id + 1
    mine = [(TAKE, 1, _id("7VY") + 1, 0), (DISCARD, 1, _id("7VY") + 1, 0),
            (DRAW, 2, 0, 0), (DISCARD, 2, _id("7SK") + 1, 0),
            (DRAW, 1, 0, 0), (DISCARD, 1, _id("2MK") + 1, 0), (WIN, 1, 0, 7),
            (DEAL, 2, 0, 2)]  # rules choice 1: seat 1 plays first in round 2
    mine += [(ACE_PILE, 0, a + 1, 0) for a in state.aces] + [(START, 0, state.discard[0] + 1, 0)]
    rows, count = _block(game, state, 0)
    assert rows == mine[::-1] and count == len(mine)
    # from seat 1 the same rows, the seats turned: seat 1 is 1, seat 0 is 2
    theirs = [(k, {1: 2, 2: 1}.get(s, 0), c, a) for k, s, c, a in mine]
    assert _block(game, state, 1) == (theirs[::-1], len(mine))


def test_a_reshuffle_and_the_turn_limit_are_rows_of_no_seat():
    # Rules summary "Empty deck": drawing from it shuffles all but both piles' tops into a new
    # deck; rules choice 15: the turn limit ends the round, here after one turn.
    game = BhargGame(max_turns=1, obs="history")
    hands = [cards("2MK", "2SY", "2VL", "3MV", "3SK", "3LY", "4MS"),
             cards("4VL", "4YK", "5ML", "5SV", "5YK", "6MV", "6SY")]
    state = make_state(game, hands, deck=[], discard=[], aces=[], fill="piles")
    shuffled = len(state.discard) - 1 + len(state.aces) - 1
    game.apply(state, DRAW_DECK)
    game.apply(state, DISCARD0 + _id("2MK"))
    want = [(RESHUFFLE, 0, 0, shuffled), (DRAW, 1, 0, 0), (DISCARD, 1, _id("2MK") + 1, 0), (LIMIT, 0, 0, 1)]
    assert _block(game, state, 0) == (want[::-1], 4)
    assert _block(game, state, 1)[0][1:3] == [(DISCARD, 2, _id("2MK") + 1, 0), (DRAW, 2, 0, 0)]


def test_a_deck_draw_shows_the_drawer_never_the_card():
    game = BhargGame(obs="history")
    state = game.new_state(rng_from_seed(2))
    top = state.deck[-1]
    game.apply(state, DRAW_DECK)
    for seat in (0, 1):
        rows, _ = _block(game, state, seat)
        assert rows[0] == (DRAW, 1 if seat == 0 else 2, 0, 0)
        assert top + 1 not in [c for _, _, c, _ in rows]


def test_history_rows_refuses_an_event_it_does_not_know():
    with pytest.raises(ValueError, match="no history row"):
        history_rows([("pass", 0)])


def test_the_readmes_kinds_table_lists_the_codes_of_the_reference():
    text = (Path(__file__).parents[2] / "bharg_env" / "README.md").read_text(encoding="utf-8")
    table = re.findall(r"^\| `(\w+)` \| (\d+) \|", text, re.M)
    from bharg_env.history import HISTORY_KINDS

    assert [(k, int(c)) for k, c in table] == [(k, i) for i, k in enumerate(HISTORY_KINDS, 1)]


# ----------------------------------------------------------------- long games
def _random_rules_game(game, seed, stop=None):
    """A random game of the rules layer from seed ``seed`` (stopped after ``stop`` actions)."""
    rng = np.random.default_rng(seed)
    state = game.new_state(rng_from_seed(seed))
    k = 0
    while not game.is_over(state) and (stop is None or k < stop):
        legal = game.legal_actions(state)
        game.apply(state, legal[rng.integers(len(legal))])
        k += 1
    return state


def test_a_game_longer_than_the_block_scrolls_off_its_oldest_rows_and_the_count_says_so():
    game = BhargGame(obs="history")
    # the first random game longer than the block and than the count's cap (most are: the
    # README's measurements, rules choice 18)
    state = next(s for s in (_random_rules_game(game, seed) for seed in range(20))
                 if len(history_rows(s.events)) > 127)
    rows = history_rows(state.events)
    got, count = _block(game, state, 1)
    assert count == 127 > L and len(got) == L
    want = [(k, 0 if s < 0 else 1 + (s - 1) % 2, c + 1, a) for k, s, c, a in rows[-L:]][::-1]
    assert got == want and (DEAL, 1, 0, 1) not in got  # the first deal has scrolled off
    mid = game.clone(state)
    mid.events = state.events[:L + 3]
    assert _block(game, mid, 0)[1] == L + 3  # a count above L: three rows scrolled off


# ----------------------------------------------------------------- the compiled engine
_engine = pytest.importorskip("bharg_env._engine", reason="bharg_env._engine is not built")


@pytest.mark.parametrize("config", CONFIGS)
def test_the_engine_observes_the_rules_layers_bytes_in_every_seat(config):
    game = BhargGame(**config, obs="history")
    n = game.num_players
    engine, loaded = _engine.Engine(game), _engine.Engine(game)
    longest = 0
    for g in range(6):
        rng = np.random.default_rng(g)
        state = game.new_state(np.random.default_rng(100 + g))
        engine.deal(np.random.default_rng(100 + g))
        k = 0
        while True:
            if k % 17 == 0:  # a loaded state rebuilds its ring from the record
                loaded.load(state)
            for seat in range(n):
                want = game.observe(state, seat)
                np.testing.assert_array_equal(engine.observe(seat), want)
                if k % 17 == 0:
                    np.testing.assert_array_equal(loaded.observe(seat), want)
            if game.is_over(state):
                break
            legal = game.legal_actions(state)
            a = legal[rng.integers(len(legal))]
            game.apply(state, a)
            engine.apply(a)
            k += 1
        longest = max(longest, len(history_rows(state.events)))
    if not config.get("max_turns"):
        assert longest > 127  # the ring wrapped, and the count reached its cap


def test_determinize_changes_no_history_observation():
    for config in ({}, {"num_players": 3, "target_score": 40, "pawns": True}):
        game = BhargGame(**config, obs="history")
        rng = np.random.default_rng(7)
        for seed in range(8):
            state = _random_rules_game(game, seed, stop=int(rng.integers(1, 120)))
            for seat in range(game.num_players):
                twin = game.determinize(state, seat, rng)
                np.testing.assert_array_equal(game.observe(twin, seat), game.observe(state, seat))


def test_the_env_passes_the_api_test_and_observes_inside_the_box():
    from pettingzoo.test import api_test

    from bharg_env import env, raw_env

    api_test(env(obs="history"), num_cycles=60)
    for config in ({}, {"num_players": 3, "target_score": 30}):
        fast, slow = raw_env(**config, obs="history"), raw_env(**config, obs="history", engine=False)
        space = fast.observation_space("player_0")["observation"]
        assert space.shape == (HISTORY_SPEC.size,)
        pick = random.Random(3)
        for e in (fast, slow):
            e.reset(seed=5)
        for _ in range(300):
            for agent in fast.agents:
                obs = fast.observe(agent)["observation"]
                assert space.contains(obs)
                np.testing.assert_array_equal(obs, slow.observe(agent)["observation"])
            if fast.terminations[fast.agent_selection] or fast.truncations[fast.agent_selection]:
                break
            a = pick.choice(np.flatnonzero(fast.observe(fast.agent_selection)["action_mask"]).tolist())
            fast.step(a)
            slow.step(a)


# ----------------------------------------------------------------- the batch
pytest.importorskip("bharg_env._batch", reason="bharg_env._batch is not built")


@pytest.fixture
def rules_twins(monkeypatch):
    """The batch lockstep of tests/bharg/test_batch.py with its ``raw_env`` twins on the rules
    layer: every row of the batch is compared with the rules layer's ``observe``."""
    from bharg_env.env import raw_env

    made = []

    def rules_env(**config):
        made.append(raw_env(engine=False, **config))
        return made[-1]

    monkeypatch.setattr(test_batch, "raw_env", rules_env)
    yield test_batch._lockstep
    assert made and all(e.engine is None for e in made)


@pytest.mark.parametrize("config", CONFIGS)
def test_self_play_batches_observe_the_rules_layers_history_with_autoreset(config, rules_twins):
    # same_step autoreset: the final_obs of each ended game too (random matches outlast the run)
    ended = rules_twins({**config, "obs": "history"}, num_envs=8, steps=400)
    assert ended > 0 or "target_score" in config


@pytest.mark.parametrize("opponents,learner_seat,config", [
    ("greedy", "rotate", {"num_players": 3, "target_score": 40}), ("random", "random", {"num_players": 3}),
    ("greedy", 1, {"max_turns": 40})])
def test_opponents_rows_inside_the_step_are_the_rules_layers(opponents, learner_seat, config, rules_twins):
    assert rules_twins({**config, "obs": "history"}, opponents, learner_seat, num_envs=6, steps=150) > 0


def test_next_step_autoreset_restarts_the_history(rules_twins):
    assert rules_twins({"max_turns": 20, "obs": "history"}, num_envs=6, steps=120, autoreset="next_step") > 5


@pytest.mark.long  # two threads over hundreds of slots: CI's long run
def test_two_threads_observe_the_rules_layers_history():
    # the engine-backed twins (held to the rules layer above): 520 slots reach the second thread
    assert test_batch._lockstep({"num_players": 3, "max_turns": 20, "obs": "history"}, "random", "rotate",
                                num_envs=520, steps=30, num_threads=2) > 200


def test_greedy_returns_play_outs_leave_the_history_alone():
    # greedy_returns plays copies of the slots out to the end: none of their rows may reach a
    # slot's ring, so a batch that asks for them every step observes what one that never asks does
    game = BhargGame(num_players=3, obs="history")
    asks, never = make_batch(game, 8, seed=3), make_batch(game, 8, seed=3)
    asks.reset()
    never.reset()
    r1, r2 = np.random.default_rng(1), np.random.default_rng(1)
    for _ in range(60):
        asks.greedy_returns(redeals=1 + _ % 2)
        asks.step(asks.sample(r1))
        never.step(never.sample(r2))
        np.testing.assert_array_equal(asks.obs, never.obs)
        np.testing.assert_array_equal(asks.final_obs, never.final_obs)
