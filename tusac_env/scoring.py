"""Tu Sac scoring: hand value, winning amount, side payments and the penalty rule.

Rules applied (``tusac_env/README.md``, rules choices 22, 23 and 24):

- set values: Quan 8, Khui 6, Khap (triple left in a private block) 3, four
  pawns 2, pair 0, every other set 1; the winner's hand value is their public
  block plus the best trash-free arrangement of their private block;
- each loser pays ``(3 + value) + 10``, or ``(3 + value) * 2 + 10`` when the
  winner has a Quan or a Khui;
- side payments: each non-winner is paid 8 per Quan and 6 per Khui by every
  other player (winner included) and 3 per Khap by every other non-winner;
- penalty rule: if the winning card was a discard that was not one of the
  discarder's worst cards when discarded, the discarder alone pays the
  winning amount for every loser;
- a draw pays nothing.
"""

from __future__ import annotations

from tusac_env.melds import block_value, public_value
from tusac_env.state import (
    EXPOSED_BY_DISCARD,
    PHASE_OVER,
    PUBLIC_KINDS,
    TuSacConfig,
    TuSacState,
)

__all__ = ["KHAP_SIDE", "KHUI_SIDE", "QUAN_SIDE", "finish_draw", "finish_win", "winning_amount"]

QUAN_SIDE = 8  # paid to a non-winner per Quan, by every other player
KHUI_SIDE = 6  # paid to a non-winner per Khui, by every other player
KHAP_SIDE = 3  # paid to a non-winner per Khap, by every other non-winner
_QUAN, _KHUI = PUBLIC_KINDS.index("quan"), PUBLIC_KINDS.index("khui")


def winning_amount(value: int, doubled: bool) -> int:
    """What each loser pays the winner.

    >>> winning_amount(5, False), winning_amount(5, True)
    (18, 26)
    """
    return (3 + value) * 2 + 10 if doubled else (3 + value) + 10


def hand_value(state: TuSacState, seat: int) -> int:
    """``seat``'s public set values plus the best trash-free arrangement of its private block."""
    best = block_value(state._codes[seat])
    if best < 0:
        raise ValueError(f"seat {seat} has trash left and cannot be valued")
    return public_value(state, seat) + best


def finish_win(state: TuSacState, config: TuSacConfig, seat: int, card: int, how: int,
               source: int) -> None:
    """End the game with ``seat`` winning on ``card`` (-1 for a dealt hand) and pay everyone."""
    n = state.num_players
    state.winner = seat
    state.result = "win" if card >= 0 else "first_hand_win"
    state.win_card, state.win_how, state.win_from = card, how, source
    state.value = hand_value(state, seat)
    kinds = state._kind_counts  # sets of each kind per seat (PUBLIC_KINDS order)
    doubled = bool(kinds[seat][_QUAN] or kinds[seat][_KHUI])
    amount = winning_amount(state.value, doubled)
    state.amount = amount
    state.events.append(("win", seat, card, state.value, amount))
    pays: list[list] = []
    penalized = (
        config.penalty_rule and card >= 0 and how == EXPOSED_BY_DISCARD and not state.discard_worst
    )
    for loser in range(n):
        if loser == seat:
            continue
        if penalized:
            pays.append([source, seat, amount, f"penalty for player_{loser}"])
        else:
            pays.append([loser, seat, amount, "win"])
    if penalized:
        state.penalized = source
        state.events.append(("penalty", source, amount * (n - 1)))
    for x in range(n):
        if x == seat:
            continue
        quans = kinds[x][_QUAN]
        khuis = kinds[x][_KHUI]
        khaps = len(state._khaps[x])
        for y in range(n):
            if y == x:
                continue
            if quans:
                pays.append([y, x, QUAN_SIDE * quans, "quan"])
            if khuis:
                pays.append([y, x, KHUI_SIDE * khuis, "khui"])
            if khaps and y != seat:
                pays.append([y, x, KHAP_SIDE * khaps, "khap"])
    net = [0] * n
    for payer, payee, amt, reason in pays:
        net[payer] -= amt
        net[payee] += amt
        state.events.append(("pay", payer, payee, amt, reason))
    state.payments = pays
    state.returns = [float(v) * config.reward_scale for v in net]
    state.phase = PHASE_OVER
    state.current = -1
    state._legal = []


def finish_draw(state: TuSacState) -> None:
    """End the game drawn: no payments."""
    state.result = "draw"
    state.events.append(("draw", len(state.draw)))
    state.returns = [0.0] * state.num_players
    state.phase = PHASE_OVER
    state.current = -1
    state._legal = []
