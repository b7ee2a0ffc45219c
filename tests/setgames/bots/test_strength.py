"""The strength order, measured by the arena (slow: run with ``-m slow``).

Each check plays duplicate deals and asserts that the 95% interval of the
stronger bot's score excludes 50%.
"""

from __future__ import annotations

import pytest

from setgames.arena import run_arena
from tests.setgames.bots.helpers import available_games

GREEDY_VS_RANDOM_GAMES = {"tethsi": 40, "bharg": 40, "tusac": 160}  # Tu Sac's 4-seat margin is narrower


@pytest.mark.slow
@pytest.mark.parametrize("game_name", ["tethsi", "tusac"])
def test_greedy_beats_random(game_name):
    if game_name not in available_games():
        pytest.skip(f"{game_name} rules not on disk yet")
    res = run_arena([game_name], ["greedy", "random"], games_per_pairing=GREEDY_VS_RANDOM_GAMES[game_name],
                    seed=5, workers=2)
    pairing = res["arenas"][0]["pairings"][0]
    assert pairing["score_a_ci"][0] > 0.5, pairing
