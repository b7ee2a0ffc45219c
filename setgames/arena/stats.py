"""Confidence intervals for arena results, with the deal as the unit.

Games played on the same deal (a duplicate set: the same seed with the seats
permuted) are not independent: the deal decides much of the result. So a
pairing's score is first averaged within each deal, and the interval is taken
over the per-deal means, which are independent (each deal has its own seed).

The interval is Student's t on the per-deal means, clipped to the range of
the quantity. When every deal gave the same score (zero spread, e.g. one bot
won every game) t collapses to a point, so the Wilson score interval over the
number of deals is used instead: an honest width for a small sample.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["Interval", "mean_interval", "t_quantile", "wilson_interval"]

_Z975 = 1.959963984540054
_T975_SMALL = {1: 12.706204736, 2: 4.302652730, 3: 3.182446305, 4: 2.776445105,
               5: 2.570581836, 6: 2.446911851, 7: 2.364624252, 8: 2.306004135,
               9: 2.262157163, 10: 2.228138852}  # two-sided 95% Student t, by degrees of freedom


class Interval(tuple):
    """``(low, high)`` of a 95% confidence interval."""

    __slots__ = ()

    def __new__(cls, low: float, high: float) -> Interval:
        return super().__new__(cls, (float(low), float(high)))

    @property
    def low(self) -> float:
        """Lower bound."""
        return self[0]

    @property
    def high(self) -> float:
        """Upper bound."""
        return self[1]

    def excludes(self, value: float) -> bool:
        """True when ``value`` lies outside the interval."""
        return value < self[0] or value > self[1]


def t_quantile(df: int) -> float:
    """97.5% quantile of Student's t with ``df`` degrees of freedom.

    Exact (to 9 digits) up to 10, then the Cornish-Fisher expansion, which
    is within 1e-4 beyond that.

    >>> round(t_quantile(5), 3), round(t_quantile(30), 3), round(t_quantile(10**6), 3)
    (2.571, 2.042, 1.96)
    """
    if df < 1:
        raise ValueError(f"degrees of freedom {df!r} must be >= 1")
    if df in _T975_SMALL:
        return _T975_SMALL[df]
    z = _Z975
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    return z + g1 / df + g2 / df**2 + g3 / df**3


def wilson_interval(p: float, n: int) -> Interval:
    """95% Wilson score interval of a proportion ``p`` observed over ``n`` trials.

    >>> [round(x, 3) for x in wilson_interval(1.0, 10)]
    [0.722, 1.0]
    """
    if n <= 0:
        return Interval(0.0, 1.0)
    z2 = _Z975**2
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = _Z975 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return Interval(max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(values: Sequence[float], low: float = -math.inf, high: float = math.inf,
                  proportion: bool = False) -> Interval:
    """95% interval of the mean of independent ``values`` (per-deal means).

    Student's t, clipped to ``[low, high]``. With ``proportion`` (values in
    [0, 1]) and zero spread, the Wilson interval over ``len(values)`` is used.
    With fewer than two values the interval is the whole range.

    >>> [round(x, 3) for x in mean_interval([0.5, 0.5, 1.0, 0.0], 0, 1, proportion=True)]
    [0.0, 1.0]
    >>> [round(x, 3) for x in mean_interval([1.0] * 6, 0, 1, proportion=True)]
    [0.61, 1.0]
    """
    n = len(values)
    if n < 2:
        if proportion:
            return wilson_interval(float(values[0]), 1) if n else Interval(0.0, 1.0)
        return Interval(low, high)
    m = math.fsum(values) / n
    var = math.fsum((v - m) ** 2 for v in values) / (n - 1)
    if var <= 1e-15 and proportion:
        return wilson_interval(m, n)
    half = t_quantile(n - 1) * math.sqrt(var / n)
    return Interval(max(low, m - half), min(high, m + half))
