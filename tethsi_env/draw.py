"""The picture of a Tet Hsi table (SVG, on :mod:`setgames.draw`).

The viewer's seat sits at the bottom (seat 0 for a spectator), the opponent
at the top; each shows its front (taken cards, public), its concealed hand
(faces for the viewer or a spectator, backs otherwise) and, under them, its
Sets, every card of a Set as a chip with its name. The centre holds the
center cards (the remaining card marked), the draw pile with its count and
the discard pile, its cards as chips in two columns. Legal moves are outlined and carry
their action id: center cards to discard, the remaining card to take, hand
or front cards to play.
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
from setgames.kernels.tethsi import KIND_NAMES
from tethsi_env.layout import DISCARD_START, PLAY_START, TAKE, Phase

__all__ = ["draw", "event_line"]

WIDTH = 980
_BAND = 232  # a seat: its label, concealed and front cards, then its Sets
# The middle band holds the discard pile in columns of seven chips; its height is fixed, since a
# video needs one frame size for a whole game.
_DISCARD_ROWS, _DISCARD_COLS = 7, 3
_CHIP_STEP = CHIP_H + 2
_PENDING = {int(Phase.DISCARD): "discard a center card", int(Phase.CHOOSE): "take, set or nothing",
            int(Phase.PLAY): "play a card to the center"}


def event_line(ev: tuple) -> str:
    """One public event in words.

    >>> event_line(("set", 1, 0, 1, 21, "run"))
    'player_1 sets Ace of Moons + Ace of Suns + Chance Meeting (run)'
    """
    kind, p = ev[0], ev[1]
    if kind in ("discard", "take", "play", "reveal", "nothing"):
        verb = {"discard": "discards", "take": "takes", "play": "plays", "reveal": "reveals",
                "nothing": "leaves"}[kind]
        return f"player_{p} {verb} {DECKTET_NAMES[ev[2]]}"
    if kind == "set":
        cards = " + ".join(DECKTET_NAMES[x] for x in ev[2:5])
        return f"player_{p} sets {cards} ({ev[5]})"
    if kind == "win":
        return f"player_{p} wins ({ev[2]})"
    if kind == "tie":
        return f"tie ({ev[2]})"
    return " ".join(str(x) for x in ev)


def _fan(c: Canvas, x: float, y: float, cards: list[int], step: float, actions: dict[int, int],
         labels: dict[int, str]) -> float:
    for i, card in enumerate(cards):
        a = actions.get(card)
        decktet_card(c, x + i * step, y, card, a, labels.get(a, ""))
    return x + (len(cards) - 1) * step + DECKTET_W if cards else x


def _seat(c: Canvas, s: Any, p: int, y: float, show: bool, plays: dict[int, int],
          labels: dict[int, str]) -> None:
    n = s.concealed[p].bit_count()
    running = s.phase != Phase.OVER
    detail = f"{n} concealed, {len(s.sets[p])} of 3 Sets" + (", moved first" if s.first_player == p else "")
    seat_label(c, 14, y + 14, f"player_{p}", running and s.seat == p, detail)
    c.text(14, y + 34, "concealed", size=10, fill="#cfe8d4")
    hand = bit_list(s.concealed[p])
    if show:
        _fan(c, 14, y + 40, hand, 58, plays, labels)
    else:
        for i in range(n):
            card_back(c, 14 + i * 22, y + 40, DECKTET_W, DECKTET_H, n if i == n - 1 else None)
    fx = 14 + 8 * 58 + 30
    c.text(fx, y + 34, "front", size=10, fill="#cfe8d4")
    front = bit_list(s.front[p])
    _fan(c, fx, y + 40, front, min(64, (WIDTH - 14 - DECKTET_W - fx) / max(1, len(front) - 1)), plays,
         labels)
    # The Sets in a row under the hand, a Set's three cards one under the other, each name shown.
    sy = y + 40 + DECKTET_H + 22
    c.text(14, sy - 6, "Sets" if s.sets[p] else "Sets: none yet", size=10, fill="#cfe8d4")
    for k, (a, b, r, kind) in enumerate(s.sets[p]):
        x = 60 + k * (DECKTET_CHIP_W + 16)
        c.text(x + DECKTET_CHIP_W, sy - 6, KIND_NAMES[kind], size=11, anchor="end", weight="bold",
               fill="#ffffff")
        for j, card in enumerate((a, b, r)):
            decktet_chip(c, x, sy + j * _CHIP_STEP, card)


def draw(game: Any, state: Any, seat: int | None = None, legal: list[int] | None = None,
         title: str | None = None) -> str:
    """The SVG of a Tet Hsi ``state`` as ``seat`` sees it (everything when None);
    ``legal`` action ids are outlined and clickable."""
    s = state
    legal = list(legal or ())
    labels = {a: game.action_to_str(a) for a in legal}
    discard = bit_list(s.discard)
    middle = 28 + _DISCARD_ROWS * _CHIP_STEP
    height = 36 + _BAND + middle + _BAND + 30
    c = Canvas(WIDTH, height)
    me = 0 if seat is None else seat
    if s.phase == Phase.OVER:
        status = f"turn {s.turn}: game over"
    else:
        status = f"turn {s.turn}: player_{s.seat} to {_PENDING[s.phase]}"
    title_bar(c, title or "Tet Hsi", status, view_text(seat))
    plays = {a - PLAY_START: a for a in legal if PLAY_START <= a < PLAY_START + 36}
    discards = {a - DISCARD_START: a for a in legal if DISCARD_START <= a < DISCARD_START + 36}
    _seat(c, s, 1 - me, 36, seat is None or seat == 1 - me, {}, labels)
    # The middle: center, pile, discard pile, events.
    my = 36 + _BAND
    c.text(14, my + 12, "center", size=10, fill="#cfe8d4")
    center = bit_list(s.center)
    if s.remaining >= 0 and s.remaining not in center:
        center.append(s.remaining)
    for i, card in enumerate(center):
        a = discards.get(card)
        if card == s.remaining and TAKE in legal:
            a = TAKE
        decktet_card(c, 14 + i * 70, my + 18, card, a, labels.get(a, ""))
        if card == s.remaining:
            c.text(14 + i * 70 + DECKTET_W / 2, my + 18 + DECKTET_H + 13, "remaining", size=10,
                   anchor="middle", fill="#ffd54a")
    px = 14 + max(2, len(center)) * 70 + 20
    c.text(px, my + 12, "draw pile", size=10, fill="#cfe8d4")
    if s.pile:
        card_back(c, px, my + 18, DECKTET_W, DECKTET_H, len(s.pile))
    else:
        empty_slot(c, px, my + 18, DECKTET_W, DECKTET_H)
    dx = px + 90
    c.text(dx, my + 12, f"discard pile ({len(discard)})", size=10, fill="#cfe8d4")
    room = _DISCARD_ROWS * _DISCARD_COLS
    shown = discard if len(discard) <= room else discard[: room - 1]
    for i, card in enumerate(shown):  # column by column, so the list reads down
        col, row = divmod(i, _DISCARD_ROWS)
        decktet_chip(c, dx + col * (DECKTET_CHIP_W + 6), my + 18 + row * _CHIP_STEP, card)
    if len(shown) < len(discard):
        c.text(dx + 2 * (DECKTET_CHIP_W + 6), my + 18 + (_DISCARD_ROWS - 1) * _CHIP_STEP + 15,
               f"and {len(discard) - len(shown)} more", size=12, fill="#ffffff")
    events = [event_line(ev) for ev in game.events(s)[-6:]]
    ex = dx + _DISCARD_COLS * (DECKTET_CHIP_W + 6) + 4
    events_panel(c, ex, my, WIDTH - 8 - ex, events)
    _seat(c, s, me, my + middle, True, plays, labels)
    if s.phase == Phase.OVER:
        who = f"player_{s.winner} wins" if s.winner >= 0 else "a tie"
        banner(c, height - 12, f"Game over: {who} ({s.reason})")
    return c.to_svg()
