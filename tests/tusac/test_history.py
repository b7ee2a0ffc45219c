"""Tu Sac's ``history`` observation mode (``tusac_env.history``): rows of hand-scripted games
written out from the README's rules, the compiled engine and the batch against the rules layer's
``observe`` (the reference), ``determinize`` invariance, no hidden card in a row, the scroll of a
game longer than the block, the PettingZoo API test and the README's table.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from setgames.engine import engine_class
from setgames.game import rng_from_seed
from setgames.history import event_rows, history_block
from setgames.testing import play_labels
from tests.tusac.helpers import hand, pile, rest_of_deck, ttype
from tusac_env.greedy import GreedyTuSacBot
from tusac_env.history import HISTORY_KINDS, HISTORY_LENGTH, history_bytes, history_rows, make_history_spec
from tusac_env.observation import make_obs_spec
from tusac_env.rules import TuSacGame

L = HISTORY_LENGTH
CONFIGS = [
    {"num_players": 2, "penalty_rule": True, "first_player": 0, "reward_scale": 1.0},
    {"num_players": 3, "penalty_rule": False, "first_player": "random", "reward_scale": 0.5},
    {"num_players": 4, "penalty_rule": True, "first_player": 3, "reward_scale": 1.0},
    {"num_players": 4, "penalty_rule": False, "first_player": "random", "reward_scale": 0.01},
]
# the kinds' codes, as the README's table numbers them
DEAL, QUAN, DISCARD, HIT, PASS, CLAIM, MELD, WIN, PENALTY, DRAW = range(1, 11)


def _engine_cls(game):
    cls = engine_class(game)
    if cls is None:
        pytest.skip("tusac_env._engine is not built")
    return cls


def block_rows(game: TuSacGame, obs: np.ndarray) -> list[tuple[int, int, int, int]]:
    """The non-padding rows of a history observation (newest first) as (kind, seat, card, arg) codes."""
    cards = game.obs_specs["cards"].size
    return [tuple(r) for r in event_rows(obs[cards:], L).tolist() if r[0]]


def game_states(game, seeds, greedy=False):
    """Every state along the games of ``seeds`` (random play, or greedy bots for every seat)."""
    for seed in seeds:
        state = game.new_state(rng_from_seed(seed))
        pick = random.Random(seed)
        bots = [GreedyTuSacBot(seed + s) for s in range(game.num_players)]
        while True:
            yield state
            if game.is_over(state):
                break
            seat = state.current
            legal = game.legal_actions(state)
            game.apply(state, bots[seat].act(game, state, seat) if greedy else pick.choice(legal))


# ------------------------------------------------------------------ hand-worked games
def two_player_script():
    """Seat 0 (a king+guard+minister, a pair of green pawns and a yellow knight) wins on a hit pawn."""
    game = TuSacGame(num_players=2, obs="history")
    state = game.position([hand("rK rG rM gP gP yN"), hand("wR wC wK wG")], pile("wN yP gP"), first=0)
    script = ["discard yellow knight", "hit", "meld white rook+cannon+knight", "discard white guard",
              "hit", "pass", "hit"]
    return game, state, script


def test_a_scripted_two_player_game_has_the_rows_the_rules_give():
    # README, "Rules summary": the deal (6 cards to seat 0, 4 to seat 1, faces hidden). Seat 0's trash
    # is the yellow knight: it discards it (a discard must lower the trash). Seat 1 cannot meld it and
    # hits: the knight goes dead, the white knight turns up; nobody can claim it; seat 1 melds it with
    # its white rook and cannon (a rook+cannon+knight set, kind 7 "rcn"), its trash is the white
    # guard, which it discards. Seat 0 cannot meld the guard, hits (the yellow pawn turns up, no
    # claim: two green pawns and a yellow one are not three colours), cannot meld it and passes.
    # Seat 1 cannot meld the pawn either and hits: the green pawn turns up and seat 0's claim comes
    # first of the claims (a win, 1): its pawn triple (kind 5) leaves king+guard+minister, no trash.
    # Value: the triple (1) and the king+guard+minister (1), 2 (rules choice 22). No penalty: the
    # winning card was hit, not discarded.
    game, state, script = two_player_script()
    play_labels(game, state, script)
    yN, wN, wR, wC, wG, yP, gP = (ttype(c) for c in ("yN", "wN", "wR", "wC", "wG", "yP", "gP"))
    want = [(DEAL, 0, -1, 6), (DEAL, 1, -1, 4),
            (DISCARD, 0, yN, 0), (HIT, 1, wN, 0), (MELD, 1, wR, 7), (MELD, 1, wC, 7), (MELD, 1, wN, 7),
            (DISCARD, 1, wG, 0), (HIT, 0, yP, 0), (PASS, 0, yP, 0), (HIT, 1, gP, 0),
            (CLAIM, 0, gP, 1), (MELD, 0, gP, 5), (MELD, 0, gP, 5), (MELD, 0, gP, 5), (WIN, 0, gP, 2)]
    assert game.is_over(state) and history_rows(state.events) == want
    # Seen from seat 1: seat 1 is 1, seat 0 (the seat after it) 2; cards are ids + 1; newest first.
    obs = game.observe(state, 1)
    assert block_rows(game, obs) == [(k, 1 + (s - 1) % 2, c + 1, a) for k, s, c, a in reversed(want)]
    assert obs[-1] == len(want)
    # from seat 0, the oldest three (last): its discard (1), seat 1's deal (2), its own deal (1)
    assert [r[1] for r in block_rows(game, game.observe(state, 0))][-3:] == [1, 2, 1]


def test_a_scripted_three_player_game_shows_a_quan_a_khui_a_meld_and_the_draw():
    # Seat 0 is dealt four green pawns: a Quan, shown at once (its row, set kind 1). Its trash is the
    # yellow knight; it discards it and seat 1, which holds three (a Khap), Khuis it: the claim
    # (kind 2 khui) and the four cards (set kind 2). Seat 1 discards its white guard; seat 2 is the
    # current player and melds it with its two (a triple, kind 5), then discards its red pawn. Seat 0
    # hits with 7 cards in the draw pile: the game is drawn (rules choice 12), nothing turns up.
    game = TuSacGame(num_players=3, obs="history")
    private = [hand("rK rG rM gP gP gP gP yN"), hand("yN yN yN wR wC wN wG"), hand("wG wG rP")]
    draw = pile("yK yK yK yM yM yM yG")
    state = game.position(private, draw, first=0, dead=rest_of_deck(private, draw))
    play_labels(game, state, ["discard yellow knight", "discard white guard", "meld triple",
                              "discard red pawn", "hit"])
    gP, yN, wG, rP = ttype("gP"), ttype("yN"), ttype("wG"), ttype("rP")
    want = [(DEAL, 0, -1, 8), (DEAL, 1, -1, 7), (DEAL, 2, -1, 3), (QUAN, 0, gP, 1),
            (DISCARD, 0, yN, 0), (CLAIM, 1, yN, 2), *[(MELD, 1, yN, 2)] * 4,
            (DISCARD, 1, wG, 0), *[(MELD, 2, wG, 5)] * 3, (DISCARD, 2, rP, 0),
            (HIT, 0, -1, 0), (DRAW, -1, -1, 7)]
    assert game.outcome(state)["reason"] == "draw" and history_rows(state.events) == want
    # From seat 2: seat 2 is 1, seat 0 is 2, seat 1 is 3; the draw has no seat (0).
    rows = block_rows(game, game.observe(state, 2))
    assert [r[1] for r in rows[:3]] == [0, 2, 1] and rows[-1] == (DEAL, 2, 0, 8)


def test_a_penalty_row_follows_the_win_on_a_discard_that_was_not_a_worst_card():
    # Three players. Three green cannons are dead, so seat 0's green cannon has no outs: its one
    # worst card (rules choice 25). Seat 0 discards its red guard instead; seat 1, the current
    # player, claims it first (a win, 1): red king + guard + minister (set kind 6 "kgm", the cards in
    # type order) leaves its pair of white pawns, no trash. Value: the kgm (1) and the pair (0).
    # The discard was not a worst card: seat 0 pays for every loser (rules choice 24), the penalty
    # row (seat 0, no card) after the win row.
    game = TuSacGame(num_players=3, obs="history")
    dead = [0] * 28
    dead[ttype("gC")] = 3
    state = game.position([hand("rG gC yP yP"), hand("rK rM wP wP"), hand("gR gN")], pile("wK wK"),
                          first=0, dead=dead)
    assert game.worst_cards(state) == [ttype("gC")]
    play_labels(game, state, ["discard red guard"])
    rK, rG, rM = ttype("rK"), ttype("rG"), ttype("rM")
    assert history_rows(state.events) == [
        (DEAL, 0, -1, 4), (DEAL, 1, -1, 4), (DEAL, 2, -1, 2), (DISCARD, 0, rG, 0), (CLAIM, 1, rG, 1),
        (MELD, 1, rK, 6), (MELD, 1, rG, 6), (MELD, 1, rM, 6), (WIN, 1, rG, 1), (PENALTY, 0, -1, 0)]
    assert game.outcome(state)["penalized"] == 0


def test_the_deal_shows_sizes_and_quans_but_no_hidden_card():
    for n in (2, 3, 4):
        game = TuSacGame(num_players=n, first_player="random", obs="history")
        for seed in range(20):
            state = game.new_state(rng_from_seed(seed))
            rows = history_rows(state.events)
            deals = [r for r in rows if r[0] == DEAL]
            assert [r[1] for r in deals] == [(state.first + i) % n for i in range(n)]
            assert [r[3] for r in deals] == [21] + [20] * (n - 1) and all(r[2] == -1 for r in deals)
            quans = sorted((r[1], r[2]) for r in rows if r[0] == QUAN)
            assert quans == sorted((s, cards[0]) for s in range(n) for kind, cards in state.public[s]
                                   if kind == "quan")
            obs = game.observe(state, 0)
            assert obs.size == make_history_spec(n).size == make_obs_spec(n).size + 4 * L + 1
            assert obs[-1] == len(rows)


def test_kinds_and_spec():
    assert HISTORY_KINDS == ("deal", "quan", "discard", "hit", "pass", "claim", "meld", "win", "penalty",
                             "draw")
    for n in (2, 3, 4):
        spec = make_history_spec(n)
        names = [f.name for f in spec.features]
        cards = [f.name for f in make_obs_spec(n).features]
        assert names == [*cards, "event_kind", "event_seat", "event_card", "event_arg", "event_count"]
        assert TuSacGame(num_players=n, obs="history").obs_spec.size == spec.size


def test_history_bytes_is_the_shared_block_of_the_rows():
    game, state, script = two_player_script()
    play_labels(game, state, script)
    assert history_bytes(state, 1) == history_block(history_rows(state.events), L, 1, 2)


# ------------------------------------------------------------------ hidden information
def test_no_row_names_a_card_that_is_not_face_up():
    # A row's card is, right after its event, the active card, in a public block or on the dead
    # pile: never a card only in a hand or the draw pile.
    for n in (2, 3, 4):
        game = TuSacGame(num_players=n, first_player="random")
        seen = 0
        for state in game_states(game, range(12)):
            up = {t for t in range(28) if state.dead[t] or state.active == t
                  or any(t in cards for b in state.public for _, cards in b)}
            named = {c for _, _, c, _ in history_rows(state.events) if c >= 0}
            # cards named earlier may have left the table only into the dead pile or a block, so all are up
            assert named <= up
            seen += len(named)
        assert seen > 100


def test_determinize_changes_no_history_observation():
    for n in (2, 3, 4):
        game = TuSacGame(num_players=n, first_player="random", obs="history")
        cls = engine_class(game)
        rng = np.random.default_rng(n)
        for k, state in enumerate(game_states(game, range(6))):
            if k % 7:
                continue
            for seat in range(n):
                want = game.observe(state, seat)
                twin = game.determinize(state, seat, rng)
                np.testing.assert_array_equal(game.observe(twin, seat), want)
                if cls is not None:
                    eng = cls(game)
                    eng.load(twin)
                    np.testing.assert_array_equal(eng.observe(seat), want)


# ------------------------------------------------------------------ length
def _long_game(game, seeds):
    """The first random game of ``seeds`` with more rows than the block, its states in order."""
    for seed in seeds:
        states = []
        for state in game_states(game, [seed]):
            states.append(game.clone(state))
        if len(history_rows(states[-1].events)) > L:
            return states
    raise AssertionError("no game outgrew the block")


def test_a_game_longer_than_the_block_scrolls_off_the_oldest_rows_and_the_count_says_so():
    # rules choice 27: about 4% of random 3-player games make more than 126 rows.
    game = TuSacGame(num_players=3, obs="history")
    cls = engine_class(game)
    states = _long_game(game, range(200))
    eng = None
    if cls is not None:
        eng = cls(game)
        eng.load(states[0])
    for k, state in enumerate(states):
        rows = history_rows(state.events)
        for seat in range(3):
            obs = game.observe(state, seat)
            got = block_rows(game, obs)
            assert len(got) == min(len(rows), L)
            assert [(r[0], r[2]) for r in got] == [(r[0], r[2] + 1) for r in reversed(rows[-L:])]
            # the count is the rows so far, up to 127: above L (126) it says rows scrolled off
            assert obs[-1] == min(len(rows), 127) and (obs[-1] > L) == (len(rows) > L)
            if eng is not None:
                np.testing.assert_array_equal(eng.observe(seat), obs)
        if eng is not None and k + 1 < len(states):
            eng.apply(_action_between(game, state, states[k + 1]))
    assert len(history_rows(states[-1].events)) > L


def _action_between(game, before, after):
    """The action that took ``before`` to ``after`` (consecutive states of one game)."""
    for a in game.legal_actions(before):
        twin = game.clone(before)
        game.apply(twin, a)
        if twin.events == after.events:
            return a
    raise AssertionError("no action leads there")


def test_rows_a_game_makes_stay_near_the_measured_figures():
    # rules choice 27's measurement, in small: no greedy game here outgrows the block.
    for n in (2, 4):
        game = TuSacGame(num_players=n, first_player="random")
        ends = [len(history_rows(s.events)) for s in game_states(game, range(12), greedy=True)
                if game.is_over(s)]
        assert max(ends) <= L and sum(ends) / len(ends) > 20


# ------------------------------------------------------------------ compiled engine and batch
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c['num_players']}p-{c['first_player']}")
def test_engine_history_equals_the_reference(config):
    from setgames.testing import check_engine_matches_rules

    game = TuSacGame(**config, obs="history")
    _engine_cls(game)
    assert check_engine_matches_rules(game, range(12)) > 300


def test_engine_follows_a_scripted_game_row_for_row_and_its_deal_clears_the_ring():
    game, state, script = two_player_script()
    eng = _engine_cls(game)(game)
    eng.load(state)
    for label in script:
        a = game.str_to_action(label)
        game.apply(state, a)
        eng.apply(a)
        for seat in (0, 1):
            np.testing.assert_array_equal(eng.observe(seat), game.observe(state, seat))
    for seed in (3, 4):  # a deal in the engine starts a new record
        eng.deal(rng_from_seed(seed))
        fresh = game.new_state(rng_from_seed(seed))
        np.testing.assert_array_equal(eng.observe(1), game.observe(fresh, 1))


@pytest.fixture
def rules_twins(monkeypatch):
    """The batch lockstep of ``test_batch`` with its ``raw_env`` twins on the rules layer
    (``engine=False``) in the history mode: the batch's rows are held to the reference."""
    pytest.importorskip("tusac_env._batch")
    from tests.tusac import test_batch

    class RulesTwin(test_batch._Twin):
        def __init__(self, config, opponents, learner_of):
            super().__init__(config, opponents, learner_of)
            self.env = test_batch.raw_env(**config, engine=False)

    monkeypatch.setattr(test_batch, "_Twin", RulesTwin)
    return lambda config, *a, **k: test_batch._lockstep({**config, "obs": "history"}, *a, **k)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c['num_players']}p-{c['first_player']}")
def test_batch_self_play_history_equals_the_rules_layer(rules_twins, config):
    # every step, every slot, across auto-resets and in final_obs
    assert rules_twins(config, num_envs=12, steps=300) > 20


@pytest.mark.parametrize("opponents,learner_seat,config", [
    ("greedy", "rotate", CONFIGS[2]), ("random", "random", CONFIGS[1]), ("greedy", 1, CONFIGS[0])])
def test_batch_with_opponents_in_the_step_equals_the_rules_layer(rules_twins, opponents, learner_seat,
                                                                 config):
    assert rules_twins(config, opponents, learner_seat, num_envs=8, steps=120) > 10


def test_batch_next_step_autoreset_history_equals_the_rules_layer(rules_twins):
    assert rules_twins(CONFIGS[3], num_envs=8, steps=250, autoreset="next_step") > 10


@pytest.mark.long  # two threads over hundreds of slots: CI's long run
def test_batch_on_two_threads_equals_the_rules_layer(rules_twins):
    assert rules_twins(CONFIGS[0], "random", "rotate", num_envs=520, steps=25, num_threads=2) > 50


def test_batch_slot_keeps_its_state_size_and_a_record_beside_it():
    from setgames.batch import make_batch

    pytest.importorskip("tusac_env._batch")
    for n in (2, 4):
        cards = make_batch(TuSacGame(num_players=n), 1, seed=0)
        hist = make_batch(TuSacGame(num_players=n, obs="history"), 1, seed=0)
        assert cards.state_bytes == 1216  # the per-slot TSState, as tuned
        extra = hist.state_bytes - 1216  # the record beside the state holds at least the block
        assert extra >= 4 * L + 1 and extra % 4 == 0
        assert hist.obs_size == make_history_spec(n).size and cards.obs_size == make_obs_spec(n).size


def test_batch_greedy_returns_and_actions_work_in_history_mode():
    # search and play-outs step copies with no ring: the rows stay the slot's own
    from setgames.batch import make_batch

    pytest.importorskip("tusac_env._batch")
    game = TuSacGame(num_players=3, obs="history")
    b = make_batch(game, 6, seed=5)
    b.reset()
    before = b.obs.copy()
    b.greedy_returns(redeals=2)
    b.greedy_actions()
    np.testing.assert_array_equal(b.obs, before)
    b.step(b.greedy_actions())
    cards = game.obs_specs["cards"].size
    assert all(b.obs[i, -1] >= 1 + 3 for i in range(6))  # the deal's rows and the move's
    assert (b.obs[:, cards:cards + L] >= 0).all()


# ------------------------------------------------------------------ env and docs
def test_the_history_env_passes_the_pettingzoo_tests_and_stays_in_its_box():
    from functools import partial

    from pettingzoo.test import api_test, seed_test

    from tusac_env.env import env, raw_env

    api_test(env(num_players=3, obs="history"), num_cycles=200)
    seed_test(partial(raw_env, num_players=2, obs="history"), num_cycles=50)
    for engine in (None, False):
        for n in (2, 4):
            e = raw_env(num_players=n, obs="history", first_player="random", engine=engine)
            box = e.observation_space("player_0")["observation"]
            assert box.shape == (make_history_spec(n).size,)
            for seed in range(2):
                e.reset(seed=seed)
                for _agent in e.agent_iter():
                    obs, _, term, trunc, _ = e.last()
                    assert box.contains(obs["observation"])
                    legal = np.flatnonzero(obs["action_mask"])
                    e.step(None if term or trunc else int(legal[seed % len(legal)]))
