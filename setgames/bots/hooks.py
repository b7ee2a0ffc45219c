"""What a game lends the search: :class:`GameHooks`, found through the game registry.

A game's package builds one ``GameHooks`` (the built-in games' live beside
their greedy bots, ``<game>_env/greedy.py``) and names it in its
descriptor (``search_hooks``); :func:`game_hooks` looks it up, so the search
itself names no game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from setgames import registry
from setgames.game import Game

__all__ = ["GameHooks", "game_hooks"]


class GameHooks:
    """What a game module may lend the search: a cheap policy and an evaluator.

    Attributes:
        rollout: ``(game, state, rng) -> action`` fast policy, or None for
            uniform random legal actions.
        evaluate: ``(game, state) -> per-seat win shares`` (sum 1) for an
            unfinished state, or None.
        prior: ``(game, state, seat) -> action`` the move a rule-based player
            would make at the root (the greedy bot); the search favours it by
            progressive bias and leaves it only on evidence.
        defaults: default ISMCTS options for this game: ``iterations``,
            ``determinizations``, ``max_rollout_steps``, ``switch_z`` (tree and
            sweep modes) and ``rollout_determinizations``,
            ``rollout_switch_z``, ``rollout_max_steps`` (rollout mode).
        base_rollout: ``(game, state, action, limit) -> returns or None``: plays
            ``action`` on a copy of ``state`` and then the game's greedy bot for
            every seat to the end, faster than stepping the rules layer (for
            example compiled on the engine); the per-seat returns, or None to fall back
            on the rules layer (not over within ``limit`` steps, no engine). Rollout
            mode uses it when its policy is the greedy bot: the same games, so the
            same decisions.
        candidates: ``(game, state, legal) -> actions``: the root actions worth
            searching in rollout mode (the prior's move is always kept), or
            None for every legal action.
    """

    def __init__(self, rollout: Callable[[Game, Any, np.random.Generator], int] | None = None,
                 evaluate: Callable[[Game, Any], list[float]] | None = None,
                 defaults: dict[str, Any] | None = None,
                 prior: Callable[[Game, Any, int], int] | None = None,
                 base_rollout: Callable[[Game, Any, int, int], Any] | None = None,
                 candidates: Callable[[Game, Any, list[int]], list[int]] | None = None):
        self.base_rollout = base_rollout
        self.prior = prior
        self.rollout = rollout
        self.evaluate = evaluate
        self.defaults = dict(defaults or {})
        self.candidates = candidates


_NO_HOOKS = GameHooks()


def game_hooks(game_name: str) -> GameHooks:
    """The :class:`GameHooks` a registered game lends the search, or empty
    hooks for a game without any (or one outside the registry)."""
    if game_name not in registry.game_names():
        return _NO_HOOKS
    hooks = registry.part(game_name, "search_hooks")
    return _NO_HOOKS if hooks is None else hooks
