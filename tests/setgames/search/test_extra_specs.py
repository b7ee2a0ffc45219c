"""What a game's compiled search offers beside the plain ``search`` bot (``setgames.search.extra_specs``)."""

from __future__ import annotations

import pytest

from setgames.arena import BotSpec
from setgames.registry import make_game
from setgames.search import extra_specs
from tests.setgames.toy_game import ToyGame


def test_a_search_that_infers_offers_itself_inferring_and_the_others_nothing():
    pytest.importorskip("tethsi_env._search")
    (spec,) = extra_specs(make_game("tethsi"))
    bot = BotSpec.parse(spec).build("tethsi")
    assert bot.name == "search" and bot.infer > 0
    for name, players in (("bharg", 2), ("bharg", 3), ("tusac", 4)):
        assert extra_specs(make_game(name, num_players=players)) == ()
        with pytest.raises(ValueError, match="infer"):
            BotSpec.parse(spec).build(name)  # what Tet Hsi offers, these games refuse
    assert extra_specs(ToyGame()) == ()  # no compiled search at all
