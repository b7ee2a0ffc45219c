"""The picture of a Tu Sac table (SVG, on :mod:`setgames.draw`).

Every seat is a band: its label (the seat to act in gold; its Khap count,
and its trash count for the viewer), its private block (faces for the viewer
or a spectator, backs with the count otherwise) and its public block, set by
set with the kind, every card a chip with its piece's name. The viewer's own
hand is drawn large, in rows of at most eleven cards side by side, so that no
card hides another's name. The middle holds the active card (who exposed it
and how), the draw pile with its count, and the dead pile by type as chips.
The card the viewer turned up on its last hit is marked "drawn" where it is
(the active card, or the newest of its sets that holds it). Legal moves are
outlined and carry their action id: private cards to discard, the draw pile
to hit, the active card when one meld takes it.
"""

from __future__ import annotations

from typing import Any

from setgames.cards import NUM_TUSAC_TYPES, TUSAC_NAMES
from setgames.draw.decks import CHESS_CHIP_W, CHESS_H, CHESS_W, CHIP_H, card_back, chess_card, chess_chip
from setgames.draw.svg import Canvas
from setgames.draw.table import banner, empty_slot, events_panel, seat_label, title_bar, view_text
from tusac_env.layout import DISCARD0, HIT, PASS
from tusac_env.state import Exposure, Phase

__all__ = ["draw", "event_line"]

WIDTH = 1000
_BAND = 136  # an opponent: its label, its backs and its sets, four chips high
# The dead pile: chips in rows of five; the height is fixed, since a video needs one frame size.
_DEAD_COLS = 5
_MIDDLE = 24 + -(-NUM_TUSAC_TYPES // _DEAD_COLS) * (CHIP_H + 1)
# The viewer's hand: cards 1.7 times the drawing's size, ~58 units wide, ~40 CSS px when the
# table is shown ~700 px wide (a 1024 px screen beside the side panel).
_HAND_SCALE, _HAND_ROW = 1.7, 11
_HAND_STEP = CHESS_W * _HAND_SCALE + 3
_CHIP_STEP, _SET_STEP = CHIP_H + 1, CHESS_CHIP_W + 6
_PUBLIC_X, _MY_PUBLIC_X = 210, 14 + _HAND_ROW * _HAND_STEP + 12
_PENDING = {int(Phase.DISCARD): "discard", int(Phase.RESPOND): "meld or hit",
            int(Phase.AFTER_HIT): "meld or pass"}


def _pending(s: Any, seat: int | None, legal: list[int]) -> str:
    """What the seat to act does now: from the legal moves when they are the viewer's (only
    what is legal: "to hit" when no meld is), else the phase's choices (another seat's
    legal moves depend on its hidden hand)."""
    if legal and (seat is None or seat == s.current):
        kinds = (("meld", any(a < HIT for a in legal)), ("hit", HIT in legal), ("pass", PASS in legal),
                 ("discard", any(a >= DISCARD0 for a in legal)))
        words = [w for w, ok in kinds if ok]
        return " or ".join(words)
    return _PENDING[int(s.phase)]


def _card(t: int) -> str:
    return TUSAC_NAMES[t] if 0 <= t < NUM_TUSAC_TYPES else "no card"


def event_line(ev: tuple) -> str:
    """One public event in words.

    >>> event_line(("meld", 2, "triple", [25, 25, 25])), event_line(("hit", 1, 3, 18))
    ('player_2 melds a triple: white cannon, white cannon, white cannon', 'player_1 hits: red rook turns up')
    >>> event_line(("pay", 0, 1, 18, "win"))
    'player_0 pays player_1 18 (win)'

    """
    kind, seat = ev[0], ev[1] if len(ev) > 1 else -1
    if kind == "discard":
        return f"player_{seat} discards {_card(ev[2])}"
    if kind == "hit":
        return f"player_{seat} hits: {_card(ev[2])} turns up" if ev[2] >= 0 else f"player_{seat} hits"
    if kind == "pass":
        return f"player_{seat} passes on {_card(ev[2])}"
    if kind == "meld":
        return f"player_{seat} melds a {ev[2]}: {', '.join(_card(t) for t in ev[3])}"
    if kind == "claim":
        return f"player_{seat} claims {_card(ev[3])} ({ev[2]})"
    if kind == "quan":
        return f"player_{seat} shows a quan of {_card(ev[2])}"
    if kind == "win":
        card = "the dealt hand" if ev[2] < 0 else _card(ev[2])
        return f"player_{seat} wins on {card}: value {ev[3]}, {ev[4]} a loser"
    if kind == "deal":
        return f"player_{seat} is dealt {ev[2]} cards"
    if kind == "khaps":
        return f"player_{seat} holds {ev[2]} khap{'s' if ev[2] != 1 else ''}"
    if kind == "pay":
        return f"player_{seat} pays player_{ev[2]} {ev[3]} ({ev[4]})"
    if kind == "penalty":
        return f"player_{seat} pays the penalty ({ev[2]})"
    if kind == "draw":
        return f"the game is drawn ({ev[1]} cards left)"
    return " ".join(str(x) for x in ev)


def _private(c: Canvas, counts: list[int], x: float, y: float, discards: dict[int, int],
             labels: dict[int, str], large: bool) -> float:
    """Draw a face-up private block: ``large``, the viewer's (rows, no overlap), else an
    opponent's at the end (one overlapping row, the letters showing); returns its right edge."""
    i, right = 0, x
    for t in range(NUM_TUSAC_TYPES):
        for _ in range(counts[t]):
            a = discards.get(t)
            label = labels.get(a, "") if a is not None else ""
            if large:
                row, col = divmod(i, _HAND_ROW)
                left, top = x + col * _HAND_STEP, y + row * (CHESS_H * _HAND_SCALE + 8)
                with c.group(transform=f"translate({left:.1f},{top:.1f}) scale({_HAND_SCALE})"):
                    chess_card(c, 0, 0, t, a, label)
                right = max(right, left + CHESS_W * _HAND_SCALE)
            else:
                chess_card(c, x + i * 22, y, t, a, label)
                right = x + i * 22 + CHESS_W
            i += 1
    return right


def _hand_height(cards: int) -> float:
    # Two rows at least: the picture keeps one size as the hand shrinks (21 cards at most).
    return max(2, -(-cards // _HAND_ROW)) * (CHESS_H * _HAND_SCALE + 8)


def _drawn_set(sets: list, drawn: int | None) -> int:
    """The index of the newest set holding ``drawn``, -1 when none does."""
    if drawn is None:
        return -1
    return max((k for k, (_, types) in enumerate(sets) if drawn in types), default=-1)


def _public(c: Canvas, sets: list, x0: float, y: float, right: float, bottom: float,
            drawn: int | None = None) -> None:
    # A set is a column: its kind, then its cards as chips, so that every piece's name reads.
    marked = _drawn_set(sets, drawn)
    x, top = x0, y
    height = 16 + 4 * _CHIP_STEP
    for k, (kind, types) in enumerate(sets):
        if x + CHESS_CHIP_W > right:
            x, top = x0, top + height
        if top + 16 + len(types) * _CHIP_STEP > bottom:
            c.text(x, top + 12, f"and {len(sets) - k} more sets", size=11, fill="#ffffff")
            return
        c.text(x + 2, top + 12, kind, size=11, weight="bold", fill="#ffffff")
        for j, t in enumerate(types):
            chess_chip(c, x, top + 16 + j * _CHIP_STEP, t, drawn=k == marked and t == drawn
                       and types.index(t) == j)
        x += _SET_STEP


def _seat(c: Canvas, s: Any, p: int, y: float, show: bool, viewer: bool, discards: dict[int, int],
          labels: dict[int, str], bottom_seat: bool = False, drawn: int | None = None) -> None:
    size = sum(s.private[p])
    detail = f"{size} private, {len(s._khaps[p])} khap" + ("s" if len(s._khaps[p]) != 1 else "")
    if viewer:
        detail += f", trash {s._trash[p]}"
    if s.first == p:
        detail += ", dealt first"
    seat_label(c, 14, y + 14, f"player_{p}", s.phase != Phase.OVER and s.current == p, detail)
    if show:
        right = _private(c, s.private[p], 14, y + 22, discards, labels, bottom_seat)
    else:
        for i in range(min(size, 12)):
            card_back(c, 14 + i * 12, y + 22, CHESS_W, CHESS_H, size if i == min(size, 12) - 1 else None)
        right = 14 + 11 * 12 + CHESS_W
    if bottom_seat:
        x, bottom = _MY_PUBLIC_X, y + 22 + _hand_height(size)
    else:
        x, bottom = max(_PUBLIC_X, right + 16), y + _BAND
    c.text(x, y + 14, "public", size=10, fill="#cfe8d4")
    _public(c, s.public[p], x, y + 20, WIDTH - 6, bottom, drawn)


def draw(game: Any, state: Any, seat: int | None = None, legal: list[int] | None = None,
         title: str | None = None, drawn: int | None = None) -> str:
    """The SVG of a Tu Sac ``state`` as ``seat`` sees it (everything when None);
    ``legal`` action ids are outlined and clickable; ``drawn`` (a card type) is the
    card the viewer turned up on its last hit, marked where it is."""
    s = state
    n = s.num_players
    legal = list(legal or ())
    labels = {a: game.action_to_str(a) for a in legal}
    discards = {a - DISCARD0: a for a in legal if a >= DISCARD0}
    melds = [a for a in legal if a < HIT]
    me = 0 if seat is None else seat
    others = [(me + k) % n for k in range(1, n)]
    dead = [t for t in range(NUM_TUSAC_TYPES) if s.dead[t]]
    middle = _MIDDLE
    height = round(34 + _BAND * (n - 1) + middle + 22 + _hand_height(0) + 40)
    c = Canvas(WIDTH, height)
    over = s.phase == Phase.OVER
    status = "game over" if over else f"player_{s.current} to {_pending(s, seat, legal)}"
    title_bar(c, title or f"Tu Sac, {n} players", status,
              view_text(seat))
    for k, p in enumerate(others):
        _seat(c, s, p, 34 + k * _BAND, seat is None, False, {}, labels)
    my = 34 + _BAND * (n - 1)
    c.text(14, my + 12, f"draw pile ({len(s.draw)})", size=10, fill="#cfe8d4")
    if s.draw:
        hit = HIT if HIT in legal else None
        card_back(c, 14, my + 18, CHESS_W + 10, CHESS_H, len(s.draw), hit, labels.get(HIT, ""))
    ax = 90
    c.text(ax, my + 12, "active card", size=10, fill="#cfe8d4")
    if s.active >= 0:
        one = melds[0] if len(melds) == 1 else None
        hit_by_me = seat is not None and s.active_from == me and s.active_how == Exposure.HIT
        active_drawn = hit_by_me and s.active == drawn
        chess_card(c, ax, my + 18, s.active, one, labels.get(one, "") if one is not None else "",
                   drawn=active_drawn)
        if active_drawn:
            drawn = None  # marked here; a set of the same type must not be marked too
        how = "discarded" if s.active_how == Exposure.DISCARD else "hit"
        c.text(ax + CHESS_W + 10, my + 40, f"{how} by", size=10, fill="#ffffff")
        c.text(ax + CHESS_W + 10, my + 54, f"player_{s.active_from}", size=11, weight="bold", fill="#ffffff")
        if s.active_passed:
            c.text(ax + CHESS_W + 10, my + 68, "passed on", size=10, fill="#ffd54a")
    else:
        empty_slot(c, ax, my + 18, CHESS_W, CHESS_H)
    dx = 230
    c.text(dx, my + 12, f"dead pile ({sum(s.dead)})", size=10, fill="#cfe8d4")
    for i, t in enumerate(dead):
        row, col = divmod(i, _DEAD_COLS)
        chess_chip(c, dx + col * _SET_STEP, my + 18 + row * _CHIP_STEP, t, count=s.dead[t])
    ex = dx + _DEAD_COLS * _SET_STEP + 4
    events_panel(c, ex, my, WIDTH - 8 - ex, [event_line(ev) for ev in game.events(s)[-6:]])
    _seat(c, s, me, my + middle, True, seat is not None, discards, labels, True,
          drawn if seat is not None else None)
    if over:
        if s.result == "draw":
            text = "Game over: a draw, no payments"
        else:
            card = _card(s.win_card) if s.win_card >= 0 else "the dealt hand"
            text = (f"Game over: player_{s.winner} wins on {card}, hand value {s.value}, "
                    f"{s.amount} a loser")
        banner(c, height - 14, text)
    return c.to_svg()
