"""Throughput benchmarks, side by side with the peers, in one command.

``python -m setgames.bench`` (or ``setgames bench``, or
``python benchmarks/run.py``) measures in one run, for each of our games
(Bharg and Tu Sac at each player count): the rules layer alone, the rules
with observations, ``raw_env``, ``env()`` and a null env with the same
spaces; then the installed peers (PettingZoo classic, OpenSpiel gin_rummy,
pgx sparrow_mahjong); and the kernels with their brute-force oracles. It
writes JSON, Markdown and a PNG chart, and checks the targets of issues #2,
#8 and #17 (the batched engines, ``--only batch``: :mod:`~setgames.bench.batch`).

Modules: :mod:`~setgames.bench.sampler` (the shared random legal policy),
:mod:`~setgames.bench.null_env`, :mod:`~setgames.bench.envs`,
:mod:`~setgames.bench.peers`, :mod:`~setgames.bench.kernels`,
:mod:`~setgames.bench.report`.
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any, NoReturn

__all__ = ["PARTS", "TARGETS", "check_targets", "collect", "default_out_dir", "main"]

# Issue #8 (ratios in the same run) and issue #2 (kernels, one core).
TARGETS = {
    "raw_env_x_null": {"tethsi": 0.4, "bharg": 0.4, "tusac": 0.25},
    "raw_env_x_openspiel": 1.0,
    "env_x_raw_env": 0.7,
    "tusac_min_trash_batch_hands_per_s": 20e6,  # at B = 100,000
    "tusac_min_trash_scalar_us": 2.0,  # per 20-card hand
    "bharg_all_bound_batch_hands_per_s": 2e6,  # 8-card hands
    "tethsi_pairs_scalar_us": 5.0,  # 8-card hand
    "x_oracle": 100.0,
}


PARTS = ("games", "kernels", "peers", "batch")


def default_out_dir(quick: bool = False) -> Path:
    """``benchmarks/results`` of the repository checkout, else ``./bench-results``; a
    ``--quick`` run (a smoke test, not figures) goes to a folder of the system's
    temporary directory, so it never replaces the published results."""
    if quick:
        return Path(tempfile.gettempdir()) / "setgames-bench-quick"
    root = Path(__file__).resolve().parents[2]
    if (root / "benchmarks").is_dir() and (root / "pyproject.toml").is_file():
        return root / "benchmarks" / "results"
    return Path.cwd() / "bench-results"


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (``setgames: error: ...``), as every other
    error of ``setgames bench``; ``--help`` shows the usage."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"setgames: error: {message} (setgames bench --help lists the options)\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="setgames bench",
        description="Throughput of the setgames environments and kernels, side by side with the peers.")
    p.add_argument("--quick", action="store_true",
                   help="tiny run (1 repeat of 0.05 s, batch sizes 1 and 1,000): a smoke test, not figures")
    p.add_argument("--only", action="append", choices=PARTS,
                   help="measure only this part (repeatable); default: all four")
    p.add_argument("--games", default=None,
                   help="comma-separated games to measure (default: tethsi,bharg,tusac)")
    p.add_argument("--repeats", type=int, default=None, help="repeats per case (default 5; quick 1)")
    p.add_argument("--seconds", type=float, default=None,
                   help="time budget of one measurement in seconds (default 1.0; quick 0.05)")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="time steps by the wall clock (default) or by this process's CPU time "
                        "(steadier on a machine shared with other jobs)")
    p.add_argument("--out", type=Path, default=None,
                   help="output folder for bench.json, bench.md, bench.png (default: benchmarks/results; "
                        "with --quick, setgames-bench-quick in the temporary directory)")
    p.add_argument("--no-write", action="store_true", help="print the Markdown only, write no files")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    return p


def _fmt_rate(x: float) -> str:
    return f"{x / 1e6:.2f}M" if x >= 1e6 else f"{x:,.0f}"


def check_targets(envs: list[dict[str, Any]], kernels: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The targets of issues #8 and #2 that this run measured, each with the
    measured value, the goal and whether it is met."""
    out: list[dict[str, Any]] = []

    def add(name: str, measured: float, goal: float, met: bool, fmt: str) -> None:
        out.append({"name": name, "value": measured, "goal_value": goal, "met": bool(met),
                    "measured": fmt.format(measured), "goal": fmt.format(goal)})

    for r in envs:
        if r.get("kind") == "raw_env" and r.get("x_null") is not None:
            goal = TARGETS["raw_env_x_null"].get(r["game"], 0.4)
            add(f"{r['group']} raw_env / null env", r["x_null"], goal, r["x_null"] >= goal, "{:.2f}x")
        if r.get("kind") == "raw_env" and r.get("x_openspiel") is not None:
            add(f"{r['group']} raw_env / OpenSpiel gin_rummy (obs)", r["x_openspiel"],
                TARGETS["raw_env_x_openspiel"], r["x_openspiel"] > 1.0, "{:.2f}x")
        if r.get("kind") == "env" and r.get("x_raw_env") is not None:
            goal = TARGETS["env_x_raw_env"]
            add(f"{r['group']} env() / raw_env", r["x_raw_env"], goal, r["x_raw_env"] >= goal, "{:.2f}x")
    big = max((r["batch"] for r in kernels if r.get("batch")), default=None)
    for r in kernels:
        if "rate" not in r:
            continue
        rate = r["rate"]["median"]
        key = (r["kernel"], r["path"], r["batch"])
        if key == ("tusac.min_trash", "batch", 100_000):
            g = TARGETS["tusac_min_trash_batch_hands_per_s"]
            out.append({"name": "tusac.min_trash batch, B=100,000", "value": rate, "goal_value": g,
                        "met": rate >= g, "measured": f"{_fmt_rate(rate)} hands/s",
                        "goal": f"{_fmt_rate(g)} hands/s"})
        if key == ("tusac.min_trash", "scalar", None):
            add("tusac.min_trash scalar, 20-card hand (us)", 1e6 / rate,
                TARGETS["tusac_min_trash_scalar_us"], 1e6 / rate <= TARGETS["tusac_min_trash_scalar_us"],
                "{:.2f} us")
        if r["kernel"] == "bharg.all_bound" and r["path"] == "batch" and r["batch"] == big:
            g = TARGETS["bharg_all_bound_batch_hands_per_s"]
            out.append({"name": f"bharg all-bound batch, 8-card hands, B={big:,}", "value": rate,
                        "goal_value": g, "met": rate >= g, "measured": f"{_fmt_rate(rate)} hands/s",
                        "goal": f"{_fmt_rate(g)} hands/s"})
        if key == ("tethsi.pairs_completing", "scalar", None):
            add("tethsi.pairs_completing scalar, 8-card hand (us)", 1e6 / rate,
                TARGETS["tethsi_pairs_scalar_us"], 1e6 / rate <= TARGETS["tethsi_pairs_scalar_us"],
                "{:.2f} us")
        if r.get("x_oracle") is not None and (r["path"] == "scalar" or r["batch"] == big):
            where = "scalar" if r["path"] == "scalar" else f"batch B={big:,}"
            add(f"{r['kernel']} {where} / oracle", r["x_oracle"], TARGETS["x_oracle"],
                r["x_oracle"] >= TARGETS["x_oracle"], "{:,.0f}x")
    return out


def collect(args: argparse.Namespace, command: str, extra_cases: list | None = None) -> dict[str, Any]:
    """Run what ``args`` asks for and return the result dict (not written)."""
    from setgames.bench import batch, envs, kernels, peers, report

    parts = set(args.only or PARTS)
    quick = args.quick
    # `or` would read an explicit 0 (or NaN's falsy cousins) as "the default": test for None.
    repeats = args.repeats if args.repeats is not None else (1 if quick else 5)
    seconds = args.seconds if args.seconds is not None else (0.05 if quick else 1.0)
    if repeats < 1 or not math.isfinite(seconds) or seconds <= 0:
        raise ValueError(f"--repeats {repeats!r} and --seconds {seconds!r} must be positive (seconds finite)")
    say = (lambda s: None) if args.quiet else (lambda s: print(s, file=sys.stderr, flush=True))
    notes: list[str] = []
    result: dict[str, Any] = {
        "machine": report.machine_info(),
        "settings": {"command": command, "repeats": repeats, "seconds": seconds, "quick": quick,
                     "parts": sorted(parts), "clock": args.clock},
    }
    cases: list = list(extra_cases or [])
    if "games" in parts:
        names = args.games.split(",") if args.games else None
        for n in names or ():
            if n not in envs.GAME_CONFIGS:
                raise ValueError(f"unknown game {n!r}; choose from {', '.join(envs.GAME_CONFIGS)}")
        c, n = envs.registry_game_cases(names)
        cases += c
        notes += n
    if "peers" in parts:
        c, n = peers.peer_cases()
        cases += c
        notes += n
    if cases:
        runs = envs.run_cases(cases, repeats, seconds, say, envs.CLOCKS[args.clock])
        result["envs"] = envs.summarize(cases, runs)
    if "batch" in parts:
        # Its own round-robin (raw_env and pgx measured again in it): the ratios pair within it.
        names = args.games.split(",") if args.games else None
        c, n = batch.batch_cases(names, quick=quick, with_pgx=not quick)
        runs = envs.run_cases(c, repeats, seconds, say, envs.CLOCKS[args.clock])
        result["batch"] = batch.summarize_batch(c, runs)
        notes += n
    kernel_rows: list[dict[str, Any]] = []
    if "kernels" in parts:
        sizes = (1, 1_000) if quick else kernels.BATCH_SIZES
        kernel_rows, n = kernels.run_kernels(repeats, seconds, sizes, say, clock=envs.CLOCKS[args.clock])
        result["kernels"] = kernel_rows
        notes += n
    result["targets"] = check_targets(result.get("envs", []), kernel_rows) + batch.batch_targets(
        result.get("batch", []))
    if quick:
        notes.append("--quick run: a smoke test of the harness, not figures to quote")
    result["notes"] = notes
    return result


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``setgames bench`` / ``python -m setgames.bench``; returns the exit code."""
    from setgames.bench import report

    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--"]:  # `setgames bench -- --quick ...` hands the separator on
        argv = argv[1:]
    args = _parser().parse_args(argv)
    command = "setgames bench" + ("" if not argv else " " + shlex.join(argv))
    result = collect(args, command)
    print(report.to_markdown(result, chart_name=None))
    if not args.no_write:
        written = report.write_outputs(result, args.out or default_out_dir(args.quick))
        print("\nwritten: " + ", ".join(written.values()))
    return 0
