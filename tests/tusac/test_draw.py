"""The Tu Sac picture: what each seat sees, the clickable moves, the golden position."""

from __future__ import annotations

from pathlib import Path

import pytest

from setgames.cards import NUM_TUSAC_TYPES
from tests.setgames.draw.helpers import check_golden, move_ids, position, shown_cards
from tusac_env.draw import draw
from tusac_env.layout import DISCARD0, HIT, PASS
from tusac_env.rules import TuSacGame


def _public_types(s) -> set[int]:
    types = {t for t in range(NUM_TUSAC_TYPES) if s.dead[t]}
    types |= {t for sets in s.public for _, tt in sets for t in tt}
    if s.active >= 0:
        types.add(s.active)
    return types


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("steps", [0, 9, 40])
def test_a_seat_sees_its_private_block_and_the_public_cards_only(n, seed, steps):
    game = TuSacGame(num_players=n)
    s = position(game, seed, steps)
    for seat in range(n):
        shown = shown_cards(draw(game, s, seat))
        private = {t for t in range(NUM_TUSAC_TYPES) if s.private[seat][t]}
        assert set(shown) == _public_types(s) | private
        # Every copy of the private block is drawn, one card each.
        assert all(shown[t] >= s.private[seat][t] for t in private)
    everyone = {t for p in range(n) for t in range(NUM_TUSAC_TYPES) if s.private[p][t]}
    assert set(shown_cards(draw(game, s))) == _public_types(s) | everyone


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("steps", [0, 1, 3, 12, 25])
def test_discards_and_the_hit_are_clickable_and_nothing_else_but_a_lone_meld(seed, steps):
    game = TuSacGame(num_players=3)
    s = position(game, seed, steps)
    legal = game.legal_actions(s)
    seat = max(0, game.current_seat(s))
    shown = set(move_ids(draw(game, s, seat, legal)))
    melds = [a for a in legal if a < HIT]
    expect = {a for a in legal if a >= DISCARD0 or a == HIT} | (set(melds) if len(melds) == 1 else set())
    assert shown == expect and PASS not in shown


def test_golden_position():
    game = TuSacGame(num_players=4)
    s = position(game, 2026, 14, stop_at_seat=0)
    check_golden(draw(game, s, 0, game.legal_actions(s)), Path(__file__).parent / "golden" / "position.svg")
