"""One bot rated against references of fixed ratings (the gauntlet's fit)."""

from __future__ import annotations

import numpy as np
import pytest

from setgames.arena.ratings import bradley_terry, fixed_reference_fit, rate_against


def test_against_one_reference_it_is_the_two_bot_bradley_terry_fit():
    for score, games in ((7.5, 10.0), (0.0, 6.0), (40.0, 40.0), (13.0, 30.0)):
        pair = bradley_terry(2, [(0, 1, score, games)])
        assert fixed_reference_fit([(250.0, score, games)]) == pytest.approx(250.0 - pair[1], abs=1e-6)


def test_scores_at_the_model_expectation_give_back_the_rating():
    true = 430.0
    refs = [0.0, 200.0, 400.0, 600.0, 900.0]
    games = 1e6  # the prior's virtual game is negligible
    pairs = [(r, games / (1 + 10 ** ((r - true) / 400)), games) for r in refs]
    assert fixed_reference_fit(pairs) == pytest.approx(true, abs=0.01)


def test_a_perfect_record_stays_finite_and_above_every_reference():
    x = fixed_reference_fit([(0.0, 20.0, 20.0), (300.0, 20.0, 20.0)])
    assert 300.0 < x < 2000.0


def test_the_bootstrap_is_reproducible_and_brackets_the_rating():
    deals = [[[2.0, 2.0], [1.0, 2.0], [1.5, 2.0], [0.0, 2.0], [2.0, 2.0]] * 4,
             [[1.0, 2.0], [0.0, 2.0], [1.0, 2.0], [0.5, 2.0]] * 5]
    point, boot = rate_against([0.0, 500.0], deals, seed=3, samples=200)
    again, boot2 = rate_against([0.0, 500.0], deals, seed=3, samples=200)
    assert point == again and np.array_equal(boot, boot2) and boot.shape == (200,)
    low, high = np.percentile(boot, [2.5, 97.5])
    assert low < point < high and high - low > 50.0  # 20 deals a reference: a wide interval
    other = rate_against([0.0, 500.0], deals, seed=4, samples=200)[1]
    assert not np.array_equal(boot, other)


def test_no_games_at_all_is_refused():
    with pytest.raises(ValueError, match="no games"):
        rate_against([0.0], [[]], seed=0)
