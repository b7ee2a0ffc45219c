"""Tu Sac state validation: the field checks of :meth:`TuSacGame.validate`.

A state passes when every field has its type, length and range; each of the
28 types is held exactly four times over the private blocks, the public
blocks, the dead pile, the draw pile and the active card, the only zones a
card can be in (card conservation, ``tusac_env/README.md``, rules choices 20 and 21: a discarded or hit
card is the active card until it is melded into a public block or hit onto the
dead pile; :meth:`~tusac_env.rules.TuSacGame.position` fills in the cards it is
not given);
private counts are 0..3 (a fourth card made a Quan at the deal); every public
set is a set of its kind (a Quan or Khui four of a type, a pair, a triple, a
lone king, king-guard-minister or rook-cannon-knight of one color, 3 or 4
pawns of different colors); the active card, its exposer and the seat to act
fit the phase; payments name seats. The compiled engine keeps every one of
these in fixed C arrays with its bounds checks off. The caller then rebuilds
the caches and checks that the seat to act has a legal action
(:meth:`TuSacGame.validate`).
"""

from __future__ import annotations

from typing import Any

from setgames.cards import NUM_TUSAC_TYPES
from setgames.validate import (
    StateError,
    check_bool,
    check_events,
    check_float,
    check_ids,
    check_int,
    check_list,
    check_seat,
    check_str,
)
from tusac_env.observation import CLAIM_KINDS
from tusac_env.state import PUBLIC_KINDS, Exposure, Phase

__all__ = ["MAX_AMOUNT", "RESULTS", "validate_fields"]

RESULTS = ("", "win", "first_hand_win", "draw")
MAX_AMOUNT = 2**31 - 1  # a hand value or payment (a C int in the engine; a real one is < 1000)
MAX_PUBLIC_SETS = 64  # a seat's most; the deck's 4 copies keep all seats' to 64, the engine's room (MAXPUB)
_TOP = NUM_TUSAC_TYPES - 1
_KING, _GUARD, _MINISTER, _ROOK, _CANNON, _KNIGHT, _PAWN = range(7)


def _is_set(kind: str, cards: list[int]) -> bool:
    """True when ``cards`` (checked type ids) form a public set of ``kind``."""
    n = len(cards)
    same = len(set(cards)) == 1
    pieces = sorted(c % 7 for c in cards)
    colors = {c // 7 for c in cards}
    if kind in ("quan", "khui"):
        return n == 4 and same
    if kind == "king":
        return n == 1 and pieces == [_KING]
    if kind == "pair":
        return n == 2 and same
    if kind == "triple":
        return n == 3 and same
    if kind == "kgm":
        return n == 3 and len(colors) == 1 and pieces == [_KING, _GUARD, _MINISTER]
    if kind == "rcn":
        return n == 3 and len(colors) == 1 and pieces == [_ROOK, _CANNON, _KNIGHT]
    if kind in ("pawns3", "pawns4"):
        size = 3 if kind == "pawns3" else 4
        return n == size and len(colors) == size and pieces == [_PAWN] * size
    return False


def validate_fields(num_players: int, state: Any) -> None:
    """Raise :class:`~setgames.validate.StateError` (a ``ValueError``) naming the first
    plain field of ``state`` (a :class:`~tusac_env.state.TuSacState`) a
    ``num_players``-player game could not produce. Caches are not looked at."""
    n = num_players
    check_int(state.num_players, "num_players", n, n)
    check_seat(state.first, "first", n)
    private = check_list(state.private, "private", n)
    held = [0] * NUM_TUSAC_TYPES  # copies of each type over every zone
    for s in range(n):
        row = check_ids(private[s], f"private[{s}]", 0, 3, length=NUM_TUSAC_TYPES)
        held = [a + b for a, b in zip(held, row, strict=True)]
    public = check_list(state.public, "public", n)
    for s in range(n):
        block = check_list(public[s], f"public[{s}]", max_len=MAX_PUBLIC_SETS)
        for i, entry in enumerate(block):
            name = f"public[{s}][{i}]"
            kind, cards = check_list(entry, name, 2)
            check_str(kind, f"{name} kind", PUBLIC_KINDS)
            cards = check_ids(cards, f"{name} cards", 0, _TOP, max_len=4)
            if not _is_set(kind, cards):
                raise StateError(f"{name} {cards} is not a {kind} set")
            for t in cards:
                held[t] += 1
    dead = check_ids(state.dead, "dead", 0, 4, length=NUM_TUSAC_TYPES)
    held = [a + b for a, b in zip(held, dead, strict=True)]
    for t in check_ids(state.draw, "draw", 0, _TOP, max_len=4 * NUM_TUSAC_TYPES):
        held[t] += 1
    active = check_int(state.active, "active", -1, _TOP)
    if active >= 0:
        held[active] += 1
    wrong = [t for t in range(NUM_TUSAC_TYPES) if held[t] != 4]
    if wrong:
        raise StateError(f"type(s) {wrong[:8]} are held {[held[t] for t in wrong[:8]]} times, "
                         f"not the 4 copies of the deck")

    active_from = check_seat(state.active_from, "active_from", n, none_ok=True)
    how = check_int(state.active_how, "active_how", 0, int(Exposure.HIT))
    check_bool(state.active_passed, "active_passed")
    check_bool(state.discard_worst, "discard_worst")
    current = check_seat(state.current, "current", n, none_ok=True)
    phase = check_int(state.phase, "phase", 0, int(Phase.OVER))
    winner = check_seat(state.winner, "winner", n, none_ok=True)
    result = check_str(state.result, "result", RESULTS)
    check_int(state.win_card, "win_card", -1, _TOP)
    check_int(state.win_how, "win_how", 0, int(Exposure.HIT))
    check_seat(state.win_from, "win_from", n, none_ok=True)
    check_int(state.value, "value", 0, MAX_AMOUNT)
    check_int(state.amount, "amount", 0, MAX_AMOUNT)
    check_seat(state.penalized, "penalized", n, none_ok=True)
    for i, p in enumerate(check_list(state.payments, "payments", max_len=4 * n * n)):
        payer, payee, amt, why = check_list(p, f"payments[{i}]", 4)
        check_seat(payer, f"payments[{i}] payer", n)
        check_seat(payee, f"payments[{i}] payee", n)
        check_int(amt, f"payments[{i}] amount", -MAX_AMOUNT, MAX_AMOUNT)
        check_str(why, f"payments[{i}] reason")
    returns = check_list(state.returns, "returns")
    if returns:
        check_list(returns, "returns", n)
        for s, r in enumerate(returns):
            check_float(r, f"returns[{s}]")
    claim_kind, claim_seat = check_list(state.last_claim, "last_claim", 2)
    check_seat(claim_seat, "last_claim seat", n, none_ok=True)
    check_str(claim_kind, "last_claim kind", ("",) if claim_seat < 0 else CLAIM_KINDS)
    check_events(state.events)

    if phase == Phase.OVER:
        if current != -1 or not result:
            raise StateError(f"a finished game has a seat to act ({current}) or no result")
        if len(returns) != n:
            raise StateError("a finished game needs the returns of every seat")
        return
    if current < 0 or winner != -1 or result:
        raise StateError(f"a running game needs a seat to act and no result "
                         f"(current {current}, winner {winner}, result {result!r})")
    if phase == Phase.DISCARD:
        if active != -1:
            raise StateError(f"a discard decision with an active card ({active})")
        return
    if active < 0 or active_from < 0 or how == Exposure.NONE:
        raise StateError(f"phase {Phase(phase).name} needs an exposed active card "
                         f"(active {active}, from {active_from}, how {how})")
    if phase == Phase.AFTER_HIT and (how != Exposure.HIT or active_from != current):
        raise StateError("after a hit the active card is the current seat's hit card")
    if phase == Phase.RESPOND and active_from == current:
        raise StateError("a seat responds to its own active card")
