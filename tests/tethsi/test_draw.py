"""The Tet Hsi picture: what each seat sees, the clickable moves, the golden position."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from setgames.bits import bit_list
from tests.setgames.draw.helpers import check_golden, move_ids, position, shown_cards
from tethsi_env.draw import draw
from tethsi_env.layout import DISCARD_START, PLAY_START, TAKE
from tethsi_env.rules import TetHsiGame

GAME = TetHsiGame()


def _public(s) -> Counter:
    cards = bit_list(s.center) + bit_list(s.discard)
    if s.remaining >= 0 and not s.center >> s.remaining & 1:
        cards.append(s.remaining)
    for p in (0, 1):
        cards += bit_list(s.front[p]) + [c for a, b, r, _ in s.sets[p] for c in (a, b, r)]
    return Counter(cards)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("steps", [0, 9, 30])
def test_a_seat_sees_its_hand_and_the_public_cards_only(seed, steps):
    s = position(GAME, seed, steps)
    for seat in (0, 1):
        assert shown_cards(draw(GAME, s, seat)) == _public(s) + Counter(bit_list(s.concealed[seat]))
    everything = _public(s) + Counter(bit_list(s.concealed[0]) + bit_list(s.concealed[1]))
    assert shown_cards(draw(GAME, s)) == everything
    # Every card is somewhere: shown to a spectator, or in the draw pile.
    assert sum(everything.values()) + len(s.pile) == 36


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("steps", [0, 1, 2, 7, 20])
def test_card_moves_are_the_legal_discards_takes_and_plays(seed, steps):
    s = position(GAME, seed, steps)
    legal = GAME.legal_actions(s)
    seat = max(0, GAME.current_seat(s))
    shown = move_ids(draw(GAME, s, seat, legal))
    card_moves = [a for a in legal if a < DISCARD_START + 36 or a == TAKE or a >= PLAY_START]
    assert sorted(shown) == sorted(card_moves)
    assert move_ids(draw(GAME, s, seat)) == []


def test_game_over_is_announced():
    s = position(GAME, 3, 10_000)
    assert GAME.is_over(s)
    assert "Game over" in draw(GAME, s)


def test_golden_position():
    s = position(GAME, 2026, 23, stop_at_seat=0)
    check_golden(draw(GAME, s, 0, GAME.legal_actions(s)), Path(__file__).parent / "golden" / "position.svg")
