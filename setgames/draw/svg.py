"""An SVG document built element by element: :class:`Canvas`.

Every piece of text goes through :func:`esc`, so a card name or a player
name can never break the markup. Elements that stand for a legal move carry
``class="move"`` and ``data-action="<id>"``: the web table makes them
clickable, a notebook just shows the highlight.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from xml.sax.saxutils import escape

__all__ = ["FONT", "HIGHLIGHT", "Canvas", "esc"]

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
HIGHLIGHT = "#ff8c00"  # the outline of a legal move: orange reads on every card colour


def esc(text: object) -> str:
    """``text`` escaped for an SVG attribute or text node.

    >>> esc('a < b & "c"')
    'a &lt; b &amp; &quot;c&quot;'
    """
    return escape(str(text), {'"': "&quot;"})


def _num(v: float) -> str:
    # Integers print without ".0": smaller files, and golden files stay stable.
    return str(int(v)) if float(v).is_integer() else f"{v:.2f}"


def _attrs(attrs: dict[str, object]) -> str:
    out = []
    for k, v in attrs.items():
        if v is None:
            continue
        name = k.rstrip("_").replace("_", "-")
        number = isinstance(v, (int, float)) and not isinstance(v, bool)
        out.append(f'{name}="{_num(v) if number else esc(v)}"')
    return (" " + " ".join(out)) if out else ""


class Canvas:
    """An SVG picture of ``width`` x ``height`` user units on a background.

    >>> c = Canvas(40, 20)
    >>> c.rect(0, 0, 10, 10, fill="red")
    >>> c.text(5, 15, "A&B")
    >>> print(c.to_svg().splitlines()[-2])
    <text x="5" y="15" font-size="12" text-anchor="start" fill="#222">A&amp;B</text>
    """

    def __init__(self, width: float, height: float, background: str = "#1f6b3a"):
        self.width = width
        self.height = height
        self.parts: list[str] = []
        if background:
            self.rect(0, 0, width, height, fill=background)

    def raw(self, markup: str) -> None:
        """Append markup as it is (for the toolkit's own shapes)."""
        self.parts.append(markup)

    def element(self, tag: str, **attrs: object) -> None:
        """An empty element ``<tag .../>``; ``class_`` and ``data_action`` become
        ``class`` and ``data-action``."""
        self.parts.append(f"<{tag}{_attrs(attrs)}/>")

    def rect(self, x: float, y: float, w: float, h: float, **attrs: object) -> None:
        """A rectangle."""
        self.element("rect", x=x, y=y, width=w, height=h, **attrs)

    def circle(self, cx: float, cy: float, r: float, **attrs: object) -> None:
        """A circle."""
        self.element("circle", cx=cx, cy=cy, r=r, **attrs)

    def path(self, d: str, **attrs: object) -> None:
        """A path."""
        self.element("path", d=d, **attrs)

    def text(self, x: float, y: float, text: object, size: float = 12, anchor: str = "start",
             fill: str = "#222", weight: str | None = None, **attrs: object) -> None:
        """One line of text, escaped."""
        a = _attrs(dict(x=x, y=y, font_size=size, text_anchor=anchor, fill=fill, font_weight=weight, **attrs))
        self.parts.append(f"<text{a}>{esc(text)}</text>")

    @contextmanager
    def group(self, **attrs: object) -> Iterator[None]:
        """``with canvas.group(transform=...):`` wraps what is drawn inside in a ``<g>``."""
        self.parts.append(f"<g{_attrs(attrs)}>")
        try:
            yield
        finally:
            self.parts.append("</g>")

    @contextmanager
    def move(self, action: int | None, label: str = "") -> Iterator[None]:
        """Wrap what is drawn inside as the legal move ``action`` (nothing when None):
        a ``<g class="move" data-action=...>`` with a tooltip."""
        if action is None:
            yield
            return
        self.parts.append(f'<g class="move" data-action="{int(action)}">')
        if label:
            self.parts.append(f"<title>{esc(label)}</title>")
        try:
            yield
        finally:
            self.parts.append("</g>")

    def to_svg(self) -> str:
        """The document: an ``<svg>`` with a viewBox, so it scales to any width."""
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(self.width)}" '
                f'height="{_num(self.height)}" viewBox="0 0 {_num(self.width)} {_num(self.height)}" '
                f'font-family="{FONT}">')
        return "\n".join([head, *self.parts, "</svg>"])
