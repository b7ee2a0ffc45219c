"""The games' greedy features (descriptor ``greedy_features``) against their engine route
(``greedy_features_engine``, the compiled twin) in every position of mostly-greedy play."""

from __future__ import annotations

import numpy as np
import pytest

from setgames import registry
from setgames.bots.registry import greedy_class
from setgames.testing import walk_positions

CONFIGS = [("tethsi", {}, 150), ("bharg", {}, 60), ("bharg", {"num_players": 3}, 40),
           ("bharg", {"excuse": True, "pawns": True, "courts": True}, 40),
           ("bharg", {"num_players": 3, "excuse": True, "pawns": True, "courts": True,
                      "target_score": 60}, 20)]


@pytest.mark.parametrize("name, config, games", CONFIGS)
def test_the_engine_route_gives_the_python_features_everywhere(name, config, games):
    engines = pytest.importorskip(f"{name}_env._engine")
    game = registry.make_game(name, **config)
    features = registry.part(name, "greedy_features")
    on_engine = registry.part(name, "greedy_features_engine")
    engine = engines.Engine(game)
    positions = 0
    for g, state, seat in walk_positions(game, greedy_class(name)(0), games, seed=4):
        engine.load(state)
        got = on_engine(game, engine, seat)
        if got is None:
            pytest.skip(f"{name}'s compiled greedy bot is not built")
        want = features(game, state, seat)
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=str(g))
        other = (seat + 1) % game.num_players  # a seat not to act gets zeros on both routes
        assert not on_engine(game, engine, other).any() and not features(game, state, other).any()
        positions += 1
    assert positions > 600


def test_games_without_features_say_so():
    assert registry.part("tusac", "greedy_features") is None
    assert registry.describe("tusac").greedy_features_engine is None


@pytest.mark.parametrize("game_name", ["tethsi", "bharg"])
def test_the_readme_lists_the_greedy_features_columns(game_name):
    """Each game README's greedy-features table names the columns of ``FEATURES``, in order."""
    import re
    import sys
    from pathlib import Path

    readme = Path(sys.modules[registry.part(game_name, "rules").__module__].__file__).with_name("README.md")
    text = readme.read_text(encoding="utf-8")
    table = text.split("<!-- greedy-features:begin -->")[1].split("<!-- greedy-features:end -->")[0]
    rows = re.findall(r"^\| (\d+) \| `([^`]+)` \|", table, re.M)
    assert [int(k) for k, _ in rows] == list(range(len(rows)))
    assert tuple(name for _, name in rows) == tuple(registry.part(game_name, "greedy_feature_names"))
