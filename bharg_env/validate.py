"""Bharg state validation: what :meth:`BhargGame.validate` checks.

A state passes when every field has its type, length and range; every card of
the configured deck is in exactly one of the hands, the deck, the discard pile
and the Ace Pile (Aces only on the Ace Pile, none on the discard pile); the
cards a seat is known to hold are in its hand; every hand has the dealt size
(the seat to act one more while it discards); the turn is under the limit
while the round runs, and match scores are under the target; the derived
fields (``discard_mask``, ``codes``) agree with the rest. The compiled engine
runs with its bounds checks off and relies on all of it; the observation
relies on the sizes (int8 features).
"""

from __future__ import annotations

from typing import Any

from setgames.bits import bit_list
from setgames.cards import NUM_DECKTET
from setgames.kernels.bharg import pattern_code
from setgames.validate import (
    StateError,
    check_bool,
    check_cards_once,
    check_events,
    check_float,
    check_ids,
    check_int,
    check_list,
    check_mask,
    check_seat,
    check_str,
)

__all__ = ["MAX_COUNTER", "MAX_ROUND", "MAX_SCORE", "validate_state"]

NUM_ACES = 6  # Ace ids 0..5 (as bharg_env.rules)
MAX_ROUND = 1 << 30  # rounds of a match; the engine keeps the round as a C int
MAX_SCORE = 1 << 40  # a score or a round's points (a C long long; a round moves it by < 700)
MAX_COUNTER = 2**63 - 1  # the shuffle seed and its draw counter
_DRAW, _DISCARD, _OVER = 0, 1, 2


def validate_state(game: Any, state: Any) -> None:
    """Raise :class:`~setgames.validate.StateError` (a ``ValueError``) naming the first
    field of ``state`` (a :class:`~bharg_env.rules.BhargState`) that ``game`` (a
    :class:`~bharg_env.rules.BhargGame`) could not produce."""
    n = game.num_players
    cfg = game.config
    allowed = sum(1 << c for c in game.deck_cards)
    top = NUM_DECKTET - 1
    hands = check_list(state.hands, "hands", n)
    known = check_list(state.known, "known", n)
    for s in range(n):
        check_mask(hands[s], f"hands[{s}]", allowed)
        check_mask(known[s], f"known[{s}]", allowed)
        if known[s] & ~hands[s]:
            raise StateError(f"known[{s}] holds {bit_list(known[s] & ~hands[s])}, not in seat {s}'s hand")
    size = len(game.deck_cards)
    deck = check_ids(state.deck, "deck", 0, top, max_len=size)
    discard = check_ids(state.discard, "discard", NUM_ACES, top, max_len=size)
    aces = check_ids(state.aces, "aces", 0, NUM_ACES - 1, max_len=NUM_ACES)
    zones = {f"hands[{s}]": bit_list(hands[s]) for s in range(n)}
    zones.update({"deck": deck, "discard": discard, "aces": aces})
    check_cards_once(zones, game.deck_cards)
    if check_mask(state.discard_mask, "discard_mask", allowed) != sum(1 << c for c in discard):
        raise StateError("discard_mask is not the cards of the discard pile")

    seat = check_seat(state.seat, "seat", n)
    phase = check_int(state.phase, "phase", _DRAW, _OVER)
    turn = check_int(state.turn, "turn", 0, cfg.max_turns)
    check_int(state.round, "round", 1, MAX_ROUND)
    scores = check_ids(state.scores, "scores", 0, MAX_SCORE, length=n)
    for s, r in enumerate(check_list(state.rewards, "rewards", n)):
        check_float(r, f"rewards[{s}]", float(MAX_SCORE))
    check_int(state.seed, "seed", 0, MAX_COUNTER)
    check_int(state.draws, "draws", 0, MAX_COUNTER)
    winner = check_seat(state.winner, "winner", n, none_ok=True)
    check_str(state.reason, "reason")
    truncated = check_bool(state.truncated, "truncated")
    points = check_list(state.round_points, "round_points")
    if points:  # empty in states written before the field was filled
        check_ids(points, "round_points", -MAX_SCORE, MAX_SCORE, length=n)
    check_events(state.events)

    for s in range(n):
        want = game.hand_size + (phase == _DISCARD and s == seat)
        if hands[s].bit_count() != want:
            raise StateError(f"seat {s} holds {hands[s].bit_count()} cards, not {want}")
    if phase != _OVER:
        if turn >= cfg.max_turns:
            raise StateError(f"turn {turn} of a running round is not under max_turns {cfg.max_turns}")
        if winner != -1 or truncated:
            raise StateError("a running round has a winner or is truncated")
        if cfg.target_score is not None and max(scores) >= cfg.target_score:
            raise StateError(f"a running match has a score {max(scores)} at or over the target")
    elif truncated and winner != -1:
        raise StateError(f"a truncated round has a winner ({winner})")

    codes = state.codes
    if codes is not None and (not isinstance(codes, list) or len(codes) != n
                              or any(codes[s] != pattern_code(hands[s]) for s in range(n))):
        raise StateError("codes (derived) do not match the hands: set them to None after editing a state")
