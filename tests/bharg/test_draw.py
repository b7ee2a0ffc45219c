"""The Bharg picture: what each seat sees, the clickable moves, the golden position."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bharg_env.draw import draw
from bharg_env.rules import BhargGame
from setgames.bits import bit_list
from tests.setgames.draw.helpers import check_golden, move_ids, position, shown_cards


def _piles(s) -> Counter:
    # Both piles are face up (every card on them was seen); the picture shows the top two of each,
    # and the discard pile's newest ten again as chips with their names.
    return Counter(s.discard[-2:] + s.discard[-10:] + s.aces[-2:])


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("steps", [0, 7, 40])
def test_a_seat_sees_its_hand_the_known_cards_and_the_piles_only(n, seed, steps):
    game = BhargGame(num_players=n)
    s = position(game, seed, steps)
    for seat in range(n):
        expect = _piles(s) + Counter(bit_list(s.hands[seat]))
        for p in range(n):
            if p != seat:
                expect += Counter(bit_list(s.hands[p] & s.known[p]))
        assert shown_cards(draw(game, s, seat)) == expect
        # The viewer's cards taken from the discard pile are marked: the others know them.
        assert draw(game, s, seat).count(">known</text>") == (s.hands[seat] & s.known[seat]).bit_count()
    assert shown_cards(draw(game, s)) == _piles(s) + Counter(c for h in s.hands for c in bit_list(h))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("steps", [0, 1, 5, 16])
def test_every_legal_move_is_clickable(seed, steps):
    game = BhargGame(num_players=3, excuse=True, pawns=True)
    s = position(game, seed, steps)
    legal = game.legal_actions(s)
    seat = max(0, game.current_seat(s))
    assert sorted(move_ids(draw(game, s, seat, legal))) == legal


def test_golden_position():
    game = BhargGame(num_players=3)
    s = position(game, 2026, 17, stop_at_seat=0)
    check_golden(draw(game, s, 0, game.legal_actions(s)), Path(__file__).parent / "golden" / "position.svg")
