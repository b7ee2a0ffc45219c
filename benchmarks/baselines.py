"""The baselines table: standard learners on every config and observation mode, one budget.

One command trains, for the same number of environment steps, each method on each config and
observation mode the game offers, then plays every trained policy in the arena against random
and against greedy on duplicate deals from fresh seeds (the number of games fixed before the
run), and writes the Baselines page of the docs (table and learning curves)::

    python benchmarks/baselines.py --steps 2000000 --games 2000 --write     # hours on 2 cores
    python benchmarks/baselines.py --configs bharg2 --methods ppo,dmc --steps 200000 --games 200

Methods (no prior, no teacher, no search, each with its library's defaults but the budget):

- ``ppo``: ``setgames train GAME`` (the library's PPO on the observation of the mode),
  curriculum ``random:0.1,greedy``;
- ``dmc``: ``setgames train GAME --algo dmc`` (Deep Monte-Carlo over the per-action features and
  the observation of the mode), the same curriculum;
- ``dmc_attention``: the same with ``--net attention`` (an attention encoder over the event rows
  before Q), on the ``history`` mode only;
- ``maskable_ppo``: sb3-contrib's ``MaskablePPO("MlpPolicy", ...)`` with SB3's defaults on the
  batch's SB3 view (:class:`setgames.batch.sb3_vec.BatchVecEnv`, 16 slots, greedy opponents);
  needs the ``sb3`` extra, skipped (said aloud) without it.

Each run's curve is its score against greedy at a few points of its budget (the same arena,
``--curve-games`` games on one seed); the table's scores are the end of training, on a seed no
curve used. Every row also gives how often the policy plays greedy's move (its agreement, over
the learner's positions in its games against greedy): a learned policy that only copies the
heuristic ties with it. Results go to ``--out`` (``results.json``, one folder per run);
``--write`` puts the table between the ``baselines-table`` markers of ``docs/baselines.md`` and
the curves in ``docs/img/baselines/``.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys
import time
from typing import Any

import numpy as np

from setgames.arena import ArenaGame, BotSpec, run_arena
from setgames.bots.registry import make_bot
from setgames.game import rng_from_seed
from setgames.registry import make_game

ROOT = pathlib.Path(__file__).resolve().parent.parent
CONFIGS = {"tethsi": ("Tet Hsi", "tethsi", {}), "bharg2": ("Bharg 2p", "bharg", {"num_players": 2}),
           "bharg3": ("Bharg 3p", "bharg", {"num_players": 3}),
           "tusac2": ("Tu Sac 2p", "tusac", {"num_players": 2}),
           "tusac4": ("Tu Sac 4p", "tusac", {"num_players": 4})}
METHODS = ("ppo", "dmc", "dmc_attention", "maskable_ppo")
CURRICULUM = "random:0.1,greedy"
CURVE_POINTS = 5  # evaluations along each run's budget
MARK = "baselines-table"
PAGE = ROOT / "docs" / "baselines.md"
IMG = ROOT / "docs" / "img" / "baselines"


def modes_of(name: str, config: dict) -> tuple[str, ...]:
    """The observation modes the config's game offers."""
    return tuple(getattr(make_game(name, **config), "obs_specs", None) or {"cards": None})


def _score(res: dict) -> dict[str, Any]:
    if res.get("interrupted"):  # a row must hold the game count fixed before the run, all of it
        raise SystemExit("an arena was interrupted; no row written")
    p = res["arenas"][0]["pairings"][0]
    return {"games": p["games"], "score": p["score_a"], "low": p["score_a_ci"][0], "high": p["score_a_ci"][1]}


def arena(spec: BotSpec, name: str, config: dict, against: str, games: int, seed: int,
          workers: int) -> dict[str, Any]:
    """``spec`` against ``against`` on duplicate deals: its score and 95% interval."""
    res = run_arena([ArenaGame.of(name, **config)], [spec, BotSpec.parse(against)], games_per_pairing=games,
                    seed=seed, workers=workers, progress=False, pairings=[(0, 1)])
    return _score(res)


def agreement(spec: BotSpec, name: str, config: dict, positions: int, seed: int) -> float:
    """How often the policy plays greedy's move, over its positions in games against greedy."""
    game = make_game(name, **config)
    bot = spec.factory(name, seed, **dict(spec.options)) if spec.factory else make_bot(
        spec.name, name, seed, **dict(spec.options))
    seen = same = 0
    g = 0
    while seen < positions:
        state = game.new_state(rng_from_seed(seed * 7919 + g))
        learner = g % game.num_players
        greedy = [make_bot("greedy", name, seed + s) for s in range(game.num_players)]
        while not game.is_over(state) and seen < positions:
            seat = game.current_seat(state)
            move = greedy[seat].act(game, state, seat)
            if seat == learner:
                mine = bot.act(game, state, seat)
                same += mine == move
                seen += 1
                move = mine
            game.apply(state, move)
        g += 1
    return same / seen


def _eval_points(steps: int, per_update: int) -> int:
    """eval_every (in updates) that gives about :data:`CURVE_POINTS` evaluations."""
    return max(1, steps // per_update // CURVE_POINTS)


def train_ours(method: str, name: str, config: dict, steps: int, seed: int, out: pathlib.Path,
               curve_games: int) -> tuple[BotSpec, list[tuple[int, dict]]]:
    """The library's PPO or DMC for ``steps``; its bot spec and its curve (steps, score vs greedy)."""
    import csv

    if method == "ppo":
        from setgames.learn.ppo import TrainConfig, train

        cfg = TrainConfig(game=name, config=config, steps=steps, seed=seed, curriculum=CURRICULUM,
                          eval_games=curve_games, out=str(out), progress=False)
        cfg.eval_every = _eval_points(steps, cfg.num_envs * cfg.rollout)
        s = train(cfg)
        spec = BotSpec("ppo", "ppo", (("weights", s["weights"]),))
    else:
        from setgames.learn.dmc import DmcConfig, train_dmc

        cfg_d = DmcConfig(game=name, config=config, steps=steps, seed=seed, curriculum=CURRICULUM,
                          eval_games=curve_games, out=str(out), progress=False,
                          net="attention" if method == "dmc_attention" else "mlp")
        cfg_d.eval_every = _eval_points(steps, cfg_d.num_envs * cfg_d.rollout)
        s = train_dmc(cfg_d)
        spec = BotSpec("dmc", "dmc", (("weights", s["weights"]),))
    with (out / "curve.csv").open() as fh:
        curve = [(int(r["env_steps"]), {"score": float(r["eval_score"]), "low": float(r["eval_low"]),
                                         "high": float(r["eval_high"])})
                 for r in csv.DictReader(fh) if r["eval_score"]]
    return spec, curve


def train_maskable(name: str, config: dict, steps: int, seed: int, out: pathlib.Path, curve_games: int,
                   workers: int) -> tuple[BotSpec, list[tuple[int, dict]]]:
    """sb3-contrib's MaskablePPO with SB3's defaults on the batch's SB3 view, checkpointed along the way."""
    from sb3_contrib import MaskablePPO

    from setgames.batch.sb3_vec import BatchVecEnv
    from setgames.wrappers.sb3 import maskable_ppo_bot

    venv = BatchVecEnv(name, num_envs=16, opponents="greedy", learner_seat="rotate", seed=seed, **config)
    model = MaskablePPO("MlpPolicy", venv, seed=seed, device="cpu", verbose=0)
    curve = []
    chunk = max(1, steps // CURVE_POINTS)
    done = 0
    path = out / "model.zip"
    out.mkdir(parents=True, exist_ok=True)
    while done < steps:
        n = min(chunk, steps - done)
        model.learn(n, reset_num_timesteps=False)
        done += n
        model.save(path)
        spec = BotSpec("maskable_ppo", "maskable_ppo", (("path", str(path)),), factory=maskable_ppo_bot)
        curve.append((done, arena(spec, name, config, "greedy", curve_games, seed + 7, workers)))
    return BotSpec("maskable_ppo", "maskable_ppo", (("path", str(path)),), factory=maskable_ppo_bot), curve


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every (config, mode, method) run of ``args``: train, curve, final arenas and agreement."""
    rows = []
    out = pathlib.Path(args.out)
    for key in args.configs:
        label, name, config = CONFIGS[key]
        for mode in args.modes or modes_of(name, config):
            if mode not in modes_of(name, config):
                print(f"{label}: no mode {mode!r}; skipped", file=sys.stderr)
                continue
            cfg = {**config, "obs": mode} if mode != "cards" else dict(config)
            for method in args.methods:
                if method.startswith("dmc") and make_game(name, **cfg).action_spec is None:
                    print(f"{label} {mode}: no per-action features; {method} skipped", file=sys.stderr)
                    continue
                if method == "dmc_attention" and mode != "history":
                    continue  # (the encoder reads the history mode's event rows)
                if method == "maskable_ppo":
                    try:
                        import sb3_contrib  # noqa: F401
                    except ImportError:
                        print("maskable_ppo needs the sb3 extra (pip install -e '.[sb3]'); skipped",
                              file=sys.stderr)
                        continue
                where = out / f"{key}-{mode}-{method}"
                tick = time.perf_counter()
                if method == "maskable_ppo":
                    spec, curve = train_maskable(name, cfg, args.steps, args.seed, where, args.curve_games,
                                                 args.workers)
                else:
                    spec, curve = train_ours(method, name, cfg, args.steps, args.seed, where,
                                             args.curve_games)
                train_s = time.perf_counter() - tick
                fresh = args.seed + 1000  # deals no curve point saw
                row = {"config": label, "key": key, "mode": mode, "method": method, "steps": args.steps,
                       "train_s": round(train_s, 1), "curve": curve,
                       "vs_random": arena(spec, name, cfg, "random", args.games, fresh, args.workers),
                       "vs_greedy": arena(spec, name, cfg, "greedy", args.games, fresh + 1, args.workers),
                       "agreement": round(agreement(spec, name, cfg, args.positions, fresh + 2), 4)}
                rows.append(row)
                g = row["vs_greedy"]
                print(f"{label:10} {mode:10} {method:13} vs greedy {g['score']:.3f} [{g['low']:.3f}, "
                      f"{g['high']:.3f}]  agreement {row['agreement']:.2f}  ({train_s:.0f} s)", flush=True)
                (out / "results.json").write_text(json.dumps(rows, indent=1) + "\n")
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    """The Markdown table: one row per config, mode and method."""
    def cell(r: dict) -> str:
        return f"{r['score']:.3f} [{r['low']:.3f}, {r['high']:.3f}]"

    lines = ["| config | mode | method | step budget | vs random [95%] | vs greedy [95%] "
             "| plays greedy's move | train time |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['config']} | {r['mode']} | {r['method']} | {r['steps']:,} "
                     f"| {cell(r['vs_random'])} | {cell(r['vs_greedy'])} | {r['agreement']:.1%} "
                     f"| {r['train_s']:.0f} s |")
    games = {r["vs_greedy"]["games"] for r in rows}
    lines.append(f"\nArena games per cell: {', '.join(f'{g:,}' for g in sorted(games))} (duplicate deals; "
                 "score = wins + half the draws).")
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]], folder: pathlib.Path, section: str = "") -> list[pathlib.Path]:
    """One picture per config: score against greedy over the steps, a line per mode and method
    (named ``KEY.png``, or ``KEY-SECTION.png`` for a section of the page other than the main table)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for key in dict.fromkeys(r["key"] for r in rows):
        mine = [r for r in rows if r["key"] == key]
        fig, ax = plt.subplots(figsize=(7, 4))
        budgets = len({r["steps"] for r in mine})
        for r in mine:
            xs = [s for s, _ in r["curve"]]
            ys = np.array([p["score"] for _, p in r["curve"]])
            err = np.array([[p["score"] - p["low"] for _, p in r["curve"]],
                            [p["high"] - p["score"] for _, p in r["curve"]]])
            label = f"{r['method']} ({r['mode']})" + (f", {r['steps']:,} steps" if budgets > 1 else "")
            ax.errorbar(xs, ys, yerr=err, fmt="o-", capsize=3, label=label)
        ax.axhline(0.5, color="grey", lw=0.5)
        if budgets > 1:  # a longer run beside the common budget: both readable
            ax.set_xscale("log")
        ax.set_ylim(0, 1)
        ax.set_xlabel("env steps")
        ax.set_ylabel("score vs greedy (95% interval)")
        ax.set_title(f"{mine[0]['config']}: learning curves against greedy")
        ax.legend(fontsize=8, loc="upper left")  # scores against greedy sit low: the top left is free
        fig.tight_layout()
        path = folder / (f"{key}-{section}.png" if section else f"{key}.png")
        fig.savefig(path, dpi=80)
        plt.close(fig)
        written.append(path)
    return written


def write_page(rows: list[dict[str, Any]], page: pathlib.Path, pictures: list[pathlib.Path],
               section: str = "") -> None:
    """The table between the page's markers (``baselines-table``, or ``baselines-table:SECTION``
    for another section) and a picture per config after it."""
    text = page.read_text(encoding="utf-8")
    mark = f"{MARK}:{section}" if section else MARK
    figs = "\n\n".join(f"![{p.stem}](img/baselines/{p.name})" for p in pictures)
    block = f"<!-- {mark}:begin -->\n{table(rows)}\n\n{figs}\n<!-- {mark}:end -->"
    new, n = re.subn(rf"<!-- {re.escape(mark)}:begin -->.*?<!-- {re.escape(mark)}:end -->",
                     block.replace("\\", "\\\\"), text, flags=re.S)
    if n != 1:
        raise SystemExit(f"{page} has no {mark} markers")
    page.write_text(new, encoding="utf-8")


def main() -> None:
    """Parse the options, run, print the table (and write the page with ``--write``)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--configs", default=",".join(CONFIGS), help=f"comma list of {', '.join(CONFIGS)}")
    p.add_argument("--modes", default="", help="comma list of modes (default: every mode a game offers)")
    p.add_argument("--methods", default=",".join(METHODS), help=f"comma list of {', '.join(METHODS)}")
    p.add_argument("--steps", type=int, default=2_000_000, help="env steps of every run (the one budget)")
    p.add_argument("--games", type=int, default=2000, help="arena games of each final score")
    p.add_argument("--curve-games", type=int, default=200, help="arena games of each curve point")
    p.add_argument("--positions", type=int, default=2000, help="positions of the greedy agreement")
    p.add_argument("--seed", type=int, default=11, help="training seed; the arenas' seeds follow from it")
    p.add_argument("--workers", type=int, default=2, help="arena worker processes")
    p.add_argument("--out", default="runs/baselines")
    p.add_argument("--write", action="store_true", help="write docs/baselines.md and its pictures")
    p.add_argument("--from", dest="saved", action="append", default=[], metavar="RESULTS",
                   help="train nothing: the rows of these results.json files (repeatable), e.g. runs of "
                        "a few configs each on several machines")
    p.add_argument("--section", default="", metavar="NAME",
                   help="with --write: fill the page's baselines-table:NAME markers (pictures KEY-NAME.png) "
                        "instead of the main table, e.g. longer runs of a few configs")
    args = p.parse_args()
    args.configs = [c for c in args.configs.split(",") if c]
    args.methods = [m for m in args.methods.split(",") if m]
    args.modes = [m for m in args.modes.split(",") if m]
    for c in args.configs:
        if c not in CONFIGS:
            p.error(f"unknown config {c!r}; choose from {', '.join(CONFIGS)}")
    for m in args.methods:
        if m not in METHODS:
            p.error(f"unknown method {m!r}; choose from {', '.join(METHODS)}")
    if args.saved:
        rows = [r for path in args.saved for r in json.loads(pathlib.Path(path).read_text())]
        order = list(CONFIGS)
        rows.sort(key=lambda r: (order.index(r["key"]), r["mode"], METHODS.index(r["method"])))
    else:
        rows = run(args)
    print(table(rows))
    if args.write and rows:
        write_page(rows, PAGE, plot(rows, IMG, args.section), args.section)
        print(f"wrote {PAGE.relative_to(ROOT)} and {IMG.relative_to(ROOT)}/")


if __name__ == "__main__":
    main()
