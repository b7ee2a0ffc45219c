"""Every registered game's picture: render modes, ``render_test``, frames, notebooks."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

from setgames import registry
from setgames.draw import draw_state

GAMES = [("tethsi", {}), ("bharg", {"num_players": 3}), ("tusac", {"num_players": 4}),
         ("tusac", {"num_players": 2})]


def _env(name, **kw):
    return registry.env_class(name)(**kw)


@pytest.mark.parametrize(("name", "config"), GAMES)
def test_svg_render_mode_parses_and_matches_the_state(name, config):
    e = _env(name, render_mode="svg", **config)
    e.reset(seed=11)
    svg = e.render()
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    assert svg == draw_state(e.game, e.game_state).svg
    assert e._repr_svg_() == svg and e.game_state._repr_svg_() == svg


@pytest.mark.parametrize(("name", "config"), GAMES)
def test_rgb_array_frame_has_the_svg_size(name, config):
    pytest.importorskip("resvg_py")
    e = _env(name, render_mode="rgb_array", **config)
    e.reset(seed=5)
    frame = e.render()
    root = ET.fromstring(draw_state(e.game, e.game_state).svg)
    assert frame.shape == (int(root.get("height")), int(root.get("width")), 3)
    assert frame.dtype.name == "uint8" and frame.std() > 10  # a picture, not a blank


@pytest.mark.parametrize("name", ["tethsi", "bharg", "tusac"])
def test_pettingzoo_render_test_passes(name, capsys):
    pytest.importorskip("resvg_py")
    from pettingzoo.test import render_test

    render_test(registry.env_class(name))
    capsys.readouterr()


def test_wrapped_env_shows_itself_after_reset_only():
    from tethsi_env import env

    e = env()
    assert e._repr_svg_() is None  # Jupyter then falls back to the text repr
    e.reset(seed=1)
    assert e._repr_svg_().startswith("<svg")


@pytest.mark.parametrize(("name", "config"), GAMES)
def test_every_frame_of_a_game_has_one_size(name, config):
    # Video recorders need one frame size for a whole episode.
    import random

    from setgames.game import rng_from_seed

    game = registry.make_game(name, **config)
    state = game.new_state(rng_from_seed(3))
    rng = random.Random(3)
    sizes = set()
    while True:
        root = ET.fromstring(draw_state(game, state).svg)
        sizes.add((root.get("width"), root.get("height")))
        if game.is_over(state):
            break
        game.apply(state, rng.choice(game.legal_actions(state)))
    assert len(sizes) == 1


def test_tu_sac_s_status_names_only_what_is_legal_for_the_viewer():
    import re

    from setgames.draw import draw_state
    from setgames.game import rng_from_seed
    from tusac_env.layout import DISCARD0, HIT, PASS
    from tusac_env.rules import TuSacGame

    game = TuSacGame(num_players=2)
    seen = set()
    for seed in range(6):
        state = game.new_state(rng_from_seed(seed))
        rng = random.Random(seed)
        while not game.is_over(state):
            legal = game.legal_actions(state)
            said = re.search(r"player_\d to ([a-z ]+)<", draw_state(game, state, game.current_seat(state),
                                                                     legal).svg).group(1)
            can = {"meld": any(a < HIT for a in legal), "hit": HIT in legal, "pass": PASS in legal,
                   "discard": any(a >= DISCARD0 for a in legal)}
            assert set(said.split(" or ")) == {k for k, ok in can.items() if ok}, (said, legal)
            seen.add(said)
            game.apply(state, rng.choice(legal))
    assert "hit" in seen  # a response where no meld is legal: the case the old wording got wrong
