"""A learned model of the other players' Tu Sac hands, and re-deals drawn from it.

:meth:`TuSacGame.determinize` deals a seat's unseen cards uniformly, but the
public record says more: a player who discarded a card, or a card of the same
set family (king-guard-minister or rook-cannon-knight of one color, pawns),
rarely holds another; a player who let a card go by without melding it holds
neither its pair nor its partners; pairs pile up as the game goes on. The
ISMCTS search is starved of exactly this: in 2-player Tu Sac against greedy it
scores about 51% with uniform re-deals and 64% when shown the opponent's hand
(``python -m research.tusac_information.experiment``).

:func:`features` turns the record into one row per (opponent, unseen card
type); :data:`WEIGHTS` is a logistic model of "the opponent holds at least one
card of this type", fitted on greedy self-play by :func:`fit` (``python -m
research.tusac_information.handmodel`` re-fits it and prints the held-out scores).
Its first feature is the uniform deal's own log-odds, so the other weights are
the evidence the record adds. :func:`model_determinize` re-deals each other
player's private block by weighted sampling without replacement, every unseen
copy of a type weighted by the model's odds ratio over the uniform deal, and
keeps what :meth:`~tusac_env.rules.TuSacGame.determinize` keeps (block sizes,
Khap counts, every public fact). The observer's own information is all it
reads: the event record is public, the observer's block is its own.

The model was fitted on hands of greedy players, so it describes players who
meld whenever they can and discard their worst cards (as every built-in bot
does); against players who do not, it is a prior, not the truth.

Measured (2 players): its re-deals hold 47-50% of the opponent's true cards
against 36% for uniform re-deals, yet ISMCTS with them
(``InformedIsmctsBot(determinize="model")``) scored 51% [45, 57] against greedy over 100
games (``python -m research.tusac_information.experiment --mode model``), level with uniform
re-deals: the search's edge with the opponent's hand shown (64%) comes from
exact facts (this pair, that winning card) that better marginals do not give.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from setgames.cards import NUM_TUSAC_TYPES
from tusac_env.melds import PARTNERS, rebuild_caches, unseen_counts

__all__ = ["FEATURE_NAMES", "WEIGHTS", "features", "fit", "log_loss", "model_determinize",
           "model_determinizer", "training_rows", "type_odds", "uniform_weights"]


# Each type's meld partners: the other card types that make a set with it
# (tusac_env/README.md, rules choice 16).
_FAMILY = tuple(tuple(x for x in PARTNERS[t] if x != t) for t in range(NUM_TUSAC_TYPES))

FEATURE_NAMES = (
    "uniform log-odds",  # log-odds of holding >= 1 copy under a uniform deal of the unseen cards
    "discarded it",  # times the player discarded this type
    "discarded its family",  # times the player discarded a card of this type's set family
    "let it go",  # times the player hit over, or passed, this type (no meld of it)
    "let its family go",
    "let it go unclaimed",  # times it became active, unclaimed, the player not to act (no pair)
    "public copies",  # cards of this type in the player's public block
    "public family",
    "game progress",  # events so far / 100
    "king", "guard", "minister", "rook", "cannon", "knight", "pawn",
)

# Fitted by ``python -m research.tusac_information.handmodel --games 300 --test-games 100`` (greedy
# self-play, 300 games per player count, 338,562 rows). Held-out log-loss, uniform deal -> model:
# 2p 0.631 -> 0.557, 3p 0.620 -> 0.559, 4p 0.626 -> 0.574.
WEIGHTS = (0.9217, -3.1753, -1.8459, -0.7463, -0.0666, 0.0198, -1.1632, -0.1763, 1.1893, 0.2654,
           -0.0787, -0.143, -0.0281, -0.0067, -0.0098, 0.01)


def features(state: Any, seat: int, other: int) -> tuple[list[int], np.ndarray]:
    """The unseen card types of ``seat`` and one feature row each about ``other``'s block.

    Reads only public facts and ``seat``'s own block (through
    :func:`~tusac_env.melds.unseen_counts`).
    """
    n = state.num_players
    disc = [0] * NUM_TUSAC_TYPES
    gone = [0] * NUM_TUSAC_TYPES
    unclaimed = [0] * NUM_TUSAC_TYPES
    pub = [0] * NUM_TUSAC_TYPES
    events = state.events
    n_ev = len(events)
    for i, e in enumerate(events):
        kind = e[0]
        if kind == "discard":
            if e[1] == other:
                disc[e[2]] += 1
            elif (i + 1 == n_ev or events[i + 1][0] != "claim") and (e[1] + 1) % n != other:
                unclaimed[e[2]] += 1
        elif kind == "hit":
            if e[1] == other:
                if e[3] >= 0:
                    gone[e[3]] += 1
            elif e[2] >= 0 and (i + 1 == n_ev or events[i + 1][0] != "claim"):
                unclaimed[e[2]] += 1
        elif kind == "pass":
            if e[1] == other:
                gone[e[2]] += 1
        elif kind == "meld" and e[1] == other:
            for t in e[3]:
                pub[t] += 1
    unseen = unseen_counts(state, seat)
    total = sum(unseen)
    size = sum(state.private[other])
    progress = n_ev / 100.0
    types: list[int] = []
    rows: list[list[float]] = []
    none_all = math.comb(total, size) if total >= size else 1
    for t in range(NUM_TUSAC_TYPES):
        u = unseen[t]
        if u <= 0:
            continue
        p0 = math.comb(total - u, size) / none_all if total >= size else 1.0
        p0 = min(max(p0, 1e-9), 1 - 1e-9)
        fam = _FAMILY[t]
        row = [math.log((1.0 - p0) / p0), disc[t], sum(disc[x] for x in fam), gone[t],
               sum(gone[x] for x in fam), unclaimed[t], pub[t], sum(pub[x] for x in fam), progress]
        row += [1.0 if t % 7 == p else 0.0 for p in range(7)]
        types.append(t)
        rows.append(row)
    return types, np.array(rows, dtype=float).reshape(len(rows), len(FEATURE_NAMES))


def type_odds(state: Any, seat: int, other: int, weights: tuple[float, ...] = WEIGHTS) -> list[float]:
    """Per card type, the model's odds of ``other`` holding it over the uniform
    deal's odds (1.0 for every type when the record says nothing)."""
    odds = [1.0] * NUM_TUSAC_TYPES
    types, rows = features(state, seat, other)
    if not types:
        return odds
    w = np.asarray(weights, dtype=float)
    # The model's log-odds minus the uniform deal's: the evidence of the record.
    shift = rows @ w - rows[:, 0]
    for t, s in zip(types, np.clip(shift, -8.0, 8.0).tolist(), strict=True):
        odds[t] = math.exp(s)
    return odds


def _weighted_deal(avail: list[int], odds: list[float], size: int, nkhaps: int,
                   rng: np.random.Generator) -> list[int] | None:
    """One private block of ``size`` cards with ``nkhaps`` triples, drawn from the
    counts ``avail`` (updated in place) with every copy weighted by ``odds``.

    Weighted sampling without replacement by exponential keys (Efraimidis and
    Spirakis): copies taken in increasing ``E / weight`` order are a sequential
    weighted draw; a type already held twice is skipped (a third copy would be
    a Khap that was never announced), which is the same draw with its weight 0.
    """
    hand = [0] * NUM_TUSAC_TYPES
    if nkhaps:
        cands = [t for t in range(NUM_TUSAC_TYPES) if avail[t] >= 3]
        if len(cands) < nkhaps:
            return None
        w = np.array([odds[t] ** 3 for t in cands])
        for i in rng.choice(len(cands), size=nkhaps, replace=False, p=w / w.sum()).tolist():
            t = cands[i]
            hand[t] = 3
            avail[t] -= 3
    need = size - 3 * nkhaps
    if need <= 0:
        return hand if need == 0 else None
    copies = np.repeat(np.arange(NUM_TUSAC_TYPES), avail)
    keys = rng.standard_exponential(copies.size) / np.asarray(odds)[copies]
    for t in copies[np.argsort(keys, kind="stable")].tolist():
        if hand[t] < 2:
            hand[t] += 1
            avail[t] -= 1
            need -= 1
            if not need:
                return hand
    return None


MODEL_TRIES = 8  # weighted deals tried before falling back on the uniform re-deal


def model_determinizer(game: Any, state: Any, seat: int, weights: tuple[float, ...] = WEIGHTS
                       ) -> Callable[[Any, Any, int, np.random.Generator], Any]:
    """``determinize(game, state, seat, rng)`` for one position: the record is read
    once here (a search re-deals the same position hundreds of times), every call
    draws a fresh re-deal as :func:`model_determinize` does."""
    n = state.num_players
    others = [o for o in range(n) if o != seat]
    odds = {o: type_odds(state, seat, o, weights) for o in others}
    pool = unseen_counts(state, seat)
    sizes = {o: sum(state.private[o]) for o in others}
    nkhaps = {o: len(state._khaps[o]) for o in others}  # public: the Khap counts
    worst = state._worst[:] if seat == state.current and state._worst is not None else None

    def determinize(game: Any, position: Any, seat_: int, rng: np.random.Generator) -> Any:
        if position is not state or seat_ != seat:
            raise ValueError("this determinizer was prepared for another position or seat")
        for _ in range(MODEL_TRIES):
            avail = pool[:]
            hands = {}
            for o in others:
                hand = _weighted_deal(avail, odds[o], sizes[o], nkhaps[o], rng)
                if hand is None:
                    break
                hands[o] = hand
            else:
                twin = game.clone(state)
                for o, hand in hands.items():
                    twin.private[o] = hand
                rest = np.repeat(np.arange(NUM_TUSAC_TYPES), avail)
                twin.draw = rest[rng.permutation(rest.size)].tolist()
                rebuild_caches(twin)
                if worst is not None:
                    twin._worst = worst[:]
                return twin
        return game.determinize(state, seat, rng)

    return determinize


def model_determinize(game: Any, state: Any, seat: int, rng: np.random.Generator,
                      weights: tuple[float, ...] = WEIGHTS) -> Any:
    """A re-deal of ``seat``'s unseen cards with the others' blocks drawn from the
    hand model (see the module docstring), keeping block sizes, Khap counts and
    every public fact; the uniform re-deal when no weighted deal keeps the Khap
    counts in :data:`MODEL_TRIES` tries."""
    if not 0 <= seat < state.num_players:
        raise ValueError(f"seat {seat!r} is not 0..{state.num_players - 1}")
    return model_determinizer(game, state, seat, weights)(game, state, seat, rng)


def training_rows(num_players: int, seeds: range) -> tuple[np.ndarray, np.ndarray]:
    """Feature rows and labels (holds >= 1 copy) from greedy self-play: at every
    decision of every seat, about every other seat."""
    from setgames.game import rng_from_seed
    from tusac_env.greedy import GreedyTuSacBot
    from tusac_env.rules import TuSacGame

    game = TuSacGame(num_players=num_players)
    xs: list[np.ndarray] = []
    ys: list[list[int]] = []
    for seed in seeds:
        state = game.new_state(rng_from_seed(seed))
        bots = [GreedyTuSacBot(seed * 10 + s) for s in range(num_players)]
        step = 0
        while not game.is_over(state):
            s = game.current_seat(state)
            if step % 3 == 0 and len(game.legal_actions(state)) > 1:
                for o in range(num_players):
                    if o == s:
                        continue
                    types, rows = features(state, s, o)
                    xs.append(rows)
                    ys.append([int(state.private[o][t] >= 1) for t in types])
            game.apply(state, bots[s].act(game, state, s))
            step += 1
    return np.concatenate(xs), np.array([y for row in ys for y in row], dtype=float)


def fit(x: np.ndarray, y: np.ndarray, iterations: int = 4000, rate: float = 0.5,
        l2: float = 1e-4) -> tuple[float, ...]:
    """Logistic regression by gradient descent (features are on small scales)."""
    w = np.zeros(x.shape[1])
    w[0] = 1.0  # start from the uniform deal
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        w -= rate * (x.T @ (p - y) / len(y) + l2 * w)
    return tuple(round(float(v), 4) for v in w)


def log_loss(x: np.ndarray, y: np.ndarray, weights: tuple[float, ...]) -> float:
    """Mean log-loss of the model with ``weights`` on rows ``x``, labels ``y``."""
    p = np.clip(1.0 / (1.0 + np.exp(-(x @ np.asarray(weights)))), 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def uniform_weights() -> tuple[float, ...]:
    """The weights of the uniform deal (the model that reads nothing from the record)."""
    return (1.0,) + (0.0,) * (len(FEATURE_NAMES) - 1)


def main() -> None:
    """Re-fit :data:`WEIGHTS` on greedy self-play and print them with held-out scores."""
    import argparse

    ap = argparse.ArgumentParser(description="Fit the Tu Sac hand model on greedy self-play.")
    ap.add_argument("--games", type=int, default=600, help="training games per player count")
    ap.add_argument("--test-games", type=int, default=150, help="held-out games per player count")
    args = ap.parse_args()
    parts = [training_rows(n, range(args.games)) for n in (2, 3, 4)]
    x = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    w = fit(x, y)
    print(f"WEIGHTS = {w!r}  # {len(y)} rows")
    for n in (2, 3, 4):
        xt, yt = training_rows(n, range(10_000, 10_000 + args.test_games))
        print(f"{n}p held-out log-loss: uniform {log_loss(xt, yt, uniform_weights()):.4f}, "
              f"model {log_loss(xt, yt, w):.4f} ({len(yt)} rows)")


if __name__ == "__main__":
    main()
