"""Measure the strength ladder (``level:1`` ... ``level:6`` and ``ppo``) with intervals.

Plays each level against the one below it, and ``ppo`` against levels 5
(greedy) and 6 (the search), on every game and config of the ladder
(duplicate deals; the arena), and prints per config the steps (score of the
stronger with its 95% interval, whether it reaches 58%) and the references'
Elo (Bradley-Terry, level 1 = 0) as the ratings of each game's ladder
(``<game>_env/levels.py``, gathered in ``setgames.bots.levels.REFERENCE_ELO``).
The whole ladder at 400 games a step takes about 15 minutes on 2 cores (the
search is compiled).

    python benchmarks/levels.py --games 400 --workers 2
    python benchmarks/levels.py --games 400 --config tusac-4p --json ladder.json
"""

from __future__ import annotations

import argparse
import json
import sys

from setgames.arena.gauntlet import STEP_TARGET, measure_ladder
from setgames.bots.levels import LADDER_VERSION, REFERENCES, bot_title


def markdown(measured: dict) -> str:
    """The steps and the fitted Elo of every config, as Markdown tables."""
    lines = [f"Ladder version {LADDER_VERSION}, seed {measured['seed']}, {measured['games_per_step']} games "
             "a step (rounded up to whole duplicate deals).", ""]
    for entry in measured["configs"]:
        lines += [f"### {entry['config']}", "", "| step | games | score | 95% CI | >= 58% |",
                  "|---|---|---|---|---|"]
        for s in entry["steps"]:
            lo, hi = s["score_ci"] or (0.0, 1.0)
            mark = "yes" if s["score"] >= STEP_TARGET else ("no" if s["ordered"] else "no (not separated)")
            lines.append(f"| {bot_title(s['stronger'])} vs {bot_title(s['weaker'])} | {s['games']} | "
                         f"{100 * s['score']:.1f}% | [{100 * lo:.1f}, {100 * hi:.1f}] | {mark} |")
        lines += ["", f"| reference | Elo ({measured['anchor']} = 0) | 95% CI |", "|---|---|---|"]
        for ref, r in entry["elo"].items():
            lines.append(f"| {bot_title(ref)} | {r['elo']:+.0f} | [{r['low']:+.0f}, {r['high']:+.0f}] |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=400, help="games a step and config (default 400)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--executor", default=None, choices=("serial", "local", "ray"))
    ap.add_argument("--config", action="append", default=None, metavar="KEY",
                    help="only this config (tethsi, bharg-2p, ..., repeatable; default all)")
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--only", default=None, metavar="REFS", help="only these references, comma-separated")
    group.add_argument("--skip", default=None, metavar="REFS", help="all references but these")
    ap.add_argument("--json", default=None, metavar="FILE", help="also save the measurement as JSON")
    args = ap.parse_args(argv)
    refs = list(REFERENCES)
    if args.only:
        refs = [r.strip() for r in args.only.split(",")]
    elif args.skip:
        refs = [r for r in refs if r not in {x.strip() for x in args.skip.split(",")}]
    try:
        measured = measure_ladder(args.games, seed=args.seed, workers=args.workers, executor=args.executor,
                                  references=refs, configs=args.config, progress=True)
    except ValueError as exc:
        print(f"levels.py: error: {exc}", file=sys.stderr)
        return 2
    print(markdown(measured))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({k: v for k, v in measured.items() if k != "timing"}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
