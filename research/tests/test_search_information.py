"""The search's information ceiling in Tet Hsi: shown every hidden card, the one-step search beats
greedy by far more than with its honest re-deals (the finding's direction, on a fixed seed)."""

from __future__ import annotations

import pytest

from research.search_information.ceiling import score
from setgames.batch import batch_class
from setgames.registry import make_game


def test_the_cheat_scores_far_above_the_honest_search():
    if batch_class(make_game("tethsi")) is None:
        pytest.skip("no batched engine built")
    honest, n_honest = score(redeals=16, games=300, num_envs=64)
    cheat, n_cheat = score(redeals=0, games=300, num_envs=64)
    assert n_honest >= 300 and n_cheat >= 300
    assert cheat > 0.75 and cheat > honest + 0.15, (cheat, honest)
