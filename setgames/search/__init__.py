"""Compiled determinized search on the games' engines (the ``search`` bot, the batch's opponents).

The algorithm, once for every game, is :mod:`setgames.search._pimc`; each
game gives it its engine as a table of C functions in ``<game>_env/_search.pyx``,
whose ``search(engine, iters=None, ms=None, seed=0)`` searches the position an
:class:`~setgames.engine` engine holds for its seat to act and returns
``(action, legal, values, iters, elapsed_ms)``. :func:`search_module` finds it.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from setgames.engine import engine_class

__all__ = ["search_module"]


def search_module(game: Any) -> ModuleType | None:
    """The compiled search module of ``game`` (its ``search_module``), or None when the game
    has none or its engine was not built."""
    name = getattr(game, "search_module", None)
    if name is None or engine_class(game) is None:
        return None
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
