"""Resident memory of a batched engine over many steps (issue #17: no allocation per step).

``python benchmarks/batch_rss.py [--game tethsi] [--num-envs 1024] [--steps 1e8] [--opponents greedy]``
steps a batch with the C sampler and prints the process's resident set size
(``/proc/self/statm``, Linux) after warm-up and at every tenth of the run:
flat figures mean the step allocates nothing that it keeps.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from setgames.batch import make_batch
from setgames.registry import make_game


def rss_mib() -> float:
    """This process's resident set size in MiB (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def main() -> None:
    """Run the measurement the command line asks for."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="tethsi")
    p.add_argument("--num-envs", type=int, default=1024)
    p.add_argument("--steps", type=float, default=1e8, help="slot steps in all (B per call)")
    p.add_argument("--opponents", default=None, choices=("random", "greedy"))
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args()
    b = make_batch(make_game(args.game), args.num_envs, seed=0, opponents=args.opponents,
                   num_threads=args.threads)
    b.reset()
    rng = np.random.default_rng(0)
    out = np.zeros(args.num_envs, np.int64)
    calls = int(args.steps) // args.num_envs
    for _ in range(1000):
        b.step(b.sample(rng, out))
    print(f"after warm-up: {rss_mib():.2f} MiB")
    t0 = time.perf_counter()
    for part in range(10):
        for _ in range(calls // 10):
            b.step(b.sample(rng, out))
        print(f"{(part + 1) * (calls // 10) * args.num_envs:.3g} slot steps, "
              f"{int(b.game_index.sum()):,} games: {rss_mib():.2f} MiB "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
