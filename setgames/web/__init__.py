"""The web table: ``setgames serve`` (a local page to play the games at).

- :mod:`setgames.web.table`: :class:`~setgames.web.table.WebTable`, one
  browser's game: the play session (:class:`setgames.play.session.Session`)
  and the game's :class:`~setgames.play.tools.TableTools`, as the terminal
  uses them, answered as JSON-able views (the table's SVG, the numbered legal
  moves, hint, undo/redo, save/load, watch, the game's tools);
- :mod:`setgames.web.server`: the server, a Starlette app on uvicorn (the
  ``web`` extra: ``pip install -e '.[web]'`` in a checkout), bound to 127.0.0.1 unless
  told otherwise; it serves its own static page (``static/``, no build step),
  keeps each browser's game and saves apart by a cookie, bounds the tables, and
  pushes the bots' moves over a WebSocket;
- :mod:`setgames.web.command`: ``setgames serve``'s options (no server stack needed).
"""
