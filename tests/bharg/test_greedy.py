"""Greedy Bharg: hand-worked decisions from the rule text, and (slow) its strength."""

from __future__ import annotations

import pytest

from bharg_env.rules import BhargGame, Phase
from setgames.bots import make_bot
from setgames.cards import card_from_name as C
from setgames.game import rng_from_seed

DRAW, TAKE, DISCARD0 = 0, 1, 2


def _mask(*names: str) -> int:
    m = 0
    for n in names:
        m |= 1 << C(n)
    return m


def _state(hand: int, phase: Phase, discard: list[str], aces: list[str] = ()):
    """A 2-player state with seat 0 to act holding ``hand``; the rest of the deck is
    split between the opponent's hand (7 cards) and the deck."""
    game = BhargGame()
    state = game.new_state(rng_from_seed(0))
    disc = [C(n) for n in discard]
    ace_ids = [C(n) for n in aces]
    used = hand | _mask(*discard) | _mask(*aces)
    rest = [c for c in game.deck_cards if not used >> c & 1]
    state.hands = [hand, sum(1 << c for c in rest[:7])]
    state.known = [0, 0]
    state.deck = rest[7:]
    state.discard, state.discard_mask, state.aces = disc, _mask(*discard), ace_ids
    state.seat, state.phase = 0, int(phase)
    return game, state


def test_greedy_takes_the_discard_top_when_it_completes_a_set():
    # Lunatic (Moons, Waves) + Penitent (Suns, Wyrms) + Market (Leaves, Knots): every suit once.
    hand = _mask("Lunatic", "Penitent", "Author", "Journey", "Crown of Moons", "Crown of Suns", "Savage")
    game, state = _state(hand, Phase.DRAW, ["Market"])
    assert make_bot("greedy", "bharg", 0).act(game, state, 0) == TAKE


def test_greedy_draws_the_deck_when_the_discard_top_binds_nothing():
    hand = _mask("Lunatic", "Penitent", "Market", "Pact", "Darkness", "Merchant", "Author")
    game, state = _state(hand, Phase.DRAW, ["Crown of Knots"])
    assert make_bot("greedy", "bharg", 0).act(game, state, 0) == DRAW


def test_greedy_discards_the_unbound_card_of_highest_value():
    # The 6s and the 9s are two sets; the Crown of Moons (10) and the Author (2) are unbound.
    hand = _mask("Lunatic", "Penitent", "Market", "Pact", "Darkness", "Merchant", "Crown of Moons", "Author")
    game, state = _state(hand, Phase.DISCARD, ["Soldier"])
    assert make_bot("greedy", "bharg", 0).act(game, state, 0) == DISCARD0 + C("Crown of Moons")


def test_greedy_discards_to_win_when_all_cards_can_be_bound():
    # Ace of Moons tops the Ace Pile: the Crown of Moons is bound by it, the Castle (7) is not.
    # Discarding the Crown would leave less value, but discarding the Castle binds every card: a win.
    hand = _mask("Lunatic", "Penitent", "Market", "Pact", "Darkness", "Merchant", "Crown of Moons", "Castle")
    game, state = _state(hand, Phase.DISCARD, ["Soldier"], aces=["Ace of Moons"])
    action = make_bot("greedy", "bharg", 0).act(game, state, 0)
    assert action == DISCARD0 + C("Castle")
    game.apply(state, action)
    assert game.is_over(state) and state.winner == 0


def test_greedy_discarding_an_ace_changes_what_binds():
    # No Ace Pile: the Crown of Moons is unbound. Discarding the Ace of Moons tops the Ace Pile
    # with it, which binds the Crown, so the rest (6s, 9s, Crown) is all bound: a win.
    hand = _mask("Lunatic", "Penitent", "Market", "Pact", "Darkness", "Merchant", "Crown of Moons",
                 "Ace of Moons")
    game, state = _state(hand, Phase.DISCARD, ["Soldier"])
    assert make_bot("greedy", "bharg", 0).act(game, state, 0) == DISCARD0 + C("Ace of Moons")


@pytest.mark.slow
def test_greedy_bharg_beats_random_clearly():
    from setgames.arena import run_arena

    res = run_arena(["bharg"], ["greedy", "random"], games_per_pairing=40, seed=3, workers=1)
    pairing = res["arenas"][0]["pairings"][0]
    assert pairing["score_a_ci"][0] > 0.5, pairing
