"""Confidence intervals and Bradley-Terry ratings against independent expectations."""

from __future__ import annotations

import math

import numpy as np
import pytest

from setgames.arena.ratings import bradley_terry, rate
from setgames.arena.stats import mean_interval, t_quantile, wilson_interval


@pytest.mark.parametrize("df, expected", [(1, 12.7062), (4, 2.7764), (10, 2.2281), (11, 2.2010),
                                          (20, 2.0860), (60, 2.0003), (1000, 1.9623)])
def test_t_quantile_matches_tables(df, expected):
    assert t_quantile(df) == pytest.approx(expected, abs=2e-4)


def test_wilson_interval_hand_worked():
    # p = 0.5, n = 100: centre 0.5, half-width 1.96 * sqrt(0.25/100 + 1.96^2/40000) / (1 + 1.96^2/100)
    z = 1.959963984540054
    half = z * math.sqrt(0.0025 + z * z / 40000) / (1 + z * z / 100)
    low, high = wilson_interval(0.5, 100)
    assert low == pytest.approx(0.5 - half) and high == pytest.approx(0.5 + half)


def test_mean_interval_is_the_t_interval_clipped():
    values = [0.0, 0.5, 1.0, 1.0, 0.5, 1.0]
    m = sum(values) / 6
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / 5)
    low, high = mean_interval(values, 0.0, 1.0, proportion=True)
    assert low == pytest.approx(m - 2.570582 * sd / math.sqrt(6), abs=1e-6)
    assert high == 1.0  # clipped


def test_mean_interval_covers_the_true_mean_about_95_percent():
    rng = np.random.default_rng(0)
    hits = 0
    for _ in range(2000):
        sample = rng.normal(3.0, 2.0, size=12).tolist()
        low, high = mean_interval(sample)
        hits += low <= 3.0 <= high
    assert 0.93 < hits / 2000 < 0.97


def test_perfect_record_gets_a_wilson_interval_not_a_point():
    low, high = mean_interval([1.0] * 8, 0.0, 1.0, proportion=True)
    assert high == 1.0 and 0.6 < low < 0.75


def test_bradley_terry_two_bots_closed_form():
    # With the prior (one virtual draw), 2 bots: g0/g1 = (s + 0.5) / (n - s + 0.5).
    r = bradley_terry(2, [(0, 1, 30.0, 40.0)])
    assert r[0] == 0.0
    assert r[1] == pytest.approx(-400 * math.log10(30.5 / 10.5), abs=1e-3)


def test_bradley_terry_recovers_a_transitive_order():
    # True strengths 1, 3, 9: expected scores fed in as exact counts over many games.
    g = [1.0, 3.0, 9.0]
    pairs = [(i, j, 10_000 * g[i] / (g[i] + g[j]), 10_000.0) for i in range(3) for j in range(i + 1, 3)]
    r = bradley_terry(3, pairs)
    assert r[1] - r[0] == pytest.approx(400 * math.log10(3), abs=2.0)
    assert r[2] - r[1] == pytest.approx(400 * math.log10(3), abs=2.0)


def test_rate_orders_bots_and_intervals_contain_the_estimate():
    pairings = [{"a": 0, "b": 1, "deal_scores": [[2.0, 2.0]] * 8 + [[1.0, 2.0]] * 2},
                {"a": 1, "b": 2, "deal_scores": [[1.0, 2.0], [2.0, 2.0], [0.0, 2.0], [1.0, 2.0]]},
                {"a": 0, "b": 2, "deal_scores": [[2.0, 2.0]] * 9 + [[1.5, 2.0]]}]
    rows = rate(["strong", "mid", "weak"], pairings, seed=3)
    assert [r["bot"] for r in rows] == ["strong", "mid", "weak"]
    for r in rows:
        assert r["low"] <= r["elo"] <= r["high"]
    assert rate(["strong", "mid", "weak"], pairings, seed=3) == rows  # seeded bootstrap
