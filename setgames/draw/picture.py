"""An SVG picture that shows itself in a notebook and becomes a video frame.

:class:`Picture` wraps SVG markup: Jupyter shows it (``_repr_svg_``),
:meth:`Picture.save_svg` writes it, :meth:`Picture.to_rgb` rasterises it to
an ``(H, W, 3) uint8`` array (the ``rgb_array`` render mode). The rasteriser
is resvg (the Rust SVG renderer, through ``resvg-py``: prebuilt abi3 wheels,
no system library) and Pillow decodes its PNG; both come with
``pip install -e '.[pictures]'`` in a checkout (``pip install 'setgames[pictures]'``
from a wheel); everything else here is plain Python.
"""

from __future__ import annotations

import io
import os
from typing import Any

import numpy as np

from setgames import registry

__all__ = ["Picture", "draw_state", "rasterize"]


def rasterize(svg: str, scale: float = 1.0) -> np.ndarray:
    """``svg`` as an ``(H, W, 3) uint8`` RGB frame (on white where transparent).

    Raises:
        ImportError: naming the ``pictures`` extra when resvg-py or Pillow is missing.
    """
    try:
        import resvg_py
        from PIL import Image
    except ImportError as e:
        raise ImportError(f"rgb frames need the pictures extra: pip install -e '.[pictures]' in a checkout, "
                          f"pip install 'setgames[pictures]' from a wheel ({e})") from None
    png = resvg_py.svg_to_bytes(svg_string=svg, zoom=float(scale), background="#ffffff")
    with Image.open(io.BytesIO(bytes(png))) as im:
        return np.asarray(im.convert("RGB"), dtype=np.uint8).copy()


class Picture:
    """SVG markup with the ways to show it.

    >>> p = Picture('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="2"></svg>')
    >>> p._repr_svg_() == p.svg, str(p)[:4]
    (True, '<svg')
    """

    def __init__(self, svg: str):
        self.svg = svg

    def __str__(self) -> str:
        return self.svg

    def _repr_svg_(self) -> str:
        """What Jupyter shows."""
        return self.svg

    def save_svg(self, path: str | os.PathLike) -> None:
        """Write the SVG to ``path``."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.svg)

    def to_rgb(self, scale: float = 1.0) -> np.ndarray:
        """The picture as an ``(H, W, 3) uint8`` frame (see :func:`rasterize`)."""
        return rasterize(self.svg, scale)

    def save_png(self, path: str | os.PathLike, scale: float = 1.0) -> None:
        """Write the picture as a PNG (needs the ``pictures`` extra)."""
        from PIL import Image

        Image.fromarray(self.to_rgb(scale)).save(path)


def draw_state(game: Any, state: Any, seat: int | None = None, legal: list[int] | None = None,
               title: str | None = None, drawn: int | None = None) -> Picture:
    """The picture of ``state`` of a registered game: everything when ``seat`` is
    None (a spectator), else only what ``seat`` may see; ``legal`` (action ids)
    are highlighted and clickable; ``drawn``, the card ``seat`` drew on its last
    draw (:meth:`~setgames.play.session.Session.last_drawn`), is marked.

    Raises:
        ValueError: the game has no drawing, or ``seat`` is not a seat.
    """
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < game.num_players):
        raise ValueError(f"seat {seat!r} is not None or a seat 0..{game.num_players - 1}")
    drawing = registry.part(game.name, "drawing")
    if drawing is None:
        raise ValueError(f"game {game.name!r} has no drawing")
    # Only a game that draws from a pile takes ``drawn``: the others' drawings need not know it.
    extra = {} if drawn is None else {"drawn": drawn}
    return Picture(drawing(game, state, seat=seat, legal=legal, title=title, **extra))
