"""The picture of a Bharg table (SVG, on :mod:`setgames.draw`).

The viewer's seat sits at the bottom (seat 0 for a spectator), the others
above; an opponent's hand shows as backs, with the cards it took from the
discard pile (public) face up beside them; in a hand shown face up those
cards are marked "known", and the card the viewer drew on its last draw is
marked "drawn". The middle holds the deck (its count), the discard pile's top
and the Ace Pile's top, the discard pile's cards as chips with their names
(newest first), the turn count and, in match play, the scores. Legal moves are outlined and carry their action
id: the deck to draw, the discard top to take, hand cards to discard.
"""

from __future__ import annotations

from typing import Any

from setgames.bits import bit_list
from setgames.cards import DECKTET_NAMES
from setgames.draw.decks import (
    CHIP_H,
    DECKTET_CHIP_W,
    DECKTET_H,
    DECKTET_W,
    card_back,
    decktet_card,
    decktet_chip,
)
from setgames.draw.svg import Canvas
from setgames.draw.table import banner, empty_slot, events_panel, seat_label, title_bar, view_text

__all__ = ["draw", "event_line"]

WIDTH = 980
_DRAW, _TAKE, _DISCARD0 = 0, 1, 2  # the action ids of bharg_env.rules (draw, take, discard card c = 2 + c)
_BAND = 150
_CHIP_ROWS = 5  # the discard pile's chips: two columns of five beside the piles


def event_line(ev: tuple) -> str:
    """One public event in words.

    >>> event_line(("take", 1, 21)), event_line(("reshuffle", 17))
    ('player_1 takes Chance Meeting', 'the discard pile (17 cards) is reshuffled into the deck')
    """
    kind = ev[0]
    if kind == "draw":
        return f"player_{ev[1]} draws from the deck"
    if kind in ("take", "discard"):
        return f"player_{ev[1]} {kind}s {DECKTET_NAMES[ev[2]]}"
    if kind == "ace_pile":
        return f"{DECKTET_NAMES[ev[1]]} goes to the Ace Pile"
    if kind == "start_discard":
        return f"{DECKTET_NAMES[ev[1]]} starts the discard pile"
    if kind == "deal":
        return f"round {ev[1]} dealt, player_{ev[2]} first"
    if kind == "reshuffle":
        return f"the discard pile ({ev[1]} cards) is reshuffled into the deck"
    if kind == "turn_limit":
        return f"round {ev[1]} ends at the turn limit"
    if kind == "win":
        return f"player_{ev[2]} wins round {ev[1]} ({ev[3]} points)"
    return " ".join(str(x) for x in ev)


def _seat(c: Canvas, game: Any, s: Any, p: int, y: float, show: bool, legal: dict[int, int],
          labels: dict[int, str], drawn: int | None = None) -> None:
    hand = bit_list(s.hands[p])
    score = f", score {s.scores[p]}" if game.config.target_score is not None else ""
    running = s.phase != 2
    seat_label(c, 14, y + 14, f"player_{p}", running and s.seat == p, f"{len(hand)} cards{score}")
    if show:
        for i, card in enumerate(hand):
            a = legal.get(card)
            decktet_card(c, 14 + i * 64, y + 24, card, a, labels.get(a, ""), drawn=card == drawn)
            if s.known[p] >> card & 1:  # taken from the discard pile: the others know it is here
                c.text(14 + i * 64 + DECKTET_W / 2, y + 24 + DECKTET_H + 14, "known", size=10,
                       anchor="middle", fill="#ffd54a")
        return
    known = [card for card in hand if s.known[p] >> card & 1]
    hidden = len(hand) - len(known)
    for i in range(hidden):
        card_back(c, 14 + i * 22, y + 24, DECKTET_W, DECKTET_H, hidden if i == hidden - 1 else None)
    kx = 14 + max(0, hidden - 1) * 22 + DECKTET_W + 24
    if known:
        c.text(kx, y + 20, "taken from the discard pile", size=10, fill="#cfe8d4")
    for i, card in enumerate(known):
        decktet_card(c, kx + i * 64, y + 24, card)


def _discard_chips(c: Canvas, pile: list[int], x: float, y: float) -> None:
    c.text(x, y - 6, "discard pile, newest first", size=10, fill="#cfe8d4")
    shown = pile[::-1][: 2 * _CHIP_ROWS]
    for i, card in enumerate(shown):
        col, row = divmod(i, _CHIP_ROWS)
        decktet_chip(c, x + col * (DECKTET_CHIP_W + 6), y + row * (CHIP_H + 2), card)
    if len(pile) > len(shown):
        c.text(x, y + _CHIP_ROWS * (CHIP_H + 2) + 12, f"and {len(pile) - len(shown)} more under them",
               size=10, fill="#cfe8d4")


def draw(game: Any, state: Any, seat: int | None = None, legal: list[int] | None = None,
         title: str | None = None, drawn: int | None = None) -> str:
    """The SVG of a Bharg ``state`` as ``seat`` sees it (everything when None);
    ``legal`` action ids are outlined and clickable; ``drawn`` (a card id) is marked
    where it shows in the viewer's hand as the card just drawn."""
    s = state
    n = game.num_players
    legal = list(legal or ())
    labels = {a: game.action_to_str(a) for a in legal}
    discards = {a - _DISCARD0: a for a in legal if a >= _DISCARD0}
    me = 0 if seat is None else seat
    others = [(me + k) % n for k in range(1, n)]
    height = 40 + _BAND * (n - 1) + 150 + _BAND + 30
    c = Canvas(WIDTH, height)
    over = s.phase == 2
    cfg = game.config
    status = f"round {s.round}, turn {s.turn}/{cfg.max_turns}: " + (
        "game over" if over else f"player_{s.seat} to {'draw or take' if s.phase == 0 else 'discard'}")
    title_bar(c, title or "Bharg", status, view_text(seat))
    for k, p in enumerate(others):
        _seat(c, game, s, p, 36 + k * _BAND, seat is None, {}, labels)
    my = 40 + _BAND * (n - 1)
    c.text(14, my + 12, f"deck ({len(s.deck)})", size=10, fill="#cfe8d4")
    if s.deck:
        card_back(c, 14, my + 18, DECKTET_W, DECKTET_H, len(s.deck),
                  _DRAW if _DRAW in legal else None, labels.get(_DRAW, ""))
    x = 104
    for name, pile, action in (("discard pile", s.discard, _TAKE), ("Ace Pile", s.aces, None)):
        c.text(x, my + 12, f"{name} ({len(pile)})", size=10, fill="#cfe8d4")
        if pile:
            a = action if action in legal else None
            if len(pile) > 1:
                decktet_card(c, x + 6, my + 14, pile[-2], dim=True)
            decktet_card(c, x, my + 18, pile[-1], a, labels.get(a, "") if a is not None else "")
        else:
            empty_slot(c, x, my + 18, DECKTET_W, DECKTET_H)
        x += 100
    _discard_chips(c, list(s.discard), x - 8, my + 18)
    events_panel(c, 640, my, 326, [event_line(ev) for ev in game.events(s)[-6:]])
    _seat(c, game, s, me, my + 150, True, discards, labels, drawn)
    if over:
        who = f"player_{s.winner} wins" if s.winner >= 0 else "nobody wins"
        banner(c, height - 12, f"Game over: {who} ({s.reason})")
    return c.to_svg()
