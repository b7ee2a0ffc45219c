"""A rule-based Tu Sac player (``greedy``) and the hooks ISMCTS borrows from it.

It reads only its seat's information: its private block, every public block,
the dead pile and the active card (through :meth:`TuSacGame.worst_cards`,
whose outs count only cards the seat has not seen).

- **Meld when it pays**: every legal meld keeps or lowers the trash count and
  is followed by a discard, so the bot melds whenever it may, choosing the
  meld that leaves the least trash, then the most valuable set (set values of
  ``tusac_env/README.md``, rules choice 22: :data:`tusac_env.greedy_prefs.MELD_VALUE`), then
  the one that keeps the most outs for the remaining trash (a waiting hand),
  else it hits or passes.
- **Discard a worst card** (fewest outs, the rules' own hint), which also never
  risks the penalty rule; among several, the one whose removal leaves the most
  outs for the remaining trash.

Kernels: :func:`setgames.kernels.tusac.min_trash`, :func:`~setgames.kernels.tusac.outs`.

ISMCTS plays this bot for every seat in its rollouts; :func:`engine_rollout` plays
those rollouts on the compiled engine with the compiled copy of this bot
(:mod:`tusac_env._greedy`, held to this one move for move by
``tests/tusac/test_greedy_engine.py``): the same games, 4-8x faster moves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from setgames.bots.base import ExplainingBot
from setgames.bots.hooks import GameHooks
from setgames.kernels import tusac as kern
from tusac_env.greedy_prefs import MELD_VALUE
from tusac_env.layout import DISCARD0, HIT
from tusac_env.melds import MELDS, after_removal, khap_types, unseen_counts
from tusac_env.state import Phase

__all__ = ["ISMCTS_HOOKS", "GreedyTuSacBot", "engine_rollout", "rollout_action", "root_candidates"]

_DISCARD = int(Phase.DISCARD)


def _meld_choice(state: Any, seat: int, legal: list[int], with_outs: bool) -> int | None:
    """Best legal meld action of ``seat`` on the active card, or None."""
    melds = [a for a in legal if a < HIT]
    if not melds:
        return None
    if len(melds) == 1 and not with_outs:
        return melds[0]
    counts = state.private[seat]
    khaps = khap_types(counts)
    unseen = unseen_counts(state, seat) if with_outs else None
    best_key, best = None, melds[0]
    for idx, kind, used in MELDS[state.active]:
        if idx not in melds:
            continue
        rest = after_removal(counts, used)
        if rest is None:
            continue
        trash = kern.min_trash(rest, khaps)
        outs = sum(kern.outs(rest, unseen, khaps)) if with_outs else 0
        key = (-trash, MELD_VALUE[kind], outs, -idx)
        if best_key is None or key > best_key:
            best_key, best = key, idx
    return best


def _discard_choice(game: Any, state: Any, seat: int, legal: list[int], with_outs: bool) -> int:
    worst = [DISCARD0 + t for t in game.worst_cards(state)] or legal
    if len(worst) == 1 or not with_outs:
        return worst[0]
    counts = state.private[seat]
    unseen = unseen_counts(state, seat)
    best_key, best = None, worst[0]
    for a in worst:
        rest = counts[:]
        rest[a - DISCARD0] -= 1
        key = sum(kern.outs(rest, unseen, khap_types(rest)))
        if best_key is None or key > best_key:
            best_key, best = key, a
    return best


class GreedyTuSacBot(ExplainingBot):
    """Rule-based Tu Sac player (see the module docstring); deterministic."""

    name = "greedy"

    def explain(self, game: Any, state: Any, seat: int) -> tuple[int, str]:
        """The greedy action and why."""
        legal = game.legal_actions(state)
        if len(legal) == 1:
            return legal[0], "only legal action"
        if state.phase == _DISCARD:
            return _discard_choice(game, state, seat, legal, True), "discard a worst card"
        meld = _meld_choice(state, seat, legal, True)
        if meld is not None:
            return meld, "meld: it lowers or keeps my trash before my discard"
        return legal[-1], "no meld: hit or pass"

    def supports_engine(self, game: Any, engine: Any) -> bool:
        """True on Tu Sac's compiled engine when the compiled bot is built (and this
        class's moves are this bot's own, not a subclass's)."""
        return _tusac_greedy is not None and isinstance(engine, _Engine) and self._moves_as(GreedyTuSacBot)

    def act_engine(self, game: Any, engine: Any, seat: int) -> int:
        """The compiled bot's move (:mod:`tusac_env._greedy`, held to :meth:`explain`
        in every position; it draws nothing)."""
        return _tusac_greedy.greedy_action(engine)


def rollout_action(game: Any, state: Any, rng: np.random.Generator) -> int:
    """Cheap greedy policy for rollouts: meld the least-trash meld, else hit or
    pass; discard the first worst card."""
    legal = game.legal_actions(state)
    if len(legal) == 1:
        return legal[0]
    seat = game.current_seat(state)
    if state.phase == _DISCARD:
        return _discard_choice(game, state, seat, legal, False)
    meld = _meld_choice(state, seat, legal, False)
    return legal[-1] if meld is None else meld


try:  # the compiled copy of this player on the engine (optional, see setup.py)
    from tusac_env import _greedy as _tusac_greedy
    from tusac_env._engine import Engine as _Engine
except ImportError:  # pragma: no cover - a build without a C compiler
    _tusac_greedy = None

_ENGINES: dict[Any, Any] = {}  # game config -> an engine reused by every rollout


def engine_rollout(game: Any, state: Any, action: int, limit: int) -> tuple[float, ...] | None:
    """Play ``action`` on a copy of ``state``, then greedy for every seat to the end of
    the game, on the compiled engine: the per-seat returns, the very game the
    rules layer plays with :class:`GreedyTuSacBot` (tested move for move). None when
    the game is not over after ``limit`` steps, or the engine is not built."""
    if _tusac_greedy is None:
        return None
    engine = _ENGINES.get(game.config)
    if engine is None:
        engine = _ENGINES[game.config] = _Engine(game)
    # A copy the search made with the rules layer (never a caller's state): the validator
    # would cost nine tenths of the rollout.
    engine.load(state, validate=False)
    end = engine.apply(action)
    if end is None:
        return _tusac_greedy.play_greedy(engine, limit)
    return tuple(end)


def _greedy_prior(game: Any, state: Any, seat: int) -> int:
    return GreedyTuSacBot(0).act(game, state, seat)


EVAL_SHARPNESS = 1.2  # win-share weight exp(-sharpness * trash) of a seat in an unfinished game


def evaluate(game: Any, state: Any) -> list[float]:
    """Win shares of an unfinished game from the trash counts (fewer trash, nearer a win)."""
    w = [float(np.exp(-EVAL_SHARPNESS * kern.min_trash(c, khap_types(c)))) for c in state.private]
    total = sum(w)
    return [x / total for x in w]


def root_candidates(game: Any, state: Any, legal: list[int]) -> list[int]:
    """Root candidates of the search: a discard only among the worst cards (the rules' hint).

    Determinizations deal opponents uniform hands, while real (greedy) hands
    keep the cards that meld, so a rollout underrates how often a discard
    that is not a worst card feeds an opponent: searched freely, the bot left
    greedy's discard on a third of its turns and lost to it (41% over 67 games).
    """
    worst = game.worst_cards(state)
    if not worst:
        return legal
    keep = {DISCARD0 + t for t in worst}
    return [a for a in legal if a in keep] or legal


# Rollout mode: 512 rounds, ~100 ms a move with the compiled greedy rollouts of
# engine_rollout (~465 ms on the rules layer: the same games). Against greedy (arena,
# closing note of issue #6): 52.9% [51.0, 54.7] over 1,600 4-player games, 52.4%
# [51.2, 53.6] over 3,000 2-player games, level at 3 players (50.2% [49.0, 51.5], 3,000).
# A small edge: the search lacks the others' cards (research/tusac_information/FINDINGS.md).
ISMCTS_HOOKS = GameHooks(rollout=rollout_action, prior=_greedy_prior, evaluate=evaluate,
                         base_rollout=engine_rollout, candidates=root_candidates,
                         defaults={"iterations": 30, "determinizations": 16, "max_rollout_steps": 24,
                                   "rollout_determinizations": 512})
