"""Tet Hsi state validation: what :meth:`TetHsiGame.validate` checks.

A state passes when every field has its type and range, the 36 cards are each
in exactly one zone, the Sets put aside are real Sets of the cards recorded
for them, and the phase fits the center (two cards to discard from, one
remaining card to choose on, none while a card is to be played). That is what
the compiled engine relies on (its bounds checks are off) and what the rules
layer needs to offer a sorted, non-empty set of legal actions. Hand sizes,
the turn number and the pile length are not tied to each other: tests build
positions where they are not what a deal would give, and nothing depends on them.
"""

from __future__ import annotations

from typing import Any

from setgames.bits import bit_list
from setgames.cards import NUM_STANDARD
from setgames.kernels.tethsi import KIND_BY_MASK, KIND_NAMES
from setgames.validate import (
    StateError,
    check_cards_once,
    check_events,
    check_ids,
    check_int,
    check_list,
    check_mask,
    check_str,
)
from tethsi_env.layout import Phase

__all__ = ["MAX_TURN", "validate_state"]

MAX_TURN = 1 << 30  # far above any game (one turn per pile card); keeps it a C long
_ALL = (1 << NUM_STANDARD) - 1
_TOP = NUM_STANDARD - 1


def validate_state(state: Any) -> None:
    """Raise :class:`~setgames.validate.StateError` (a ``ValueError``) naming the first
    field of ``state`` (a :class:`~tethsi_env.rules.TetHsiState`) the rules could not produce."""
    pairs = {}
    for name in ("concealed", "front", "set_cards"):
        pairs[name] = check_list(getattr(state, name), name, 2)
        for s in range(2):
            check_mask(pairs[name][s], f"{name}[{s}]", _ALL)
    center = check_mask(state.center, "center", _ALL)
    discard = check_mask(state.discard, "discard", _ALL)
    pile = check_ids(state.pile, "pile", 0, _TOP, max_len=NUM_STANDARD)
    remaining = check_int(state.remaining, "remaining", -1, _TOP)
    seat = check_int(state.seat, "seat", 0, 1)
    phase = check_int(state.phase, "phase", 0, int(Phase.OVER))
    check_int(state.first_player, "first_player", 0, 1)
    check_int(state.turn, "turn", 1, MAX_TURN)
    winner = check_int(state.winner, "winner", -1, 1)
    check_str(state.reason, "reason", none_ok=True)
    check_events(state.events)

    zones = {f"concealed[{s}]": bit_list(pairs["concealed"][s]) for s in range(2)}
    zones.update({f"front[{s}]": bit_list(pairs["front"][s]) for s in range(2)})
    zones.update({"center": bit_list(center), "discard": bit_list(discard), "pile": pile})
    zones.update({f"set_cards[{s}]": bit_list(pairs["set_cards"][s]) for s in range(2)})
    check_cards_once(zones, range(NUM_STANDARD))

    sets = check_list(state.sets, "sets", 2)
    for s in range(2):
        _check_sets(check_list(sets[s], f"sets[{s}]"), pairs["set_cards"][s], s)

    _check_phase(phase, center, remaining, seat, pairs, winner)


def _check_sets(sets: list, set_cards: int, s: int) -> None:
    """Each Set ``(x, y, remaining card, kind)`` is a real Set; together they are ``set_cards``."""
    union = 0
    for i, t in enumerate(sets):
        name = f"sets[{s}][{i}]"
        x, y, r, k = check_list(t, name, 4)
        for v, what in ((x, "x"), (y, "y"), (r, "remaining card")):
            check_int(v, f"{name} {what}", 0, _TOP)
        check_int(k, f"{name} kind", 0, len(KIND_NAMES) - 1)
        triple = 1 << x | 1 << y | 1 << r
        if not x < y or triple.bit_count() != 3:
            raise StateError(f"{name} {t!r} is not three distinct cards with x < y")
        if KIND_BY_MASK.get(triple) != k:
            raise StateError(f"{name} {t!r} is not a {KIND_NAMES[k]} Set")
        if union & triple:
            raise StateError(f"{name} {t!r} shares a card with another Set")
        union |= triple
    if union != set_cards:
        raise StateError(f"set_cards[{s}] {bit_list(set_cards)} are not the cards of sets[{s}]")


def _check_phase(phase: int, center: int, remaining: int, seat: int, pairs: dict, winner: int) -> None:
    """The center and the remaining card as the phase has them."""
    n_center = center.bit_count()
    if phase == Phase.DISCARD and (n_center != 2 or remaining != -1):
        raise StateError(f"a discard decision needs two center cards and no remaining card, "
                         f"not center {bit_list(center)}, remaining {remaining}")
    if phase == Phase.CHOOSE and (remaining < 0 or center != 1 << remaining):
        raise StateError(f"a take / set / nothing decision needs the remaining card as the only "
                         f"center card, not center {bit_list(center)}, remaining {remaining}")
    if phase == Phase.PLAY:
        if center or remaining != -1:
            raise StateError(f"a play decision needs an empty center, not {bit_list(center)}")
        if not pairs["concealed"][seat] | pairs["front"][seat]:
            raise StateError(f"seat {seat} is to play a card but holds none")
    if phase != Phase.OVER and winner != -1:
        raise StateError(f"a running game has a winner ({winner})")
    if phase == Phase.OVER and remaining != -1:
        raise StateError(f"a finished game has a remaining card ({remaining})")
