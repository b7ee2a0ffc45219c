"""What a seat can read back from the opponent's last turn: the position where it began.

The search can weigh its re-deals by how likely the opponent's observed moves
were under a model of the opponent (:mod:`tethsi_env._search`, ``infer``). To
ask the model, it needs the position at the start of the opponent's last
complete turn with the opponent's hand as a re-deal says it was then.
:func:`last_turn` rebuilds that position (:func:`last_turns`, those of several
turns) from the current state and its public
event record, undoing the events one by one (every event is public: a
discard, a take, a do-nothing, a Set, a play, a reveal), and returns the
opponent's moves of that turn. The cards that left the opponent's concealed
hand during the turn are public too (played or put aside), so a re-deal of the
current hand plus them is a re-deal of the hand the opponent held then.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from tethsi_env.layout import NOTHING, PAIR_ACTION, PLAY_START, TAKE, Phase
from tethsi_env.rules import TetHsiGame, TetHsiState

__all__ = ["LastTurn", "last_turn", "last_turns"]


class LastTurn(NamedTuple):
    """The start of the opponent's last complete turn.

    Attributes:
        start: the position then (a new state; the opponent's concealed hand and the pile
            are the true ones, which a search replaces by a re-deal's before reading them).
        actions: the opponent's action ids in that turn, in order.
        used: the cards that left the opponent's concealed hand during it (a mask; public).
        revealed: how many cards the pile lost since (the reveals, on the pile's top in
            ``start``).
    """

    start: TetHsiState
    actions: list[int]
    used: int
    revealed: int


def last_turn(game: TetHsiGame, state: TetHsiState, seat: int) -> LastTurn | None:
    """The opponent's last complete turn before ``seat``'s current one, undone from ``state``
    (``seat`` to act, or at the start of the opponent's turn after ``seat``'s) through its event
    record; None when there is none (the game's first turn) or the record does not reach back
    to it (a hand-built state)."""
    events = state.events
    opp = seat ^ 1
    # the events of seat's turn so far (or all of it), then the opponent's turn before it
    k = len(events)
    if k and events[k - 1][0] == "reveal" and events[k - 1][1] == seat:
        k -= 1
    while k > 0 and events[k - 1][1] == seat and events[k - 1][0] != "reveal":
        k -= 1
    mine = k
    if k == 0 or events[k - 1][0] != "reveal" or events[k - 1][1] != opp:
        return None
    k -= 1
    while k > 0 and not (events[k - 1][0] == "reveal" and events[k - 1][1] == seat):
        k -= 1
    if events[k][0] != "discard" or any(e[1] != opp for e in events[k:mine]):
        return None  # the record does not start the turn where expected (a hand-built state)
    s = game.clone(state)
    s._obs = None
    before = s.concealed[opp]
    for i in range(len(events) - 1, k - 1, -1):
        _undo(s, events[i], events[:i])
    s.events = events[:k]
    actions = [_action(e) for e in events[k:mine] if e[0] != "reveal"]
    return LastTurn(s, actions, s.concealed[opp] & ~before, len(s.pile) - len(state.pile))


def last_turns(game: TetHsiGame, state: TetHsiState, seat: int, count: int) -> list[LastTurn]:
    """The opponent's last ``count`` complete turns (fewer near the game's start), the most
    recent first, each undone from ``state`` (``seat`` to act): ``used`` and ``revealed``
    count from each turn's start to now, so that a re-deal of ``state`` gives each start's
    hidden cards."""
    opp = seat ^ 1
    out: list[LastTurn] = []
    s = state
    while len(out) < count:
        turn = last_turn(game, s, seat)
        if turn is None:
            break
        out.append(LastTurn(turn.start, turn.actions, turn.start.concealed[opp] & ~state.concealed[opp],
                            len(turn.start.pile) - len(state.pile)))
        s = turn.start
    return out


def _action(e: tuple[Any, ...]) -> int:
    kind = e[0]
    if kind == "discard":
        return e[2]
    if kind == "take":
        return TAKE
    if kind == "nothing":
        return NOTHING
    if kind == "set":
        return PAIR_ACTION[e[2]][e[3]]
    return PLAY_START + e[2]


def _to_hand(s: TetHsiState, p: int, card: int, earlier: list[tuple[Any, ...]]) -> None:
    """Card ``card`` back into ``p``'s hand: its front if the last take of it in the ``earlier``
    events was ``p``'s (a taken card stays in front until it leaves the hand), else concealed."""
    taker = next((e[1] for e in reversed(earlier) if e[0] == "take" and e[2] == card), None)
    if taker == p:
        s.front[p] |= 1 << card
    else:
        s.concealed[p] |= 1 << card


def _undo(s: TetHsiState, e: tuple[Any, ...], earlier: list[tuple[Any, ...]]) -> None:
    kind, p = e[0], e[1]
    if kind == "reveal":
        card = e[2]
        s.center &= ~(1 << card)
        s.pile.append(card)
        s.seat = p
        s.turn -= 1
        s.phase = Phase.PLAY  # the event undone before it sets the phase it came from
    elif kind == "play":
        card = e[2]
        s.center &= ~(1 << card)
        _to_hand(s, p, card, earlier)
        s.phase = Phase.PLAY
    elif kind == "take":
        r = e[2]
        s.front[p] &= ~(1 << r)
        s.center |= 1 << r
        s.remaining = r
        s.phase = Phase.CHOOSE
    elif kind == "nothing":
        s.remaining = e[2]
        s.phase = Phase.CHOOSE
    elif kind == "set":
        x, y, r = e[2], e[3], e[4]
        s.sets[p] = s.sets[p][:-1]
        s.set_cards[p] &= ~(1 << x | 1 << y | 1 << r)
        _to_hand(s, p, x, earlier)
        _to_hand(s, p, y, earlier)
        s.center |= 1 << r
        s.remaining = r
        s.phase = Phase.CHOOSE
    elif kind == "discard":
        card = e[2]
        s.center |= 1 << card
        s.discard &= ~(1 << card)
        s.remaining = -1
        s.phase = Phase.DISCARD
    else:
        raise ValueError(f"cannot undo a {kind!r} event: the game is over")
