"""The card a seat drew on its last draw: the session remembers it (through the
game's table tools), undo forgets it, and the pictures mark it in the hand."""

from __future__ import annotations

import pytest

from setgames import registry
from setgames.draw import draw_state
from setgames.play.session import Session


def _play_until(session: Session, done, limit: int = 400) -> bool:
    for _ in range(limit):
        if session.is_over():
            return False
        if done(session):
            return True
        session.quick() if session.human_to_act() else session.bot_move()
    return False


def test_bharg_marks_the_card_the_deck_gave():
    s = Session(registry.make_game("bharg"), "bharg", 5, 0, "greedy", hint_bot="greedy")
    assert s.last_drawn(0) is None
    assert _play_until(s, lambda s: s.human_to_act() and 0 in s.legal())
    before = s.state.hands[0]
    s.play(0)  # draw from the deck
    card = s.last_drawn(0)
    assert card is not None and (s.state.hands[0] & ~before) == 1 << card
    svg = draw_state(s.game, s.state, 0, s.legal(), drawn=card).svg
    assert svg.count('class="drawn"') == 1
    # The mark sits right after the drawn card's face.
    assert svg.index(f'data-card="{card}"') < svg.index('class="drawn"')
    s.undo()
    assert s.last_drawn(0) is None
    s.redo()
    assert s.last_drawn(0) == card


def test_tusac_marks_the_card_its_hit_turned_up():
    from tusac_env.layout import HIT

    s = Session(registry.make_game("tusac", num_players=2), "tusac", 3, 0, "greedy", hint_bot="greedy")
    marked = 0
    while _play_until(s, lambda s: s.human_to_act() and HIT in s.legal()):
        events = len(s.game.events(s.state))
        s.play(HIT)
        card = s.last_drawn(0)
        assert ("hit", 0, card) in [ev[:3] for ev in s.game.events(s.state)[events:]]
        svg = draw_state(s.game, s.state, 0, s.legal(), drawn=card).svg
        # Still the active card, or already in one of the seat's sets: marked there, once.
        active = s.state.active == card and s.state.active_from == 0
        in_sets = any(card in types for _, types in s.state.public[0])
        assert svg.count('class="drawn"') == (1 if active or in_sets else 0)
        marked += active or in_sets
    assert marked


@pytest.mark.parametrize("name", ["tethsi", "bharg", "tusac"])
def test_a_game_without_draws_passes_no_mark(name):
    s = Session(registry.make_game(name), name, 1, 0, "random")
    assert draw_state(s.game, s.state, 0, s.legal(), drawn=s.last_drawn(0)).svg.count('class="drawn"') == 0
