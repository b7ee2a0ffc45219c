"""Shared helpers for the Bharg tests: build states by hand, check invariants."""

from __future__ import annotations

from bharg_env.rules import BhargGame, BhargState
from setgames.cards import card_from_name


def cards(*names: str) -> list[int]:
    """Card ids from names or short codes."""
    return [card_from_name(n) for n in names]


def mask(ids) -> int:
    m = 0
    for c in ids:
        m |= 1 << c
    return m


def make_state(game: BhargGame, hands: list[list[int]], deck: list[int], discard: list[int],
               aces: list[int], seat: int = 0, phase: int = 0, known: list[list[int]] | None = None,
               turn: int = 0, scores: list[int] | None = None) -> BhargState:
    """A state laid out by hand (through from_json, so it is a valid state object)."""
    n = game.num_players
    return game.from_json({
        "hands": [mask(h) for h in hands], "known": [mask(k) for k in (known or [[]] * n)],
        "deck": deck, "discard": discard, "aces": aces, "seat": seat, "phase": phase, "turn": turn,
        "round": 1, "scores": scores or [0] * n, "rewards": [0.0] * n, "seed": 12345, "draws": 1,
        "winner": -1, "reason": "", "truncated": False, "round_points": [0] * n, "events": [],
    })


def check_conservation(game: BhargGame, state: BhargState) -> None:
    """Every card of the config is in exactly one place; piles hold what they may."""
    places = [state.hands[s] for s in range(game.num_players)]
    places += [mask(state.deck), mask(state.discard), mask(state.aces)]
    total = sum(p.bit_count() for p in places)
    union = 0
    for p in places:
        union |= p
    assert total == len(game.deck_cards) == len(state.deck) + len(state.discard) + len(state.aces) + sum(
        h.bit_count() for h in state.hands), "a card is duplicated or lost"
    assert union == mask(game.deck_cards), "cards outside the config's deck"
    assert all(c < 6 for c in state.aces), "a non-Ace on the Ace Pile"
    assert state.discard_mask == mask(state.discard)
    for s in range(game.num_players):
        assert state.known[s] & ~state.hands[s] == 0, "a known card not in its holder's hand"
        size = state.hands[s].bit_count()
        extra = 1 if (s == state.seat and state.phase == 1) else 0
        if state.phase != 2:
            assert size == game.hand_size + extra, (s, size)


def check_observation_bytes(game: BhargGame, state: BhargState) -> None:
    """The observation bytes apply() keeps patched equal the ones built from scratch."""
    if state.obs_bytes is None:
        game.observe(state, 0)  # build them, so that the next steps patch them
        return
    assert len(state.obs_bytes) == game.num_players
    for s in range(game.num_players):
        assert state.obs_bytes[s] == game.observation_bytes(state, s), f"stale observation of seat {s}"
