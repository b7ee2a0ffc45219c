"""The Tu Sac hand model: what it reads, what it predicts, how it re-deals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from research.tusac_information.handmodel import (
    FEATURE_NAMES,
    WEIGHTS,
    _weighted_deal,
    features,
    fit,
    log_loss,
    model_determinize,
    model_determinizer,
    training_rows,
    type_odds,
    uniform_weights,
)
from setgames.game import rng_from_seed
from tests.tusac.greedy_play import greedy_positions
from tusac_env.rules import TuSacGame


def test_features_read_only_what_the_seat_may_see():
    # Two states that differ only in the others' hidden cards give the same rows and odds.
    for game, state in list(greedy_positions(3, range(2), every=5))[:10]:
        seat = state.current
        twin = game.determinize(state, seat, np.random.default_rng(1))
        for other in range(3):
            if other == seat:
                continue
            t1, r1 = features(state, seat, other)
            t2, r2 = features(twin, seat, other)
            assert t1 == t2 and np.array_equal(r1, r2)
            assert type_odds(state, seat, other) == type_odds(twin, seat, other)


def test_first_feature_is_the_uniform_deals_log_odds():
    # Hand-worked: the hypergeometric chance that a block of `size` unseen cards misses all
    # `u` unseen copies of a type is C(total - u, size) / C(total, size).
    game = TuSacGame(num_players=2)
    state = game.new_state(rng_from_seed(4))
    seat, other = 0, 1
    types, rows = features(state, seat, other)
    unseen = [4 - state.private[seat][t] - state._exposed[t] - (state.active == t) for t in range(28)]
    total, size = sum(unseen), sum(state.private[other])
    for t, row in zip(types, rows, strict=True):
        miss = math.comb(total - unseen[t], size) / math.comb(total, size)
        assert row[0] == pytest.approx(math.log((1 - miss) / miss))
    assert rows.shape == (len(types), len(FEATURE_NAMES))


def test_shipped_weights_predict_hands_better_than_a_uniform_deal_on_new_games():
    # Seeds far from the training seeds (0..299): the model must generalize.
    for n in (2, 4):
        x, y = training_rows(n, range(50_000, 50_006))
        assert log_loss(x, y, WEIGHTS) < log_loss(x, y, uniform_weights()) - 0.02


def test_fit_recovers_planted_logistic_weights():
    rng = np.random.default_rng(0)
    x = np.column_stack([rng.normal(size=20_000), rng.integers(0, 3, 20_000), rng.random(20_000)])
    planted = np.array([1.0, -1.5, 0.8])
    y = (rng.random(20_000) < 1 / (1 + np.exp(-(x @ planted)))).astype(float)
    assert np.allclose(fit(x, y, iterations=3000, l2=0.0), planted, atol=0.12)


def test_weighted_deal_with_even_odds_is_a_uniform_draw():
    # Two copies or fewer of each type: the two-copy cap never binds, so every copy is
    # equally likely and a type's expected count is size * copies / total.
    avail = [2, 1] * 14
    size, total, runs = 10, sum(avail), 4000
    rng = np.random.default_rng(3)
    counts = np.zeros(28)
    for _ in range(runs):
        hand = _weighted_deal(avail[:], [1.0] * 28, size, 0, rng)
        assert sum(hand) == size and max(hand) <= 2
        counts += hand
    expected = np.array(avail) * size / total
    assert np.allclose(counts / runs, expected, atol=0.03)


def test_weighted_deal_takes_heavy_types_first_and_keeps_khaps():
    avail = [3] * 28
    odds = [1.0] * 28
    odds[5] = odds[9] = 1e6
    hand = _weighted_deal(avail, odds, 10, 1, np.random.default_rng(0))
    assert sum(hand) == 10 and sorted(hand).count(3) == 1
    assert hand[5] >= 2 and hand[9] >= 2
    assert sum(avail) == 84 - 10


def _hidden_counts(state, seat):
    others = [o for o in range(state.num_players) if o != seat]
    return [sum(state.private[o][t] for o in others) + state.draw.count(t) for t in range(28)]


def _common(a, b):
    return sum(min(x, y) for x, y in zip(a, b, strict=True))


def test_model_determinize_keeps_the_seats_view_and_every_card():
    for game, state in list(greedy_positions(4, range(2), every=5))[:12]:
        seat = state.current
        det = model_determinize(game, state, seat, np.random.default_rng(2))
        assert np.array_equal(game.observe(det, seat), game.observe(state, seat))
        assert game.legal_actions(det) == game.legal_actions(state)
        for o in range(4):
            assert sum(det.private[o]) == sum(state.private[o])
            assert sorted(det.private[o]).count(3) == sorted(state.private[o]).count(3)
        assert _hidden_counts(det, seat) == _hidden_counts(state, seat)


def test_model_redeals_hold_more_of_the_true_cards_than_uniform_redeals():
    right = {"model": 0, "uniform": 0}
    for game, state in list(greedy_positions(2, range(6), every=5))[:40]:
        seat = state.current
        other = 1 - seat
        rng = np.random.default_rng(7)
        det = model_determinize(game, state, seat, rng)
        uni = game.determinize(state, seat, rng)
        right["model"] += _common(det.private[other], state.private[other])
        right["uniform"] += _common(uni.private[other], state.private[other])
    assert right["model"] > right["uniform"] * 1.1


def test_determinizer_refuses_another_position():
    game = TuSacGame(num_players=2)
    state = game.new_state(rng_from_seed(0))
    det = model_determinizer(game, state, 0)
    with pytest.raises(ValueError, match="another position"):
        det(game, game.clone(state), 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="seat 5"):
        model_determinize(game, state, 5, np.random.default_rng(0))


def test_ismcts_model_option_uses_the_hand_model(monkeypatch):
    from research.tusac_information import handmodel as tusac_handmodel
    from research.tusac_information.search import InformedIsmctsBot

    made = []
    real = tusac_handmodel.model_determinizer

    def counting(*args, **kwargs):
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(tusac_handmodel, "model_determinizer", counting)
    game, state = next(p for p in greedy_positions(2, range(3), every=3)
                       if len(p[0].legal_actions(p[1])) > 1)
    bot = InformedIsmctsBot(0, iterations=20, determinize="model", game_name="tusac")
    assert bot.act(game, state, state.current) in game.legal_actions(state)
    assert made
    with pytest.raises(ValueError, match="determinize"):
        InformedIsmctsBot(0, determinize="psychic")
