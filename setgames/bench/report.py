"""Benchmark output: machine and versions, JSON, a self-contained Markdown
page, and a bar chart (PNG, when matplotlib is installed)."""

from __future__ import annotations

import datetime as _dt
import importlib.metadata
import json
import os
import platform
from pathlib import Path
from typing import Any

__all__ = ["machine_info", "to_markdown", "write_chart", "write_outputs"]

VERSIONED = ("setgames", "numpy", "gymnasium", "pettingzoo", "open_spiel", "pgx", "jax",
             "rlcard", "matplotlib")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info() -> dict[str, Any]:
    """CPU model and cores, OS, Python, installed package versions, load and date (UTC)."""
    versions = {}
    for name in VERSIONED:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = None
    return {
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "versions": versions,
        "load_average_at_start": load,
    }


def _num(x: float | None, digits: int = 0) -> str:
    if x is None:
        return "-"
    return f"{x:,.{digits}f}"


def _ratio(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}x"


def _env_table(rows: list[dict[str, Any]]) -> list[str]:
    out = ["| group | environment | steps/s (median) | spread | games/s | steps/game "
           "| x null env | x raw_env | x OpenSpiel gin_rummy | notes |",
           "|---|---|--:|--:|--:|--:|--:|--:|--:|---|"]
    for r in rows:
        if "steps_per_s" not in r:
            out.append(f"| {r['group']} | {r['label']} | error | | | | | | | {r.get('error', '')} |")
            continue
        sps, gps = r["steps_per_s"], r["games_per_s"]
        spread = f"±{sps['spread_pct'] / 2:.0f}%" if r["repeats"] > 1 else "-"
        out.append(
            f"| {r['group']} | {r['label']} | {_num(sps['median'])} | {spread} | "
            f"{_num(gps['median'], 1)} | {_num(r.get('steps_per_game'), 1)} | "
            f"{_ratio(r.get('x_null'))} | {_ratio(r.get('x_raw_env'))} | "
            f"{_ratio(r.get('x_openspiel'))} | {r.get('note', '')} |")
    return out


def _kernel_table(rows: list[dict[str, Any]]) -> list[str]:
    out = ["| kernel | path | B | rate (median) | unit | us per hand | oracle rate | x oracle | notes |",
           "|---|---|--:|--:|---|--:|--:|--:|---|"]
    for r in rows:
        if "rate" not in r:
            out.append(f"| {r['kernel']} | {r['path']} | {r.get('batch', '')} | error | | | | | "
                       f"{r.get('error', '')} |")
            continue
        rate = r["rate"]["median"]
        out.append(
            f"| {r['kernel']} | {r['path']} | {_num(r.get('batch'))} | {_num(rate)} | {r['unit']} | "
            f"{1e6 / rate:.3g} | {_num(r.get('oracle_rate'))} | {_ratio(r.get('x_oracle'))} | "
            f"{r.get('note', '')} |")
    return out


def to_markdown(result: dict[str, Any], chart_name: str | None = "bench.png") -> str:
    """The results as one self-contained Markdown page (date, machine, versions,
    settings, tables, targets, notes and the chart link)."""
    m = result["machine"]
    s = result["settings"]
    versions = ", ".join(f"{k} {v}" for k, v in m["versions"].items() if v)
    lines = [
        "# setgames throughput",
        "",
        f"Measured {m['date']} on {m['cpu']} ({m['cores']} cores), {m['os']}, "
        f"{m['implementation']} {m['python']}; load average at start "
        f"{m['load_average_at_start']}.",
        "",
        f"Versions: {versions}.",
        "",
        f"Command: `{s['command']}` ({s['repeats']} repeats of {s['seconds']} s per case, "
        "round-robin; medians, spread = half the min-max range over the median).",
        "",
        ("Clock: **CPU time of the benchmark process** (`--clock cpu`): rates are per CPU-second, "
         "which a machine shared with other jobs disturbs less than wall time (pgx's figure "
         "counts the CPU time of all its threads)."
         if s.get("clock") == "cpu" else "Clock: wall time (`time.perf_counter`)."),
        "",
        "Random legal play, single process; the same sampler (uniform over the legal "
        "actions, drawn from the mask or the legal list) for every environment. Ratios "
        "are medians of per-repeat ratios measured in the same run, so they hold when "
        "the machine's speed drifts. The null env has the game's observation and action "
        "spaces and its mean game length, and does no game work.",
        "",
    ]
    if result.get("envs"):
        lines += ["## Environments", "", *_env_table(result["envs"]), ""]
        if chart_name:
            lines += [f"![steps per second]({chart_name})", ""]
    if result.get("batch"):
        from setgames.bench.batch import batch_table, sweep_table

        lines += ["## Batched engines", "", "Steps/s of `Batch.step` (B slot steps per call; learner "
                  "steps with opponents inside the step), each ratio paired with `raw_env`, "
                  "`SingleAgentEnv` vs greedy (its default, the engine; its own row's ratio is "
                  "to its rules layer, `engine=False`) and pgx sparrow_mahjong measured in the "
                  "same run (pgx steps another game: compare with care).", "",
                  *batch_table(result["batch"]), ""]
        sweep = sweep_table(result["batch"])
        if sweep:
            lines += ["### Batch size sweep", "", "One thread, self-play: each config's slot (its C game "
                      "state, `Batch.state_bytes`, and its rows of the output arrays) beside its steps/s "
                      "at each B and the paired ratios to B=64. A slot that outgrows the caches shows as "
                      "a ratio falling below 1.", "", *sweep, ""]
    if result.get("kernels"):
        lines += ["## Kernels", "", "One core, one process; scalar paths in calls/s over "
                  "prepared random hands, batch paths in hands/s at batch size B; oracles are "
                  "the brute-force checkers from `tests/`, timed in the same run.", "",
                  *_kernel_table(result["kernels"]), ""]
    if result.get("targets"):
        lines += ["## Targets", "", "| target | measured | goal | met |", "|---|--:|--:|---|"]
        for t in result["targets"]:
            lines.append(f"| {t['name']} | {t['measured']} | {t['goal']} | "
                         f"{'yes' if t['met'] else '**no**'} |")
        lines.append("")
    if result.get("notes"):
        lines += ["## Notes", "", *[f"- {n}" for n in result["notes"]], ""]
    return "\n".join(lines)


def write_chart(result: dict[str, Any], path: Path) -> bool:
    """Horizontal bar chart of steps/s (log scale) per environment; False when
    matplotlib is missing or there is nothing to draw."""
    rows = [r for r in result.get("envs", []) if "steps_per_s" in r]
    if not rows:
        return False
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    colors = {"rules": "#9ecae1", "rules+obs": "#6baed6", "raw_env": "#2171b5", "env": "#08519c",
              "null": "#bdbdbd", "null+pz_wrappers": "#969696", "peer": "#e6550d",
              "engine": "#31a354", "raw_env_rules": "#9e9ac8"}
    labels = [f"{r['group']}: {r['label']}" for r in rows]
    values = [r["steps_per_s"]["median"] for r in rows]
    lo = [v - r["steps_per_s"]["min"] for v, r in zip(values, rows, strict=True)]
    hi = [r["steps_per_s"]["max"] - v for v, r in zip(values, rows, strict=True)]
    fig, ax = plt.subplots(figsize=(10, 0.28 * len(rows) + 1.5))
    y = list(range(len(rows)))[::-1]
    ax.barh(y, values, xerr=[lo, hi], color=[colors.get(r["kind"], "#756bb1") for r in rows])
    ax.set_yticks(y, labels, fontsize=7)
    ax.set_xscale("log")
    per = "CPU-second" if result["settings"].get("clock") == "cpu" else "second"
    ax.set_xlabel(f"steps per {per} (log scale; random legal play, single process; bars: min-max)")
    m = result["machine"]
    ax.set_title(f"setgames throughput, {m['date']}, {m['cpu']} ({m['cores']} cores)", fontsize=9)
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def write_outputs(result: dict[str, Any], out_dir: Path, stem: str = "bench") -> dict[str, str]:
    """Write ``<stem>.json``, ``<stem>.md`` and (if possible) ``<stem>.png`` into
    ``out_dir``; return the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = {}
    png = out_dir / f"{stem}.png"
    has_png = write_chart(result, png)
    if has_png:
        written["png"] = str(png)
    elif png.exists():
        png.unlink()  # a stale chart from an older run would contradict the tables
    jpath = out_dir / f"{stem}.json"
    jpath.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    written["json"] = str(jpath)
    mpath = out_dir / f"{stem}.md"
    mpath.write_text(to_markdown(result, png.name if has_png else None), encoding="utf-8")
    written["md"] = str(mpath)
    return written
