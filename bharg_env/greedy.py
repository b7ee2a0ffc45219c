"""A rule-based Bharg player (``greedy``) and the hooks ISMCTS borrows from it.

It reads only its seat's information: its own hand, the Ace Pile and the
discard pile (both public, every card), the cards each opponent took from the
discard pile and still holds (public), and the size of the deck. The cards it
has not seen (*unseen*: the deck and the opponents' other cards) are the
complement of those.

A hand (after a discard) is ranked by :func:`hand_key`, from the kernel
:func:`setgames.kernels.bharg.evaluate` with the Ace Pile top it would face:
all bound (a win) first, then the lowest unbound value (what it would concede),
then the most bound cards. Decisions:

- **take** the discard top when the hand it makes, after its best discard,
  ranks above the hand I hold now (it binds more or concedes less), else
  **draw** the deck (or take, when the deck cannot be drawn);
- **discard** the card that leaves the best-ranked hand (a discarded Ace
  becomes the Ace Pile top); among equals, the one that leaves the most ways
  to bind (:func:`ways_to_bind`: unseen cards that would bind more of it),
  then the lower value the opponent could pick up.

Kernel: :func:`setgames.kernels.bharg.evaluate`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from bharg_env.structure import unseen_cards, ways_to_bind
from setgames.bits import bit_list
from setgames.bots.base import ExplainingBot
from setgames.bots.hooks import GameHooks
from setgames.cards import BHARG_VALUES
from setgames.kernels.bharg import all_bound_trusted, evaluate

__all__ = ["FEATURES", "ISMCTS_HOOKS", "GreedyBhargBot", "greedy_features", "greedy_features_engine",
           "hand_key", "rollout_action", "ways_to_bind"]

DRAW_DECK, TAKE_DISCARD, DISCARD0 = 0, 1, 2  # bharg_env.rules action ids (the layout's blocks)
_DRAW_PHASE = 0  # bharg_env.rules.Phase.DRAW
_NUM_ACES = 6  # Ace ids 0..5


def hand_key(hand: int, ace_top: int) -> tuple[bool, int, int]:
    """Rank of a hand facing Ace Pile top ``ace_top`` (-1: none): higher is better.

    (all bound, minus the lowest unbound value, bound count).

    >>> hand_key(0b111 << 18, -1)        # the three 6s: a set, all bound
    (True, 0, 3)
    >>> hand_key(0b111 << 18 | 1 << 30, -1)   # plus the Crown of Moons, unbound (10)
    (False, -10, 3)
    """
    ev = evaluate(hand, None if ace_top < 0 else ace_top)
    return ev.all_bound, -ev.unbound_value, ev.bound


def _after_discard(hand: int, card: int, ace_top: int) -> tuple[int, int]:
    """(hand, Ace Pile top) once ``card`` is discarded: a discarded Ace tops the Ace Pile."""
    return hand & ~(1 << card), card if card < _NUM_ACES else ace_top


def _best_discard(hand: int, ace_top: int, unseen: int | None) -> tuple[tuple, int]:
    """(rank, card) of the best discard from ``hand``; ``unseen`` None skips the ways tie-break."""
    scored = []
    for c in bit_list(hand):
        h, a = _after_discard(hand, c, ace_top)
        scored.append((hand_key(h, a), -BHARG_VALUES[c], c))
    top = max(k for k, _, _ in scored)
    tied = [(v, c) for k, v, c in scored if k == top]
    if len(tied) == 1 or unseen is None:
        v, c = max(tied)
        return top, c
    best = None
    for v, c in tied:
        h, a = _after_discard(hand, c, ace_top)
        key = (ways_to_bind(h, a, unseen), v, -c)
        if best is None or key > best[0]:
            best = (key, c)
    return top, best[1]


def _ace_top(state: Any) -> int:
    return state.aces[-1] if state.aces else -1


class GreedyBhargBot(ExplainingBot):
    """Rule-based Bharg player (see the module docstring); deterministic."""

    name = "greedy"

    def explain(self, game: Any, state: Any, seat: int) -> tuple[int, str]:
        """The greedy action and why."""
        legal = game.legal_actions(state)
        if len(legal) == 1:
            return legal[0], "only legal action"
        hand, ace = state.hands[seat], _ace_top(state)
        if state.phase == _DRAW_PHASE:
            top = state.discard[-1]
            take_key, _ = _best_discard(hand | 1 << top, ace, None)
            if take_key > hand_key(hand, ace):
                return TAKE_DISCARD, "the discard top binds more"
            return DRAW_DECK, "the discard top does not help"
        unseen = unseen_cards(game, state, seat)
        key, card = _best_discard(hand, ace, unseen)
        why = "win: all bound" if key[0] else "leave the lowest unbound value and most ways to bind"
        return DISCARD0 + card, why

    def supports_engine(self, game: Any, engine: Any) -> bool:
        """True on Bharg's compiled engine when the compiled bot is built (and this
        class's moves are this bot's own, not a subclass's)."""
        return _compiled is not None and isinstance(engine, _Engine) and self._moves_as(GreedyBhargBot)

    def act_engine(self, game: Any, engine: Any, seat: int) -> int:
        """The compiled bot's move (:mod:`bharg_env._greedy`, held to :meth:`explain`
        in every position; it draws nothing)."""
        return _compiled.greedy_action(engine)



# ----------------------------------------------------------------- features
# What the greedy bot weighs, per action: the ppo bot's networks read these beside the
# observation (``setgames train --prior features``): a ReLU network does not learn the binding
# kernel from one-hot cards (65% of greedy's moves, research/FINDINGS.md), but learns well
# where to differ from greedy given the kernel's verdict on each move. Scaled to about [0, 1].
FEATURES = ("all_bound", "unbound_value / 10", "bound / 8", "card_value / 10", "ways_to_bind / 10")


def greedy_features(game: Any, state: Any, seat: int) -> np.ndarray:
    """Per action, ``(num_actions, 5)`` float32 (:data:`FEATURES`; 0 for illegal actions or
    when ``seat`` is not to act): in the draw phase, the hand held for *draw* and the hand
    after taking the discard top and its best discard for *take* (all bound, unbound value,
    bound count); in the discard phase, for each card, the hand it leaves (those three, with
    a discarded Ace on top of the Ace Pile), its value and the ways the hand left has to
    bind (:func:`ways_to_bind`). The compiled twin is ``bharg_env._greedy`` (batches'
    ``greedy_features``).

    >>> from bharg_env.rules import BhargGame
    >>> game = BhargGame(); state = game.new_state(np.random.default_rng(1))
    >>> f = greedy_features(game, state, state.seat)
    >>> f.shape, bool(f[DRAW_DECK].any()), bool(f[DISCARD0:].any())
    ((47, 5), True, False)
    """
    out = np.zeros((game.num_actions, len(FEATURES)), np.float32)
    if game.is_over(state) or state.seat != seat:
        return out
    hand, ace = state.hands[seat], _ace_top(state)
    legal = game.legal_actions(state)
    if state.phase == _DRAW_PHASE:
        for a in legal:
            k = hand_key(hand, ace) if a == DRAW_DECK else _best_discard(hand | 1 << state.discard[-1], ace,
                                                                         None)[0]
            out[a, :3] = (k[0], -k[1] / 10, k[2] / 8)
        return out
    unseen = unseen_cards(game, state, seat)
    for a in legal:
        c = a - DISCARD0
        h, top = _after_discard(hand, c, ace)
        k = hand_key(h, top)
        out[a] = (k[0], -k[1] / 10, k[2] / 8, BHARG_VALUES[c] / 10, ways_to_bind(h, top, unseen) / 10)
    return out


# ----------------------------------------------------------------- ISMCTS hooks
def rollout_action(game: Any, state: Any, rng: np.random.Generator) -> int:
    """Cheap greedy policy for rollouts: take the discard top only when it wins at
    once, else draw; discard to win when possible, else the card whose loss leaves
    the best-ranked hand (one kernel call per card)."""
    legal = game.legal_actions(state)
    if len(legal) == 1:
        return legal[0]
    seat = state.seat
    hand, ace = state.hands[seat], _ace_top(state)
    if state.phase == _DRAW_PHASE:
        h = hand | 1 << state.discard[-1]
        for c in bit_list(h):
            hh, a = _after_discard(h, c, ace)
            if all_bound_trusted(hh, a):
                return TAKE_DISCARD
        return DRAW_DECK
    return DISCARD0 + _best_discard(hand, ace, None)[1]


def _greedy_prior(game: Any, state: Any, seat: int) -> int:
    return GreedyBhargBot(0).act(game, state, seat)


EVAL_SHARPNESS = 0.25  # logistic slope per point of unbound value between seats


def evaluate_state(game: Any, state: Any) -> list[float]:
    """Win shares of an unfinished round from each seat's lowest unbound value
    (the search calls it on determinized states, where every hand is dealt)."""
    ace = _ace_top(state)
    vals = []
    for s, h in enumerate(state.hands):
        # The seat to discard holds one card more: rank its hand after its best discard.
        if s == state.seat and state.phase != _DRAW_PHASE:
            k, _ = _best_discard(h, ace, None)
        else:
            k = hand_key(h, ace)
        vals.append(0.0 if k[0] else float(-k[1]))
    w = [math.exp(-EVAL_SHARPNESS * v) for v in vals]
    total = sum(w)
    return [x / total for x in w]


ISMCTS_HOOKS = GameHooks(rollout=rollout_action, prior=_greedy_prior, evaluate=evaluate_state,
                         defaults={"iterations": 40, "determinizations": 16, "max_rollout_steps": 4,
                                   "switch_z": 0.5, "rollout_determinizations": 96})

def greedy_features_engine(game: Any, engine: Any, seat: int) -> np.ndarray | None:
    """:func:`greedy_features` in the position of a compiled Bharg engine, from the compiled
    twin; None where there is none (a build without it, or another engine)."""
    if _compiled is None or not isinstance(engine, _Engine):
        return None
    if engine.current_seat() != seat:
        return np.zeros((game.num_actions, len(FEATURES)), np.float32)
    return _compiled.greedy_features(engine)


try:  # the compiled copy of this player on the engine (optional, see setup.py),
    # last: bharg_env._greedy reads this module's constants
    from bharg_env import _greedy as _compiled
    from bharg_env._engine import Engine as _Engine
except ImportError:  # pragma: no cover - a build without a C compiler
    _compiled = None
