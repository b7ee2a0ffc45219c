"""Compiled determinized search on the games' engines (the ``search`` bot, the batch's opponents).

The algorithm, once for every game, is :mod:`setgames.search._pimc`; each
game gives it its engine as a table of C functions in ``<game>_env/_search.pyx``,
whose ``search(engine, iters=None, ms=None, seed=0)`` searches the position an
:class:`~setgames.engine` engine holds for its seat to act and returns
``(action, legal, values, iters, elapsed_ms)``. :func:`search_module` finds it;
:func:`extra_specs` names the bots it offers beside the plain ``search``.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from setgames.engine import engine_class

__all__ = ["extra_specs", "search_module"]


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


def extra_specs(game: Any) -> tuple[str, ...]:
    """The bot specs ``game``'s compiled search offers beside the plain ``search``: the
    inferring search (its module's ``INFER_SPEC``) where the search infers; empty where it
    does not or is not built (what the web lobby and the strength table add for the game)."""
    module = search_module(game)
    spec = getattr(module, "INFER_SPEC", None) if module is not None else None
    return (spec,) if spec else ()
