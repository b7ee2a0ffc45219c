"""Compiled engines: a game's per-step hot path in C, held to its rules layer.

The rules layer (``<game>_env/rules.py``) is the reference: search bots,
``clone``, ``determinize``, JSON and rendering use it. An *engine* is the same
game compiled (a Cython extension ``<game>_env/_engine``, built at install),
which :class:`~setgames.aec.SetGameEnv` steps instead of the rules layer when
it is available: an interpreted step spends most of its time dispatching
bytecode, and the throughput targets of the envs (issue #8) are out of reach
of any further trimming of the Python.

An engine class has this protocol (``tests/<game>/test_engine.py`` checks every
point against the rules layer with :func:`setgames.testing.check_engine_matches_rules`):

- ``Engine(game)``: an engine for the game's config (``game.config``), no state yet.
- ``load(state)``: copy a rules-layer state in (any point of a game; the state
  is not kept or changed), after ``game.validate(state)``: a state the rules
  could not produce raises ``ValueError`` before anything is copied (the C
  code runs with its bounds checks off and trusts what passed).
- ``apply(action)``: play ``action``; returns what ``game.apply`` returns
  (per-seat rewards on the step that ends the game or a round, else None).
  An illegal or out-of-range action raises ``ValueError`` and changes nothing
  (the env relies on it: it does no legality test of its own on this path).
- ``current_seat()``: ``game.current_seat(state)``.
- ``legal_actions()``: ``game.legal_actions(state)`` (a new sorted list).
- ``mask()``: a new writable int8 ndarray of ``game.num_actions``, 1 at the
  legal actions (made through numpy's C API: ``np.frombuffer`` costs 3x more).
- ``observe(seat)``: a new writable int8 ndarray equal to ``game.observe(state, seat)``.
- ``is_truncated()`` and ``outcome()``: as the game's, for a finished game.
- ``to_json()``: ``game.to_json(state)`` (so ``game.from_json`` rebuilds the
  rules-layer state: the env's ``game_state`` when someone asks for it).
- ``__reduce__``: through :func:`rebuild` and ``to_json`` (so an env stepping
  an engine copies and pickles like one on the rules layer).
- optionally ``deal(rng)``: what ``load(game.new_state(rng))`` does, drawing
  the same numbers from ``rng``, without building the rules-layer state (where
  the deal is a large share of a short game's cost; the env uses it on reset).

Randomness after the deal (reshuffles and later rounds) goes through
the same Python code as the rules layer, so a seed plays the same game either way.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from setgames.game import Game

__all__ = ["ENGINE_ENV_VAR", "engine_class", "rebuild"]

# Set to "0" to step every env on the rules layer (a debugging switch; the
# env's own ``engine=False`` does the same for one env).
ENGINE_ENV_VAR = "SETGAMES_ENGINE"


def engine_class(game: Game) -> type | None:
    """The compiled engine class of ``game``, or None when the game has none,
    it was not built (no compiler at install) or :data:`ENGINE_ENV_VAR` is ``"0"``."""
    module = getattr(game, "engine_module", None)
    if module is None or os.environ.get(ENGINE_ENV_VAR, "1") == "0":
        return None
    try:
        mod = importlib.import_module(module)
    except ImportError:
        return None
    cls: Any = getattr(mod, "Engine", None)
    return cls


def rebuild(cls: type, game_class: type[Game], config: dict[str, Any], data: dict[str, Any]) -> Any:
    """An engine of class ``cls`` for ``game_class(**config)`` loaded with the state
    ``data`` (``to_json`` form): what an engine's ``__reduce__`` returns, so engines
    copy and pickle as states do, through the rules layer's JSON (the game is
    rebuilt from its config: action layouts hold label functions pickle cannot carry)."""
    game = game_class(**config)
    eng = cls(game)
    eng.load(game.from_json(data))
    return eng
