"""Card faces drawn in code: the Decktet and the Vietnamese chess cards.

Decktet cards show their rank in the corner, a symbol per
suit in the suit's colour and the card's name; the chess cards are tall
strips in their colour (red, yellow, green, white) with the piece's letter in
a round token and its name. Backs and face-down piles show a count. Where
many public cards share little room (a discard pile, a Set, a meld) a card is
a *chip*: one line with its name at a size still readable when the table is
shown small (:func:`decktet_chip`, :func:`chess_chip`). Every
function draws on a :class:`~setgames.draw.svg.Canvas` at ``(x, y)``, the
card's top-left corner, inside a ``<g class="card" data-card="<id>">`` (a
back: ``class="back"``), so tests and the web page find cards by id;
``action`` (a legal move id) makes the card clickable and outlines it.
"""

from __future__ import annotations

from setgames.cards import (
    DECKTET_KINDS,
    DECKTET_NAMES,
    DECKTET_RANKS,
    EXCUSE_ID,
    SUIT_NAMES,
    TUSAC_PIECES,
    CardKind,
    suits_of,
)
from setgames.draw.svg import HIGHLIGHT, Canvas

__all__ = [
    "CHESS_CHIP_W",
    "CHESS_COLORS",
    "CHESS_H",
    "CHESS_W",
    "CHIP_H",
    "DECKTET_CHIP_W",
    "DECKTET_H",
    "DECKTET_W",
    "SUIT_COLORS",
    "card_back",
    "chess_card",
    "chess_chip",
    "decktet_card",
    "decktet_chip",
    "drawn_mark",
    "suit_symbol",
]

DECKTET_W, DECKTET_H = 62, 88
CHESS_W, CHESS_H = 34, 92
# A chip's text is 14 units: ~10 CSS px when a 980-unit table is shown 700 px wide (a 1024 px
# screen beside the side panel, or a phone).
CHIP_H, CHIP_TEXT = 22, 14
DECKTET_CHIP_W, CHESS_CHIP_W = 160, 96
DRAWN = "#00b0ff"  # the mark of the card just drawn: apart from the orange of legal moves
# One distinct colour a suit, as the terminal's (setgames.play.screen), in SUIT_NAMES order.
SUIT_COLORS = dict(zip(SUIT_NAMES, ("#3b4cc0", "#d49a00", "#0f8fa8", "#2e8b3a", "#c0392b", "#8e44ad"),
                       strict=True))
# (card face, ink): the card's colour and a readable ink on it.
CHESS_COLORS = {
    "red": ("#e4574a", "#ffffff"),
    "yellow": ("#f2cf3c", "#3a2a00"),
    "green": ("#3f9e52", "#ffffff"),
    "white": ("#f7f4ea", "#222222"),
}
_PIECE_LETTER = "KGMRCNP"
_RANK_TEXT = {1: "A", 10: "C"}  # Aces and Crowns by letter, numbers as digits


def suit_symbol(c: Canvas, cx: float, cy: float, suit: str, r: float = 7, face: str = "#fffdf5") -> None:
    """The symbol of ``suit`` (a Decktet suit name) centred at ``(cx, cy)`` on a card of colour ``face``."""
    col = SUIT_COLORS[suit]
    if suit == "Moons":  # a crescent: a disc, then a disc of the card's face over most of it
        c.circle(cx, cy, r, fill=col)
        c.circle(cx + r * 0.45, cy - r * 0.2, r * 0.8, fill=face)
    elif suit == "Suns":  # a disc with eight rays
        rays = []
        for k in range(8):
            dx, dy = ((1, 0), (0.71, 0.71), (0, 1), (-0.71, 0.71), (-1, 0), (-0.71, -0.71), (0, -1),
                      (0.71, -0.71))[k]
            rays.append(f"M{cx + dx * r * 0.6:.1f},{cy + dy * r * 0.6:.1f} "
                        f"L{cx + dx * r:.1f},{cy + dy * r:.1f}")
        c.path(" ".join(rays), stroke=col, stroke_width=1.6)
        c.circle(cx, cy, r * 0.5, fill=col)
    elif suit == "Waves":  # two wavy lines
        for dy in (-r * 0.35, r * 0.35):
            y = cy + dy
            c.path(f"M{cx - r},{y} q{r / 2},{-r / 2} {r},0 t{r},0", fill="none", stroke=col, stroke_width=1.8)
    elif suit == "Leaves":  # a leaf with its vein
        c.path(f"M{cx - r},{cy + r} Q{cx - r},{cy - r} {cx + r},{cy - r} "
               f"Q{cx + r},{cy + r} {cx - r},{cy + r} Z", fill=col)
        c.path(f"M{cx - r * 0.8},{cy + r * 0.8} L{cx + r * 0.6},{cy - r * 0.6}", stroke="#ffffff",
               stroke_width=0.9)
    elif suit == "Wyrms":  # a serpent: an S-curve with a head
        c.path(f"M{cx - r},{cy + r * 0.7} C{cx - r * 0.2},{cy + r * 1.2} {cx - r * 0.6},{cy - r * 0.4} "
               f"{cx},{cy - r * 0.2} S{cx + r},{cy - r * 0.6} {cx + r * 0.6},{cy - r}",
               fill="none", stroke=col, stroke_width=2.2)
        c.circle(cx + r * 0.6, cy - r, r * 0.28, fill=col)
    else:  # Knots: a square knot, a ring through a diamond
        c.path(f"M{cx},{cy - r} L{cx + r},{cy} L{cx},{cy + r} L{cx - r},{cy} Z", fill="none", stroke=col,
               stroke_width=1.8)
        c.circle(cx, cy, r * 0.45, fill="none", stroke=col, stroke_width=1.8)


def _outline(c: Canvas, x: float, y: float, w: float, h: float, action: int | None) -> None:
    if action is not None:
        c.rect(x - 2.5, y - 2.5, w + 5, h + 5, rx=7, fill="none", stroke=HIGHLIGHT, stroke_width=3.5)


def _name_lines(name: str, width: int = 9) -> list[str]:
    words, lines, line = name.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    return [*lines, line][:2]


def decktet_card(c: Canvas, x: float, y: float, card: int, action: int | None = None, label: str = "",
                 dim: bool = False, drawn: bool = False) -> None:
    """Decktet card ``card`` (id 0..44): rank, suit symbols, name; ``dim`` greys
    it (a card out of play, e.g. under a pile); ``drawn`` marks it as the card just drawn."""
    w, h = DECKTET_W, DECKTET_H
    with c.group(class_="card", data_card=card), c.move(action, label or DECKTET_NAMES[card]):
        face = "#fffdf5" if not dim else "#d8d4c8"
        c.rect(x, y, w, h, rx=5, fill=face, stroke="#444", stroke_width=1)
        kind = DECKTET_KINDS[card]
        c.text(x + 5, y + 17, _rank_text(card), size=15, weight="bold", fill="#222")
        suits = suits_of(card)
        n = len(suits)
        for i, suit in enumerate(suits):
            # One to three symbols in a column on the right, centred on the card's middle.
            suit_symbol(c, x + w - 13, y + 14 + i * 17 + (3 - n) * 8.5 * (n < 3), suit, r=6.5, face=face)
        if n and kind != CardKind.ACE:
            suit_symbol(c, x + 20, y + 44, suits[0], r=10, face=face)
        elif kind == CardKind.ACE:
            suit_symbol(c, x + w / 2, y + 46, suits[0], r=14, face=face)
        for k, line in enumerate(_name_lines(DECKTET_NAMES[card])):
            c.text(x + w / 2, y + h - 17 + k * 10.5, line, size=10, anchor="middle", fill="#333")
        _outline(c, x, y, w, h, action)
    if drawn:
        drawn_mark(c, x, y, w, h)


def chess_card(c: Canvas, x: float, y: float, ttype: int, action: int | None = None, label: str = "",
               count: int = 1, drawn: bool = False) -> None:
    """Chess card type ``ttype`` (``color * 7 + piece``): a strip in its colour
    with the piece; ``count`` > 1 writes ``xN`` under the token (stacked copies);
    ``drawn`` marks it as the card just drawn."""
    color = ("red", "yellow", "green", "white")[ttype // 7]
    piece = TUSAC_PIECES[ttype % 7]
    face, ink = CHESS_COLORS[color]
    w, h = CHESS_W, CHESS_H
    with c.group(class_="card", data_card=ttype), c.move(action, label or f"{color} {piece}"):
        c.rect(x, y, w, h, rx=4, fill=face, stroke="#333", stroke_width=1)
        c.rect(x + 3, y + 3, w - 6, h - 6, rx=3, fill="none", stroke=ink, stroke_width=0.6, opacity=0.6)
        c.circle(x + w / 2, y + 30, 12, fill="#fffaf0", stroke=ink if color != "white" else "#555",
                 stroke_width=1.5)
        token_ink = {"red": "#c0392b", "yellow": "#8a6d00", "green": "#1e6b30", "white": "#333"}[color]
        c.text(x + w / 2, y + 35.5, _PIECE_LETTER[ttype % 7], size=15, anchor="middle", weight="bold",
               fill=token_ink)
        c.text(x + w / 2, y + 58, piece, size=8.5 if len(piece) <= 5 else 6.8, anchor="middle", fill=ink)
        c.text(x + w / 2, y + 68, color, size=7 if len(color) <= 5 else 6.2, anchor="middle", fill=ink)
        if count > 1:
            c.text(x + w / 2, y + h - 8, f"x{count}", size=11, anchor="middle", weight="bold", fill=ink)
        _outline(c, x, y, w, h, action)
    if drawn:
        drawn_mark(c, x, y, w, h)


def card_back(c: Canvas, x: float, y: float, w: float, h: float, count: int | None = None,
              action: int | None = None, label: str = "") -> None:
    """A face-down card (a hidden hand, a draw pile): ``count`` is written on it."""
    with c.group(class_="back"), c.move(action, label):
        c.rect(x, y, w, h, rx=5, fill="#7a2430", stroke="#f0e6d0", stroke_width=1.5)
        c.rect(x + 4, y + 4, w - 8, h - 8, rx=3, fill="none", stroke="#f0e6d0", stroke_width=0.8,
               stroke_dasharray="3 2")
        if count is not None:
            c.text(x + w / 2, y + h / 2 + 6, count, size=16, anchor="middle", weight="bold", fill="#fff")
        _outline(c, x, y, w, h, action)


def _rank_text(card: int) -> str:
    kind = DECKTET_KINDS[card]
    if card == EXCUSE_ID:
        return "X"
    if kind == CardKind.PAWN:
        return "P"
    if kind == CardKind.COURT:
        return "Ct"
    return _RANK_TEXT.get(DECKTET_RANKS[card], str(DECKTET_RANKS[card]))


def decktet_chip(c: Canvas, x: float, y: float, card: int, w: float = DECKTET_CHIP_W,
                 action: int | None = None, label: str = "", drawn: bool = False) -> None:
    """Decktet card ``card`` as one line ``w`` wide: a stripe per suit in its colour,
    the rank and the name; ``drawn`` marks it as the card just drawn."""
    with c.group(class_="card", data_card=card, data_chip=1), c.move(action, label or DECKTET_NAMES[card]):
        c.rect(x, y, w, CHIP_H, rx=4, fill="#fffdf5", stroke="#444", stroke_width=1)
        suits = suits_of(card)
        for i, suit in enumerate(suits):
            c.rect(x + 2 + i * 5, y + 2, 4, CHIP_H - 4, fill=SUIT_COLORS[suit])
        tx = x + 6 + 5 * len(suits)
        c.text(tx, y + 16, _rank_text(card), size=CHIP_TEXT, weight="bold", fill="#222")
        c.text(tx + 21, y + 16, DECKTET_NAMES[card], size=CHIP_TEXT, fill="#222")
        _outline(c, x, y, w, CHIP_H, action)
    if drawn:
        drawn_mark(c, x, y, w, CHIP_H)


def chess_chip(c: Canvas, x: float, y: float, ttype: int, w: float = CHESS_CHIP_W, count: int = 1,
               drawn: bool = False) -> None:
    """Chess card type ``ttype`` as one line ``w`` wide in its colour: the piece's
    letter and name, ``xN`` for ``count`` > 1; ``drawn`` marks it as the card just drawn."""
    color = ("red", "yellow", "green", "white")[ttype // 7]
    piece = TUSAC_PIECES[ttype % 7]
    face, ink = CHESS_COLORS[color]
    with c.group(class_="card", data_card=ttype, data_chip=1):
        c.rect(x, y, w, CHIP_H, rx=4, fill=face, stroke="#333", stroke_width=1)
        c.text(x + 5, y + 16, _PIECE_LETTER[ttype % 7], size=CHIP_TEXT, weight="bold", fill=ink)
        c.text(x + 24, y + 16, piece + (f" x{count}" if count > 1 else ""), size=CHIP_TEXT, fill=ink)
    if drawn:
        drawn_mark(c, x, y, w, CHIP_H)


def drawn_mark(c: Canvas, x: float, y: float, w: float, h: float) -> None:
    """The mark of the card a seat drew on its last draw: a blue frame round the card at
    ``(x, y, w, h)`` and a "drawn" tab on its top edge (a group of class ``drawn``)."""
    with c.group(class_="drawn"):
        c.rect(x - 1.5, y - 1.5, w + 3, h + 3, rx=6, fill="none", stroke=DRAWN, stroke_width=3,
               stroke_dasharray="6 3")
        tw = 46
        c.rect(x + w / 2 - tw / 2, y - 9, tw, 15, rx=4, fill=DRAWN, stroke="#ffffff", stroke_width=1)
        c.text(x + w / 2, y + 2.5, "drawn", size=11, anchor="middle", weight="bold", fill="#ffffff")
