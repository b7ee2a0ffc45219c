"""Pictures of the games: a small SVG toolkit every game's drawing is made with.

- :mod:`setgames.draw.svg`: :class:`Canvas`, an SVG document built element by
  element (escaped text, groups, clickable moves);
- :mod:`setgames.draw.decks`: the card faces, drawn in code: Decktet cards
  (rank, name, suit symbols), Vietnamese chess cards (four colours, the
  piece), card backs and face-down piles;
- :mod:`setgames.draw.picture`: :class:`Picture`, an SVG that shows itself in
  a notebook, saves itself and rasterises to an ``(H, W, 3) uint8`` frame
  (``pip install -e '.[pictures]'`` in a checkout);
- :func:`draw_state`: the picture of a state of any registered game (the
  game's ``drawing`` part, named in its descriptor).
"""

from setgames.draw.picture import Picture, draw_state, rasterize

__all__ = ["Picture", "draw_state", "rasterize"]
