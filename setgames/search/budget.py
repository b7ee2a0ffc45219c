"""The budget of one compiled search: re-deals, milliseconds, or both (the first reached stops it)."""

from __future__ import annotations

from typing import Any

from setgames.checks import check_int, check_real

__all__ = ["DEFAULT_Z", "MAX_ITERS", "MAX_MS", "check_budget", "check_infer", "check_z"]

MAX_ITERS = 10_000_000
MAX_MS = 600_000.0  # ten minutes: beyond it a budget is a typo
# Standard errors a move must beat greedy's own by (below ~64 re-deals the best of many noisy
# means is mostly noise: docs/guides/strength.md).
DEFAULT_Z = 1.0


def check_budget(iters: Any, ms: Any) -> tuple[int, float]:
    """``(iters, ms)`` checked: ``iters`` an integer 1..:data:`MAX_ITERS` or None, ``ms`` a
    number in (0, :data:`MAX_MS`] or None, at least one of them given (None becomes 0,
    the search's "no limit of this kind").

    >>> check_budget(None, 100)
    (0, 100.0)
    """
    if iters is None and ms is None:
        raise ValueError("a search needs a budget: iters (re-deals per decision) or ms (time per decision)")
    it = 0 if iters is None else check_int("iters", iters, 1, MAX_ITERS)
    t = 0.0 if ms is None else check_real("ms", ms, 0.0, MAX_MS, lo_open=True)
    return it, t


def check_z(z: Any) -> float:
    """The margin a move must beat the play-out policy's own move by, in standard errors of
    their paired difference over the re-deals: a number in [0, 10] (0: the best mean)."""
    return check_real("z", z, 0.0, 10.0)


def check_infer(infer: Any) -> float:
    """How far a search trusts its model of the others' moves when it weighs its re-deals
    by them: a number in [0, 1] (0: every re-deal kept, no inference)."""
    return check_real("infer", infer, 0.0, 1.0)
