"""A rule-based Tet Hsi player (``greedy``) and the hooks ISMCTS borrows from it.

It reads only its seat's information: its own hand (concealed and front),
the public zones (center, remaining card, discard pile, both fronts, the Sets
put aside) and the size of the draw pile.

Hand value: over every pair of hand cards, the number of *live* cards that
would complete the pair to a Set (live = not in my hand, not discarded, not in
a Set, not in the opponent's front). Decisions:

- **set** whenever one is legal, choosing the pair that leaves the best hand;
- **discard** the center card whose partner, as the remaining card, makes a
  Set with my hand, else the one whose partner improves my hand the most;
- **take** the remaining card if taking it and then playing my worst card
  beats my current hand, else **nothing**;
- **play** the card whose loss hurts the hand value least, avoiding cards that
  complete a pair in the opponent's (public) front.

Kernel tables: :data:`setgames.kernels.tethsi.PAIRS_BY_CARD` (which pairs make
a Set with a card), turned here into per-pair bitmasks of completing cards.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from setgames.bits import bit_list
from setgames.bots.base import ExplainingBot
from setgames.bots.hooks import GameHooks
from setgames.cards import NUM_STANDARD
from setgames.kernels.tethsi import PAIRS_BY_CARD
from tethsi_env.layout import DISCARD_START, NOTHING, PAIR_OF_ACTION, PLAY_START, SET_START, TAKE, Phase

__all__ = ["FEATURES", "FEATURE_MOVES", "FEATURE_ROWS", "ISMCTS_HOOKS", "GreedyTetHsiBot", "greedy_features",
           "greedy_features_engine", "hand_value", "opponent_use", "rollout_action"]

_ALL = (1 << NUM_STANDARD) - 1
# _COMPLETE[x][y]: bitmask of the cards z with {x, y, z} a Set (x != y).
_COMPLETE = [[0] * NUM_STANDARD for _ in range(NUM_STANDARD)]
for _z in range(NUM_STANDARD):
    for _m, _x, _y in PAIRS_BY_CARD[_z]:
        _COMPLETE[_x][_y] |= 1 << _z
        _COMPLETE[_y][_x] |= 1 << _z
_DISCARD, _CHOOSE, _PLAY = int(Phase.DISCARD), int(Phase.CHOOSE), int(Phase.PLAY)
_SET_WEIGHT = 1000.0  # a Set now outweighs any hand-value difference
_FEED_PENALTY = 3.0  # hand-value points a played card costs if it completes the opponent's front pair


def hand_value(hand: int, live: int) -> int:
    """Sum over the pairs of ``hand`` of how many ``live`` cards complete them.

    >>> hand_value((1 << 0) | (1 << 30), 1 << 12)   # Ace + Crown of Moons, Mountain live: one Five
    1
    """
    cards = bit_list(hand)
    total = 0
    for i, x in enumerate(cards):
        row = _COMPLETE[x]
        for y in cards[i + 1:]:
            c = row[y] & live
            if c:
                total += c.bit_count()
    return total


def _views(state: Any, seat: int) -> tuple[int, int, int]:
    """(my hand, live cards, opponent front) from ``seat``'s information only."""
    opp = seat ^ 1
    hand = state.concealed[seat] | state.front[seat]
    dead = hand | state.discard | state.set_cards[0] | state.set_cards[1] | state.front[opp]
    return hand, _ALL & ~dead, state.front[opp]


def _best_play(hand: int, live: int, opp_front: int) -> tuple[float, int]:
    """(value of the hand after the best card to play, that card)."""
    best = (-1e18, -1)
    for c in bit_list(hand):
        v = hand_value(hand & ~(1 << c), live)
        if opp_front and _feeds(c, opp_front):
            v -= _FEED_PENALTY
        if v > best[0]:
            best = (v, c)
    return best


def _feeds(card: int, opp_front: int) -> bool:
    """True when ``card`` completes a pair of the opponent's front cards."""
    cards = bit_list(opp_front)
    return any(_COMPLETE[x][y] >> card & 1 for i, x in enumerate(cards) for y in cards[i + 1:])


def _set_pairs(hand: int, r: int) -> list[tuple[int, int]]:
    cards = bit_list(hand)
    return [(x, y) for i, x in enumerate(cards) for y in cards[i + 1:] if _COMPLETE[x][y] >> r & 1]


def _choose_value(hand: int, live: int, opp_front: int, r: int) -> float:
    """Value of the best choice with remaining card ``r``: set, take or nothing."""
    pairs = _set_pairs(hand, r)
    if pairs:
        return _SET_WEIGHT + max(hand_value(hand & ~((1 << x) | (1 << y)), live) for x, y in pairs)
    take = _best_play(hand | 1 << r, live & ~(1 << r), opp_front)[0]
    return max(take, hand_value(hand, live))


class GreedyTetHsiBot(ExplainingBot):
    """Rule-based Tet Hsi player (see the module docstring); deterministic
    except for breaking exact ties with its generator."""

    name = "greedy"

    def explain(self, game: Any, state: Any, seat: int) -> tuple[int, str]:
        """The greedy action and why."""
        legal = game.legal_actions(state)
        hand, live, opp_front = _views(state, seat)
        phase = state.phase
        if phase == _DISCARD:
            c1, c2 = legal
            v1 = _choose_value(hand, live, opp_front, c2)  # discarding c1 leaves c2
            v2 = _choose_value(hand, live, opp_front, c1)
            if v1 == v2:
                a = legal[int(self.rng.integers(2))]
            else:
                a = c1 if v1 > v2 else c2
            return a, "keep the center card that helps my hand most"
        if phase == _CHOOSE:
            sets = [a for a in legal if a >= SET_START and a < PLAY_START]
            if sets:
                def after(a: int) -> int:
                    x, y = PAIR_OF_ACTION[a]
                    return hand_value(hand & ~((1 << x) | (1 << y)), live)
                return max(sets, key=lambda a: (after(a), -a)), "make a Set"
            r = state.remaining
            take = _best_play(hand | 1 << r, live & ~(1 << r), opp_front)[0]
            if take > hand_value(hand, live):
                return TAKE, "taking it improves my hand"
            return NOTHING, "the remaining card does not help"
        # play
        _, c = _best_play(hand, live, opp_front)
        return PLAY_START + c, "play my least useful card"

    def supports_engine(self, game: Any, engine: Any) -> bool:
        """True on Tet Hsi's compiled engine when the compiled bot is built (and this
        class's moves are this bot's own, not a subclass's)."""
        return _compiled is not None and isinstance(engine, _Engine) and self._moves_as(GreedyTetHsiBot)

    def act_engine(self, game: Any, engine: Any, seat: int) -> int:
        """The compiled bot's move (:mod:`tethsi_env._greedy`, held to :meth:`explain`
        in every position): its exact ties draw ``rng.integers(2)`` from :attr:`rng`,
        as :meth:`explain` does."""
        return _compiled.greedy_action(engine, self.rng)



# ----------------------------------------------------------------- features
# What the greedy bot weighs, per move: the ppo bot's networks read these beside the
# observation (``setgames train --prior features``). One row per card discarded, take,
# nothing and card played (the Set actions have none: greedy makes a Set whenever it can,
# and 630 rows of them would triple the policy's first layer).
FEATURES = ("makes_set", "hand_value / 10", "feeds_opponent", "opponent_use / 4", "opponent_use_rank",
            "greedy_tie")
FEATURE_ROWS = 2 * NUM_STANDARD + 2  # discard 0..35, take, nothing, play 0..35
# The action each row describes (the descriptor's greedy_feature_moves).
FEATURE_MOVES = (*range(DISCARD_START, DISCARD_START + NUM_STANDARD), TAKE, NOTHING,
                 *range(PLAY_START, PLAY_START + NUM_STANDARD))


def greedy_features(game: Any, state: Any, seat: int) -> np.ndarray:
    """Per move, ``(FEATURE_ROWS, 6)`` float32 (:data:`FEATURES`; 0 for moves not legal or
    when ``seat`` is not to act): for discarding a center card, the value of the best
    choice the other card then leaves (whether it makes a Set, and the hand value after
    it); for take, the hand value after taking and playing the best card; for nothing,
    the hand value now; for playing a card, the hand value without it and whether it
    completes a pair of the opponent's front. ``opponent_use`` (:func:`opponent_use`) is
    what the card a move gives up is worth to the opponent: the card discarded, the
    remaining card left in the center by nothing, the card played (0 for take). Greedy
    does not weigh it; ``opponent_use_rank`` is the share of the decision's other moves
    (the two discards; take and nothing; the plays) whose ``opponent_use`` is lower (a
    policy scores each move's row alone, and which card is the more useful one is what
    counts). ``greedy_tie`` is 1 on both discards when their values are equal,
    where greedy tosses a coin (a third of the discards in greedy play): which card it
    kills there is the choice the features let a policy settle. The compiled twin is
    ``tethsi_env._greedy`` (batches' ``greedy_features``).

    >>> from tethsi_env.rules import TetHsiGame
    >>> game = TetHsiGame(); state = game.new_state(np.random.default_rng(1))
    >>> f = greedy_features(game, state, state.seat)
    >>> f.shape, int((f[:NUM_STANDARD, 1] > 0).sum() + (f[:NUM_STANDARD, 0] > 0).sum() > 0)
    ((74, 6), 1)
    """
    out = np.zeros((FEATURE_ROWS, len(FEATURES)), np.float32)
    if game.is_over(state) or state.seat != seat:
        return out
    legal = game.legal_actions(state)
    hand, live, opp_front = _views(state, seat)
    share = _held_share(state, seat, live)
    if state.phase == _DISCARD:
        # discarding the first center card leaves the second
        values = [_choose_value(hand, live, opp_front, other) for other in (legal[1], legal[0])]
        for a, v in zip(legal, values, strict=True):
            made = v >= _SET_WEIGHT
            out[a, :3] = (made, (v - _SET_WEIGHT * made) / 10, 0)
            out[a, 5] = values[0] == values[1]
        _opponent_columns(out, list(legal), list(legal), opp_front, live, share)
        return out
    if state.phase == _CHOOSE:
        r = state.remaining
        out[NUM_STANDARD, 1] = _best_play(hand | 1 << r, live & ~(1 << r), opp_front)[0] / 10
        out[NUM_STANDARD + 1, 1] = hand_value(hand, live) / 10
        _opponent_columns(out, [NUM_STANDARD, NUM_STANDARD + 1], [-1, r], opp_front, live, share)
        return out
    cards = bit_list(hand)
    for c in cards:
        out[NUM_STANDARD + 2 + c, :3] = (0, hand_value(hand & ~(1 << c), live) / 10, _feeds(c, opp_front))
    _opponent_columns(out, [NUM_STANDARD + 2 + c for c in cards], cards, opp_front, live, share)
    return out


def _opponent_columns(out: np.ndarray, rows: list[int], cards: list[int], opp_front: int, live: int,
                      share: float) -> None:
    """``opponent_use`` and its rank among ``rows`` (the moves of one decision), for the
    card each gives up (-1: none, use 0)."""
    use = [opponent_use(c, opp_front, live, share) if c >= 0 else 0.0 for c in cards]
    for row, u in zip(rows, use, strict=True):
        out[row, 3] = u / 4
        out[row, 4] = sum(v < u for v in use) / max(1, len(use) - 1)


def _held_share(state: Any, seat: int, live: int) -> float:
    """The chance that a given live card is in the opponent's concealed hand (its size is
    public; the live cards are those ``seat`` has not seen placed)."""
    return state.concealed[seat ^ 1].bit_count() / max(1, live.bit_count())


def opponent_use(card: int, opp_front: int, live: int, share: float) -> float:
    """The expected number of the opponent's pairs that ``card`` completes to a Set: the pairs
    of its front (certain), of a front card and a live card (each live card held with
    probability ``share``) and of two live cards (``share`` squared).

    >>> opponent_use(0, 0, 0, 0.5)   # no front, nothing live: of no use
    0.0
    """
    row = _COMPLETE[card]
    rest = live & ~(1 << card)
    front = bit_list(opp_front)
    certain = sum(_COMPLETE[x][y] >> card & 1 for i, x in enumerate(front) for y in front[i + 1:])
    one_live = sum((row[x] & rest).bit_count() for x in front)
    two_live = sum((row[y] & rest).bit_count() for y in bit_list(rest)) // 2
    return certain + share * one_live + share * share * two_live


def greedy_features_engine(game: Any, engine: Any, seat: int) -> np.ndarray | None:
    """:func:`greedy_features` in the position of a compiled Tet Hsi engine, from the compiled
    twin; None where there is none (a build without it, or another engine)."""
    if _compiled is None or not isinstance(engine, _Engine):
        return None
    if engine.current_seat() != seat:
        return np.zeros((FEATURE_ROWS, len(FEATURES)), np.float32)
    return _compiled.greedy_features(engine)


ROLLOUT_EPSILON = 0.0  # share of rollout moves played at random, so rollouts explore


def _contribution(card: int, hand: int, live: int) -> int:
    """Live completions of the pairs ``card`` forms with the other cards of ``hand``."""
    row = _COMPLETE[card]
    total = 0
    for y in bit_list(hand & ~(1 << card)):
        c = row[y] & live
        if c:
            total += c.bit_count()
    return total


def rollout_action(game: Any, state: Any, rng: np.random.Generator) -> int:
    """Cheap greedy policy for ISMCTS rollouts (about 10x cheaper than the bot).

    Set when possible; keep the center card that makes a Set; take a card that
    adds more live completions than my weakest card has; play the weakest card;
    a random legal move with probability :data:`ROLLOUT_EPSILON`.
    """
    legal = game.legal_actions(state)
    if len(legal) == 1:
        return legal[0]
    phase = state.phase
    if phase == _CHOOSE and len(legal) > 2:
        return legal[2]
    if ROLLOUT_EPSILON and rng.random() < ROLLOUT_EPSILON:
        return legal[int(rng.integers(len(legal)))]
    seat = state.seat
    hand, live, _ = _views(state, seat)
    if phase == _PLAY:
        best, best_c = 1 << 30, legal[0]
        for a in legal:
            v = _contribution(a - PLAY_START, hand, live)
            if v < best:
                best, best_c = v, a
        return best_c
    if phase == _CHOOSE:
        r = state.remaining
        gain = _contribution(r, hand | 1 << r, live)
        worst = min(_contribution(c, hand, live) for c in bit_list(hand))
        return TAKE if gain > worst else NOTHING
    # discard: keep the card that makes a Set now, else the one that adds more completions
    c1, c2 = legal
    s1 = bool(_set_pairs(hand, c2))  # discarding c1 leaves c2
    s2 = bool(_set_pairs(hand, c1))
    if s1 != s2:
        return c1 if s1 else c2
    g1 = _contribution(c2, hand | 1 << c2, live)
    g2 = _contribution(c1, hand | 1 << c1, live)
    return c1 if g1 >= g2 else c2


def _greedy_prior(game: Any, state: Any, seat: int) -> int:
    return GreedyTetHsiBot(0).act(game, state, seat)


EVAL_SET_WEIGHT = 1.0  # evaluation points per Set put aside
EVAL_PAIR_WEIGHT = 0.08  # evaluation points per live completion of a hand pair
EVAL_SHARPNESS = 1.5  # logistic slope on the evaluation difference


def evaluate(game: Any, state: Any) -> list[float]:
    """Win shares of an unfinished game: Sets made and hand potential, both seats
    (the search calls it on determinized states, where every hand is dealt)."""
    live = state.center | sum(1 << c for c in state.pile)
    h = [EVAL_SET_WEIGHT * len(state.sets[s])
         + EVAL_PAIR_WEIGHT * hand_value(state.concealed[s] | state.front[s], live) for s in (0, 1)]
    p0 = 1.0 / (1.0 + float(np.exp(-EVAL_SHARPNESS * (h[0] - h[1]))))
    return [p0, 1.0 - p0]


ISMCTS_HOOKS = GameHooks(rollout=rollout_action, prior=_greedy_prior, evaluate=evaluate,
                         defaults={"iterations": 100, "determinizations": 16,
                                   "rollout_determinizations": 600})

try:  # the compiled copy of this player on the engine (optional, see setup.py)
    from tethsi_env import _greedy as _compiled
    from tethsi_env._engine import Engine as _Engine
except ImportError:  # pragma: no cover - a build without a C compiler
    _compiled = None
