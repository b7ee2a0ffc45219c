"""The picture of a Tu Sac table (SVG, on :mod:`setgames.draw`).

Every seat is a band: its label (the seat to act in gold; its Khap count,
and its trash count for the viewer), its private block (faces for the viewer
or a spectator, backs with the count otherwise) and its public block, set by
set with the kind. The middle holds the active card (who exposed it and
how), the draw pile with its count, and the dead pile by type. Legal moves
are outlined and carry their action id: private cards to discard, the draw
pile to hit, the active card when one meld takes it.
"""

from __future__ import annotations

from typing import Any

from setgames.cards import NUM_TUSAC_TYPES, TUSAC_NAMES
from setgames.draw.decks import CHESS_H, CHESS_W, card_back, chess_card
from setgames.draw.svg import Canvas
from setgames.draw.table import banner, empty_slot, events_panel, seat_label, title_bar, view_text
from tusac_env.layout import DISCARD0, HIT, PASS
from tusac_env.state import Exposure, Phase

__all__ = ["draw", "event_line"]

WIDTH = 1100
_BAND = 128
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
             labels: dict[int, str]) -> None:
    n = sum(counts)
    step = min(30.0, 620 / max(1, n))
    i = 0
    for t in range(NUM_TUSAC_TYPES):
        for _ in range(counts[t]):
            a = discards.get(t)
            chess_card(c, x + i * step, y, t, a, labels.get(a, "") if a is not None else "")
            i += 1


def _public(c: Canvas, sets: list, x0: float, y: float, right: float) -> None:
    # Two rows of half-size cards side by side, so that every piece's letter shows.
    x, row = x0, 0
    for kind, types in sets:
        w = 0.5 * (CHESS_W + 2) * len(types)
        if x + w > right:
            x, row = x0, row + 1
            if row == 2:
                c.text(x0 - 12, y + 100, "…", size=14, fill="#ffffff")
                return
        top = y + row * 58
        with c.group(transform=f"translate({x},{top}) scale(0.5)"):
            for j, t in enumerate(types):
                chess_card(c, j * (CHESS_W + 2), 0, t)
        c.text(x + w / 2, top + 0.5 * CHESS_H + 9, kind, size=9, anchor="middle", fill="#ffffff")
        x += w + 12


def _seat(c: Canvas, s: Any, p: int, y: float, show: bool, viewer: bool, discards: dict[int, int],
          labels: dict[int, str]) -> None:
    size = sum(s.private[p])
    detail = f"{size} private, {len(s._khaps[p])} khap" + ("s" if len(s._khaps[p]) != 1 else "")
    if viewer:
        detail += f", trash {s._trash[p]}"
    if s.first == p:
        detail += ", dealt first"
    seat_label(c, 14, y + 14, f"player_{p}", s.phase != Phase.OVER and s.current == p, detail)
    if show:
        _private(c, s.private[p], 14, y + 22, discards, labels)
    else:
        for i in range(min(size, 12)):
            card_back(c, 14 + i * 12, y + 22, CHESS_W, CHESS_H, size if i == min(size, 12) - 1 else None)
    c.text(690, y + 14, "public", size=10, fill="#cfe8d4")
    _public(c, s.public[p], 690, y + 22, WIDTH - 10)


def draw(game: Any, state: Any, seat: int | None = None, legal: list[int] | None = None,
         title: str | None = None) -> str:
    """The SVG of a Tu Sac ``state`` as ``seat`` sees it (everything when None);
    ``legal`` action ids are outlined and clickable."""
    s = state
    n = s.num_players
    legal = list(legal or ())
    labels = {a: game.action_to_str(a) for a in legal}
    discards = {a - DISCARD0: a for a in legal if a >= DISCARD0}
    melds = [a for a in legal if a < HIT]
    me = 0 if seat is None else seat
    others = [(me + k) % n for k in range(1, n)]
    height = 36 + _BAND * (n - 1) + 150 + _BAND + 34
    c = Canvas(WIDTH, height)
    over = s.phase == Phase.OVER
    status = "game over" if over else f"player_{s.current} to {_pending(s, seat, legal)}"
    title_bar(c, title or f"Tu Sac, {n} players", status,
              view_text(seat))
    for k, p in enumerate(others):
        _seat(c, s, p, 34 + k * _BAND, seat is None, False, {}, labels)
    my = 40 + _BAND * (n - 1)
    c.text(14, my + 12, f"draw pile ({len(s.draw)})", size=10, fill="#cfe8d4")
    if s.draw:
        hit = HIT if HIT in legal else None
        card_back(c, 14, my + 18, CHESS_W + 10, CHESS_H, len(s.draw), hit, labels.get(HIT, ""))
    ax = 90
    c.text(ax, my + 12, "active card", size=10, fill="#cfe8d4")
    if s.active >= 0:
        one = melds[0] if len(melds) == 1 else None
        chess_card(c, ax, my + 18, s.active, one, labels.get(one, "") if one is not None else "")
        how = "discarded" if s.active_how == Exposure.DISCARD else "hit"
        c.text(ax + CHESS_W + 10, my + 40, f"{how} by", size=10, fill="#ffffff")
        c.text(ax + CHESS_W + 10, my + 54, f"player_{s.active_from}", size=11, weight="bold", fill="#ffffff")
        if s.active_passed:
            c.text(ax + CHESS_W + 10, my + 68, "passed on", size=10, fill="#ffd54a")
    else:
        empty_slot(c, ax, my + 18, CHESS_W, CHESS_H)
    dx = 230
    dead = [t for t in range(NUM_TUSAC_TYPES) if s.dead[t]]
    c.text(dx, my + 12, f"dead pile ({sum(s.dead)})", size=10, fill="#cfe8d4")
    for i, t in enumerate(dead):
        with c.group(transform=f"translate({dx + (i % 12) * 30},{my + 18 + (i // 12) * 62}) scale(0.62)"):
            chess_card(c, 0, 0, t, count=s.dead[t])
    events_panel(c, 760, my, 326, [event_line(ev) for ev in game.events(s)[-6:]])
    _seat(c, s, me, my + 150, True, seat is not None, discards, labels)
    if over:
        if s.result == "draw":
            text = "Game over: a draw, no payments"
        else:
            card = _card(s.win_card) if s.win_card >= 0 else "the dealt hand"
            text = (f"Game over: player_{s.winner} wins on {card}, hand value {s.value}, "
                    f"{s.amount} a loser")
        banner(c, height - 14, text)
    return c.to_svg()
