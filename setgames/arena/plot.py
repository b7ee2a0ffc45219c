"""PNG of the arena ratings with their intervals (needs the ``plot`` extra).

matplotlib is imported only when a plot is asked for, so the library runs
without it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from setgames.registry import game_title

__all__ = ["PLOT_FILE", "plot_ratings"]

PLOT_FILE = "ratings.png"


def plot_ratings(results: dict[str, Any], path: str | Path) -> Path:
    """Draw one panel per game: each bot's rating with its 95% interval.

    Raises:
        ImportError: matplotlib is not installed (``pip install -e '.[plot]'`` in a checkout).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("the plot needs matplotlib: pip install -e '.[plot]' in a checkout, "
                          "pip install 'setgames[plot]' from a wheel") from None
    arenas = results["arenas"]
    fig, axes = plt.subplots(1, len(arenas), figsize=(4.2 * len(arenas), 3.2), squeeze=False)
    for ax, arena in zip(axes[0], arenas, strict=True):
        rows = list(reversed(arena["ratings"]))
        ys = range(len(rows))
        elo = [r["elo"] for r in rows]
        err = [[r["elo"] - r["low"] for r in rows], [r["high"] - r["elo"] for r in rows]]
        ax.errorbar(elo, list(ys), xerr=err, fmt="o", capsize=4)
        ax.set_yticks(list(ys), [r["bot"] for r in rows])
        ax.axvline(0.0, color="grey", lw=0.8, ls=":")
        ax.set_title(game_title(arena["game"]))
        ax.set_xlabel("rating (Elo scale, 95% CI)")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
