"""The compact throughput summary of the latest run (``benchmarks/results/bench.json``).

The documentation's benchmarks page shows it (its build calls :func:`summary`); run
from the repository root after ``setgames bench``, ``python benchmarks/readme_summary.py``
prints it.
"""

import json
import pathlib

GAMES = ("tethsi", "bharg 2p", "bharg 3p", "tusac 2p", "tusac 3p", "tusac 4p")
PEERS = (
    "OpenSpiel gin_rummy (obs tensor)",
    "PettingZoo texas_holdem_v4 raw_env",
    "pgx sparrow_mahjong (CPU, batch 1024)",
)


def summary(data: dict) -> str:
    """The throughput summary table of one benchmark run."""
    m = data["machine"]
    rows = {(r["group"], r["label"]): r for r in data["envs"]}
    lines = [
        f"Latest run: {m['date']} on {m['cpu']} ({m['cores']} cores), CPython {m['python']}, "
        f"`{data['settings']['command']}`; random legal play, one process.",
        "",
        "| environment | raw_env steps/s | x null env | env() / raw_env | x OpenSpiel gin_rummy (C++, obs) "
        "| engine=False: x null env |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    for g in GAMES:
        raw, wrapped = rows.get((g, "raw_env")), rows.get((g, "env()"))
        rules = rows.get((g, "raw_env, engine=False"))
        if raw and wrapped:
            lines.append(
                f"| {g} | {raw['steps_per_s']['median']:,.0f} | {raw['x_null']:.2f}x | "
                f"{wrapped['x_raw_env']:.2f}x | {raw['x_openspiel']:.2f}x | "
                + (f"{rules['x_null']:.2f}x |" if rules else "- |")
            )
    for label in PEERS:
        r = rows.get(("peers", label))
        if r:
            lines.append(f"| peer: {label} | {r['steps_per_s']['median']:,.0f} | - | - | - | - |")
    return "\n".join(lines)


def main() -> None:
    """Print the summary of ``benchmarks/results/bench.json``."""
    print(summary(json.loads(pathlib.Path("benchmarks/results/bench.json").read_text())))


if __name__ == "__main__":
    main()
