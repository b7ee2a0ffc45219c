"""PNGs of the arena's ratings and of a gauntlet's scores, with their intervals (the ``plot`` extra).

matplotlib is imported only when a plot is asked for, so the library runs
without it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from setgames.registry import game_title

__all__ = ["GAUNTLET_PLOT_FILE", "PLOT_FILE", "plot_gauntlet", "plot_ratings"]

PLOT_FILE = "ratings.png"
GAUNTLET_PLOT_FILE = "gauntlet.png"

# One panel: its title and its rows, each (label, value, low, high), drawn top to bottom.
Panel = tuple[str, Sequence[tuple[str, float, float, float]]]


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("the plot needs matplotlib: pip install -e '.[plot]' in a checkout, "
                          "pip install 'setgames[plot]' from a wheel") from None
    return plt


def _interval_panels(panels: Sequence[Panel], path: str | Path, xlabel: str, mark: float,
                     xlim: tuple[float, float] | None = None) -> Path:
    """Draw one panel per entry, each row a point with its interval, a dotted line at ``mark``."""
    plt = _pyplot()
    cols = min(3, len(panels))  # three panels a row: six configs stay readable on a page
    lines = -(-len(panels) // cols)
    fig, axes = plt.subplots(lines, cols, figsize=(4.2 * cols, 3.2 * lines), squeeze=False)
    flat = list(axes.flat)
    for ax in flat[len(panels):]:
        ax.set_visible(False)
    for ax, (title, rows) in zip(flat, panels, strict=False):
        rows = list(reversed(rows))
        ys = list(range(len(rows)))
        err = [[r[1] - r[2] for r in rows], [r[3] - r[1] for r in rows]]
        ax.errorbar([r[1] for r in rows], ys, xerr=err, fmt="o", capsize=4)
        ax.set_yticks(ys, [r[0] for r in rows])
        ax.axvline(mark, color="grey", lw=0.8, ls=":")
        if xlim is not None:
            ax.set_xlim(*xlim)
        ax.set_title(title)
        ax.set_xlabel(xlabel)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_ratings(results: dict[str, Any], path: str | Path) -> Path:
    """Draw one panel per game: each bot's rating with its 95% interval.

    Raises:
        ImportError: matplotlib is not installed (``pip install -e '.[plot]'`` in a checkout).
    """
    panels = [(game_title(arena["game"]), [(r["bot"], r["elo"], r["low"], r["high"])
                                           for r in arena["ratings"]])
              for arena in results["arenas"]]
    return _interval_panels(panels, path, "rating (Elo scale, 95% CI)", 0.0)


def plot_gauntlet(report: dict[str, Any], path: str | Path) -> Path:
    """Draw one panel per config of a gauntlet report: the bot's score against each
    reference with its 95% interval (references without games are left out).

    Raises:
        ImportError: matplotlib is not installed.
    """
    panels = []
    for entry in report["configs"]:
        rows = [(r["title"], r["score"], r["score_ci"][0], r["score_ci"][1])
                for r in entry["references"] if r["games"]]
        rating = entry["rating"]
        title = f"{game_title(entry['game'])}, {entry['players']} players"
        if rating is not None:
            title += f": {rating['rating']:.0f}"
        panels.append((title, rows))
    return _interval_panels(panels, path, f"score of {report['bot']['label']} (95% CI)", 0.5, (0.0, 1.0))
