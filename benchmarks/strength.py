"""The strength table: every top bot against greedy on every game and config, from fresh seeds.

One command regenerates the table the README and ``docs/guides/strength.md`` show::

    python benchmarks/strength.py --workers 2            # about 30 minutes on 2 cores

Each row is an arena of duplicate deals with the number of games fixed before
the run (``--games``, default 2,000 a config: 95% intervals of about +-2
points), on the seed set ``--seed`` (change it for fresh deals). The search
row also gives the time per decision. ``--equal-time`` adds the compiled
search against the Python ISMCTS at the same time per move (smaller:
ISMCTS spends 100 ms a move). ``--curve CONFIG`` measures the search's
score against its budget instead (``--json`` saves it, ``--write-curve`` puts
saved curves into the docs page). ``--write`` puts the table into the README
(between its ``strength-table`` markers) and into the docs page.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import tempfile

from setgames.arena import ArenaGame, run_arena
from setgames.registry import make_game
from setgames.search import extra_specs

ROOT = pathlib.Path(__file__).resolve().parent.parent
CONFIGS = (("Tet Hsi", "tethsi", {}), ("Bharg 2p", "bharg", {"num_players": 2}),
           ("Bharg 3p", "bharg", {"num_players": 3}), ("Tu Sac 2p", "tusac", {"num_players": 2}),
           ("Tu Sac 3p", "tusac", {"num_players": 3}), ("Tu Sac 4p", "tusac", {"num_players": 4}))
BOTS = ("search", "ppo")                       # each against greedy
EQUAL_TIME = ("search:ms=100", "ismcts")       # the Python ISMCTS's default budget: ~100-150 ms a move
MARK = "strength-table"
CURVE_MARK = "curve-table"


def extra_bots(name: str, config: dict) -> tuple[str, ...]:
    """The bots a config adds against greedy: what its game's compiled search offers beside the
    plain search (Tet Hsi's inferring search, :func:`setgames.search.extra_specs`)."""
    return extra_specs(make_game(name, **config))


def _pairing(label: str, name: str, config: dict, bots: list[str], games: int, seed: int,
             workers: int) -> dict:
    with tempfile.TemporaryDirectory() as out:
        res = run_arena([ArenaGame.of(name, **config)], bots, games_per_pairing=games, seed=seed,
                        workers=workers, out=out, progress=False)
        timing = json.loads((pathlib.Path(out) / "timing.json").read_text())
    if res.get("interrupted"):  # a row must hold the game count fixed before the run, all of it
        raise SystemExit(f"{label}: {' vs '.join(bots)} was interrupted; no row written")
    arena = res["arenas"][0]
    p = arena["pairings"][0]
    per = timing["per_game"][name]
    return {"config": label, "a": p["bot_a"], "b": p["bot_b"], "games": p["games"], "score": p["score_a"],
            "ci": p["score_a_ci"], "forfeits": arena["forfeits"],
            "median_ms": per[p["bot_a"]]["median_ms"], "p99_ms": per[p["bot_a"]]["p99_ms"]}


def measure(games: int, seed: int, workers: int, equal_time_games: int,
            only: list[str] | None = None, bots: list[str] | None = None) -> list[dict]:
    """The rows of the table (the arenas run here): every config's, or those named in ``only``;
    every bot of :data:`BOTS` (and the config's :func:`extra_bots`) against greedy, or those named in
    ``bots``."""
    rows = []
    for label, name, config in CONFIGS:
        if only and label not in only:
            continue
        for bot in [b for b in (*BOTS, *extra_bots(name, config)) if not bots or b in bots]:
            rows.append(_pairing(label, name, config, [bot, "greedy"], games, seed, workers))
            print(_line(rows[-1]), flush=True)
    if equal_time_games:
        for label, name, config in CONFIGS[:2]:
            if only and label not in only:
                continue
            rows.append(_pairing(label, name, config, list(EQUAL_TIME), equal_time_games, seed, workers))
            print(_line(rows[-1]), flush=True)
    return rows


CURVE_ITERS = (16, 64, 256, 1024, 4096)


def curve(label: str, games: int, seed: int, workers: int) -> list[dict]:
    """The search's score against greedy at each budget of :data:`CURVE_ITERS` on config ``label``."""
    _, name, config = next(c for c in CONFIGS if c[0] == label)
    rows = []
    for iters in CURVE_ITERS:
        rows.append(_pairing(label, name, config, [f"search:iters={iters}", "greedy"], games, seed, workers))
        print(_line(rows[-1]), flush=True)
    return rows


def _line(r: dict) -> str:
    lo, hi = r["ci"]
    score = f"{100 * r['score']:.1f}% | [{100 * lo:.1f}, {100 * hi:.1f}]"
    return (f"| {r['config']} | {r['a']} vs {r['b']} | {score} | {r['games']:,} "
            f"| {r['median_ms']:.2f} / {r['p99_ms']:.1f} |")


def table(rows: list[dict], seed: int, made_by: str = "--write") -> str:
    """The Markdown table of ``rows`` (``made_by``: the options of the command that makes it)."""
    head = ["| config | pairing | score | 95% interval | games | A's ms per decision (median / p99) |",
            "|---|---|--:|---|--:|---|"]
    foot = (f"\nDuplicate deals, seed set {seed}; score = wins + half the draws. Made by "
            f"`python benchmarks/strength.py {made_by}`.")
    return "\n".join(head + [_line(r) for r in rows]) + "\n" + foot


def write(text: str, mark: str = MARK, readme: bool = True) -> None:
    """Put ``text`` between the ``mark`` markers of the docs page (and of the README)."""
    paths = [ROOT / "docs" / "guides" / "strength.md"] + ([ROOT / "README.md"] if readme else [])
    for path in paths:
        doc = path.read_text()
        pattern = re.compile(rf"(<!-- {mark} -->\n).*?(<!-- /{mark} -->)", re.S)
        if not pattern.search(doc):
            raise SystemExit(f"{path} has no <!-- {mark} --> ... <!-- /{mark} --> block")
        path.write_text(pattern.sub(lambda m: m.group(1) + text + "\n" + m.group(2), doc))


def main(argv: list[str] | None = None) -> None:
    """Run the arenas, print the table, and with ``--write`` update the README and the docs."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=2000, help="games per config and pairing (default 2000)")
    ap.add_argument("--equal-time", type=int, default=0, metavar="N",
                    help="also N games of search:ms=100 vs ismcts on Tet Hsi and Bharg 2p")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--write", action="store_true", help="update the README and docs/guides/strength.md")
    ap.add_argument("--json", type=pathlib.Path, help="also save the rows as JSON")
    ap.add_argument("--only", action="append", metavar="CONFIG", help="measure only this config (repeatable; "
                    f"one of {', '.join(c[0] for c in CONFIGS)})")
    ap.add_argument("--write-curve", nargs="+", type=pathlib.Path, metavar="JSON",
                    help="put the curves saved by --curve --json into the docs page's curve table")
    every_bot = sorted({*BOTS, *(b for _, name, config in CONFIGS for b in extra_bots(name, config))})
    ap.add_argument("--bot", action="append", choices=every_bot, help="measure only this bot against greedy "
                    "(repeatable)")
    ap.add_argument("--rows-from", nargs="+", type=pathlib.Path, metavar="JSON",
                    help="build the table from rows saved by --json instead of measuring")
    ap.add_argument("--curve", metavar="CONFIG", help="instead: the search's score against greedy at budgets "
                    f"{', '.join(map(str, CURVE_ITERS))} re-deals on this config")
    args = ap.parse_args(argv)
    if args.curve:
        rows = curve(args.curve, args.games, args.seed, args.workers)
        print(table(rows, args.seed))
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1))
        return
    if args.write_curve:
        rows = [r for path in args.write_curve for r in json.loads(path.read_text())]
        made_by = " and ".join(f'--curve "{c}" --json' for c in dict.fromkeys(r["config"] for r in rows))
        write(table(rows, args.seed, made_by + ", then --write-curve"), CURVE_MARK, readme=False)
        return
    if args.rows_from:
        rows = [r for path in args.rows_from for r in json.loads(path.read_text())]
    else:
        rows = measure(args.games, args.seed, args.workers, args.equal_time, args.only, args.bot)
    equal = [r["games"] for r in rows if r["a"].startswith("search:ms")]
    text = table(rows, args.seed, (f"--equal-time {equal[0]} " if equal else "") + "--write")
    print(text)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    if args.write:
        write(text)


if __name__ == "__main__":
    main()
