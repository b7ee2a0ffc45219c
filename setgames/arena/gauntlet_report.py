"""A gauntlet report as Markdown (``gauntlet.md``), and its files saved together.

The Markdown adds the wall-clock figures (time per decision) to what
``gauntlet.json`` holds, so it is the one file of a report that differs from
machine to machine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from setgames.registry import game_title

__all__ = ["GAUNTLET_MARKDOWN", "format_gauntlet", "save_report"]

GAUNTLET_MARKDOWN = "gauntlet.md"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def _rating(r: dict[str, float] | None) -> str:
    return "-" if r is None else f"{r['rating']:.0f} [{r['low']:.0f}, {r['high']:.0f}]"


def _ms(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.0f}" if x >= 100 else f"{x:.3g}"  # three figures, never an exponent


def format_gauntlet(report: dict[str, Any]) -> str:
    """The report as Markdown: the rating, per config the scores against each reference,
    forfeits and (when the report still holds the run's ``timing``) time per decision."""
    label = report["bot"]["label"]
    lines = [f"# Gauntlet: {label}", ""]
    games = report["games_per_config"]
    lines.append(f"Ladder version {report['ladder_version']}, seed set {report['seed_set']} "
                 f"(master seed {report['seed']}), {games} games against each reference in each config "
                 "(rounded up to whole duplicate deals).")
    if report["partial"]:
        lines.append("")
        lines.append("**Partial**: not every reference or config was played; this rating does not "
                     "compare with a full gauntlet's.")
    if report["interrupted"]:
        lines.append("")
        lines.append("**Interrupted**: these figures cover only the games finished before the stop.")
    lines += ["", f"**Rating: {_rating(report['rating'])}** (95% interval) on the anchored scale: "
              "random (level 1) = 0, greedy (level 5) = 1000 in every config.", ""]
    forfeits = report["forfeits"]
    total = sum(forfeits.values())
    why = ", ".join(f"{reason} {count}" for reason, count in forfeits.items())
    lines.append(f"Forfeits: {total}" + (f" ({why})" if why else "") + ".")
    lines.append("")
    lines.append("| config | rating (95% CI) | Elo | forfeits |")
    lines.append("|---|---|---|---|")
    for entry in report["configs"]:
        elo = "-" if entry["elo"] is None else f"{entry['elo']:+.0f}"
        lines.append(f"| {entry['config']} | {_rating(entry['rating'])} | {elo} | "
                     f"{sum(entry['forfeits'].values())} |")
    for entry in report["configs"]:
        lines += ["", f"## {game_title(entry['game'])}, {entry['players']} players ({entry['config']}, "
                      f"v{entry['version']})", ""]
        lines.append("| reference | its rating | games | wins | draws | losses | score | 95% CI |")
        lines.append("|---|---|---|---|---|---|---|---|")
        for r in entry["references"]:
            ci = r["score_ci"]
            ci_text = "-" if ci is None else f"[{_pct(ci[0])}, {_pct(ci[1])}]"
            lines.append(f"| {r['title']} | {r['rating']:.0f} | {r['games']} | {r['wins']} | {r['draws']} | "
                         f"{r['losses']} | {_pct(r['score'])} | {ci_text} |")
        others = entry["reference_forfeits"]
        if entry["forfeits"] or others:
            mine = ", ".join(f"{k} {v}" for k, v in entry["forfeits"].items()) or "none"
            lines += ["", f"Forfeits of {label}: {mine}."]
            for ref, reasons in others.items():
                lines.append(f"Forfeits of {ref}: {', '.join(f'{k} {v}' for k, v in reasons.items())}.")
        if entry["flagged"]:
            lines += ["", f"{label} went over its time {entry['flagged']} time(s) (flagged only)."]
    timing = report.get("timing", {}).get("per_game")
    if timing:
        lines += ["", "## Time per decision", "", "| game | bot | decisions | median ms | p99 ms |",
                  "|---|---|---|---|---|"]
        for game_name, bots in timing.items():
            for bot, row in bots.items():
                lines.append(f"| {game_title(game_name)} | {bot} | {row['moves']} | "
                             f"{_ms(row.get('median_ms'))} | {_ms(row.get('p99_ms'))} |")
        lines += ["", f"Wall time {report['timing']['wall_seconds']:.1f} s for {report['timing']['games']} "
                      "games (machine-dependent, so kept out of gauntlet.json)."]
    lines += ["", "How to read this: each pairing plays the same deals with the seats swapped (duplicate "
                  "deals), so luck cancels; a score is wins plus half the draws. Per config the rating is "
                  "the Elo-scale fit of the scores against the references' fixed ratings (the ladder's "
                  "table), put on the anchored scale; the overall rating is the mean over the configs. "
                  "Two reports of the same ladder version compare."]
    return "\n".join(lines) + "\n"


def save_report(report: dict[str, Any], out: str | Path, plot: bool = True) -> list[Path]:
    """Write ``gauntlet.md`` (and ``gauntlet.png`` with ``plot``) next to ``gauntlet.json``;
    the paths written.

    Raises:
        ImportError: ``plot`` without matplotlib (the Markdown is written first).
    """
    out = Path(out)
    path = out / GAUNTLET_MARKDOWN
    path.write_text(format_gauntlet(report))
    written = [path]
    if plot:
        from setgames.arena.plot import GAUNTLET_PLOT_FILE, plot_gauntlet

        written.append(plot_gauntlet(report, out / GAUNTLET_PLOT_FILE))
    return written
