"""Pieces every game's table picture shares: the title bar, seat labels,
the events panel and the game-over banner (on a :class:`~setgames.draw.svg.Canvas`)."""

from __future__ import annotations

from setgames.draw.svg import Canvas

__all__ = ["TURN_COLOR", "banner", "empty_slot", "events_panel", "seat_label", "title_bar", "view_text"]

TURN_COLOR = "#ffd54a"  # the seat to act: its label and marker


def view_text(seat: int | None) -> str:
    """Whose view a picture is: ``"view of player_1"`` or the spectator's."""
    return "spectator: all cards" if seat is None else f"view of player_{seat}"


def empty_slot(c: Canvas, x: float, y: float, w: float, h: float) -> None:
    """The dashed outline of an empty pile."""
    c.rect(x, y, w, h, rx=5, fill="none", stroke="#9fc8a8", stroke_dasharray="4 3")


def title_bar(c: Canvas, title: str, status: str, view: str) -> None:
    """The top line: the game, what is pending, whose view this is."""
    c.rect(0, 0, c.width, 30, fill="#123f22")
    c.text(10, 20, title, size=15, weight="bold", fill="#ffffff")
    c.text(10 + 9 * len(title) + 12, 20, status, size=13, fill=TURN_COLOR)
    c.text(c.width - 10, 20, view, size=11, anchor="end", fill="#cfe8d4")


def seat_label(c: Canvas, x: float, y: float, name: str, to_act: bool, detail: str = "") -> None:
    """``player_k`` with its detail (score, counts); the seat to act in gold with a marker."""
    if to_act:
        c.path(f"M{x},{y - 10} L{x + 9},{y - 5} L{x},{y} Z", fill=TURN_COLOR)
    c.text(x + (13 if to_act else 0), y, name, size=13, weight="bold",
           fill=TURN_COLOR if to_act else "#ffffff")
    if detail:
        c.text(x + (13 if to_act else 0) + 8 * len(name) + 14, y, detail, size=11, fill="#e6f2e8")


def events_panel(c: Canvas, x: float, y: float, w: float, lines: list[str],
                 title: str = "Last events") -> None:
    """A box of the last events (newest last), one line each, cut to fit ``w``; a group of
    class ``events``, which a page that keeps its own full log hides (the web table)."""
    h = 22 + 15 * max(1, len(lines))
    limit = max(8, int((w - 16) / 6.3))
    with c.group(class_="events"):
        c.rect(x, y, w, h, rx=6, fill="#0e3a1e", stroke="#5f9a6e", stroke_width=1, opacity=0.95)
        c.text(x + 8, y + 15, title, size=11, weight="bold", fill="#cfe8d4")
        for i, line in enumerate(lines or ["-"]):
            text = line if len(line) <= limit else line[: limit - 1] + "…"
            c.text(x + 8, y + 31 + 15 * i, text, size=10.5, fill="#ffffff")


def banner(c: Canvas, y: float, text: str) -> None:
    """The game-over line across the table."""
    c.rect(20, y - 20, c.width - 40, 30, rx=8, fill="#fff3c4", stroke="#b8860b", stroke_width=2)
    c.text(c.width / 2, y, text, size=15, anchor="middle", weight="bold", fill="#5a3d00")
