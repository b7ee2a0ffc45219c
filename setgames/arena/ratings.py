"""Bradley-Terry ratings on the Elo scale, with bootstrap intervals.

The model: bot i beats bot j with probability ``g_i / (g_i + g_j)``; a draw
counts half a win to each. It is fitted by maximum likelihood (Newton's method) on
the pairings' game scores. Every pairing that was played also gets one
virtual drawn game (half a win each): a light prior that keeps a perfect
record finite. Ratings are reported as Elo points, ``400 * log10(g)``,
anchored so that the first bot listed rates 0.

Intervals: 95% percentile bootstrap that resamples deals (the independent
unit, see :mod:`setgames.arena.stats`) within each pairing and refits, with
a generator seeded from the arena's master seed, so it is reproducible. The
bootstrap is smoothed: each drawn deal's score is redrawn as a binomial around
``(deal score + r) / (deal games + 1)``, ``r`` the pairing's score rate with the
prior, so that a pairing where every deal ended the same way (a perfect record
over few deals) still gets an interval; the interval is widened to contain
the point estimate if needed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["BOOTSTRAP_SAMPLES", "bradley_terry", "fixed_reference_fit", "rate", "rate_against"]

BOOTSTRAP_SAMPLES = 300  # resamples for the rating intervals
PRIOR_GAMES = 1.0  # virtual drawn games added to every pairing played
_ELO = 400.0 / np.log(10.0)


def bradley_terry(n_bots: int, pairs: Sequence[tuple[int, int, float, float]],
                  iters: int = 100, tol: float = 1e-9,
                  start: np.ndarray | None = None) -> np.ndarray:
    """Elo-scale ratings from ``(i, j, score_i, games)`` tuples.

    ``score_i`` is bot i's wins plus half its draws over ``games`` games
    against bot j. The first bot is anchored at 0. ``start`` (Elo-scale
    ratings) warm-starts the fit.

    >>> r = bradley_terry(2, [(0, 1, 7.5, 10.0)])   # 7.5 + 0.5 of 11 -> 8/11
    >>> round(float(r[1] - r[0]), 1)                # -400 log10(8/3)
    -170.4
    """
    wins = np.zeros((n_bots, n_bots))
    games = np.zeros((n_bots, n_bots))
    for i, j, s, n in pairs:
        if i == j:
            continue
        wins[i, j] += s + PRIOR_GAMES / 2
        wins[j, i] += n - s + PRIOR_GAMES / 2
        games[i, j] += n + PRIOR_GAMES
        games[j, i] += n + PRIOR_GAMES
    total_wins = wins.sum(axis=1)
    # Newton's method on the concave log-likelihood in log-strengths (bot 0 fixed at 0):
    # a handful of steps where Hunter's MM needs thousands on lopsided records.
    theta = np.zeros(n_bots) if start is None else np.asarray(start, dtype=float) / _ELO
    free = np.arange(1, n_bots)
    ridge = 1e-9 * np.eye(n_bots - 1)  # keeps bots that never met any other solvable
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # p[i, j] = P(i beats j)
        grad = total_wins - (games * p).sum(axis=1)
        w = games * p * p.T
        hess = w - np.diag(w.sum(axis=1))
        step = np.linalg.solve(hess[np.ix_(free, free)] - ridge, -grad[free])
        step = np.clip(step, -2.0, 2.0)  # damped: Newton can overshoot far from the optimum
        theta[free] += step
        if np.max(np.abs(step)) < tol:
            break
    g = np.exp(theta)
    r = _ELO * np.log(g)
    return r - r[0]


def _prior_rate(d: np.ndarray) -> float:
    """A pairing's score rate with the prior's virtual drawn game (``d``: per deal, score and games)."""
    return float((d[:, 0].sum() + PRIOR_GAMES / 2) / (d[:, 1].sum() + PRIOR_GAMES))


def _resample_deals(d: np.ndarray, rate_ij: float, rng: np.random.Generator) -> np.ndarray:
    """One smoothed bootstrap draw of a pairing's deals ``d`` (per deal: score, games)."""
    pick = d[rng.integers(len(d), size=len(d))]
    # Smoothed: each drawn deal's score is redrawn as a binomial around its own rate,
    # shrunk by one game's weight toward the pairing's (prior-shrunk) rate, so a
    # perfect record over few deals still gets an interval of honest width.
    p = (pick[:, 0] + rate_ij) / (pick[:, 1] + 1.0)
    return np.column_stack([rng.binomial(pick[:, 1].astype(np.int64), p), pick[:, 1]])


def rate(labels: Sequence[str], pairings: Sequence[dict], seed: int,
         samples: int = BOOTSTRAP_SAMPLES) -> list[dict]:
    """Rating table rows ``{"bot", "elo", "low", "high"}``, best first.

    ``pairings`` are arena pairing results with ``"a"``, ``"b"`` (indices into
    ``labels``) and ``"deal_scores"`` (list of ``[score of a, games]`` per deal).
    """
    n = len(labels)

    def fit(per_pair: list[tuple[int, int, np.ndarray]], start: np.ndarray | None = None) -> np.ndarray:
        return bradley_terry(n, [(i, j, float(d[:, 0].sum()), float(d[:, 1].sum()))
                                 for i, j, d in per_pair], start=start)

    base = [(p["a"], p["b"], np.asarray(p["deal_scores"], dtype=float).reshape(-1, 2))
            for p in pairings if p["a"] != p["b"] and p["deal_scores"]]
    point = fit(base)
    base_rates = [(i, j, d, _prior_rate(d)) for i, j, d in base]
    rng = np.random.default_rng([int(seed), 0x5E7])
    boot = np.empty((samples, n))
    for k in range(samples):
        boot[k] = fit([(i, j, _resample_deals(d, rate_ij, rng)) for i, j, d, rate_ij in base_rates], point)
    low, high = np.percentile(boot, [2.5, 97.5], axis=0) if samples else (point, point)
    rows = [{"bot": labels[i], "elo": round(float(point[i]), 1),
             "low": round(float(min(low[i], point[i])), 1),
             "high": round(float(max(high[i], point[i])), 1)} for i in range(n)]
    return sorted(rows, key=lambda r: -r["elo"])


def fixed_reference_fit(pairs: Sequence[tuple[float, float, float]], iters: int = 100,
                        tol: float = 1e-9) -> float:
    """The Elo-scale rating of one bot from ``(reference rating, its score, games)`` tuples
    against references whose ratings are fixed: the same model and prior as
    :func:`bradley_terry` (one virtual drawn game a pairing), with one free rating.

    >>> round(fixed_reference_fit([(0.0, 7.5, 10.0)]), 1)   # 8 of 11 against a bot rated 0
    170.4
    """
    k = 1.0 / _ELO
    refs = np.array([r for r, _, _ in pairs], dtype=float)
    wins = np.array([s + PRIOR_GAMES / 2 for _, s, _ in pairs], dtype=float)
    games = np.array([n + PRIOR_GAMES for _, _, n in pairs], dtype=float)
    x = float(np.average(refs, weights=games))
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-k * (x - refs)))
        grad = k * float(np.sum(wins - games * p))
        hess = -k * k * float(np.sum(games * p * (1.0 - p)))
        step = float(np.clip(-grad / hess, -400.0, 400.0))  # damped, as bradley_terry's steps
        x += step
        if abs(step) < tol:
            break
    return x


def rate_against(references: Sequence[float], deal_scores: Sequence[Sequence[Sequence[float]]], seed: int,
                 samples: int = BOOTSTRAP_SAMPLES) -> tuple[float, np.ndarray]:
    """One bot's Elo-scale rating from its games against references of fixed ratings,
    and bootstrap draws of it (deals resampled and smoothed as in :func:`rate`).

    Args:
        references: the references' fixed ratings.
        deal_scores: per reference, its pairing's ``[score of the bot, games]`` per deal.
        seed: seeds the bootstrap's generator.
        samples: bootstrap draws.

    Returns:
        The rating and the ``samples`` bootstrap ratings (for a percentile interval, or to
        combine with other fits draw by draw).
    """
    base = [(float(r), np.asarray(d, dtype=float).reshape(-1, 2))
            for r, d in zip(references, deal_scores, strict=True) if len(d)]
    if not base:
        raise ValueError("no games against any reference to rate from")

    def fit(per_ref: list[tuple[float, np.ndarray]]) -> float:
        return fixed_reference_fit([(r, float(d[:, 0].sum()), float(d[:, 1].sum())) for r, d in per_ref])

    point = fit(base)
    rates = [(r, d, _prior_rate(d)) for r, d in base]
    rng = np.random.default_rng([int(seed), 0x6A7])
    boot = np.array([fit([(r, _resample_deals(d, rate_r, rng)) for r, d, rate_r in rates])
                     for _ in range(samples)])
    return point, boot
