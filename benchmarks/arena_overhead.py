"""What running the arena on local processes or on Ray costs on top of the games.

Two measurements:

1. **Start-up and per task**: the workers started, one empty task, stopped;
   then empty chunks (no game) sent through each executor's backend,
   ``--tasks`` of them with the backend's usual number in flight; the wall
   time over the count is the fixed cost of one task (scheduling, pickling,
   the round trip). The arena sizes its chunks from it
   (``setgames/arena/executors.py``).
2. **Per game**: a fixed arena (default Tu Sac, 4 players, greedy against
   ismcts, 200 games) on each executor: its wall time, the CPU time of every
   process of the run (this one, the pool's workers or Ray's daemons and
   workers, read from ``/proc``, so Linux only) and the games' own CPU time
   (each game's thread, in the workers). ``overhead_cpu_seconds_per_game`` is
   the difference over the games (start-up, scheduling, Ray's daemons, the
   bookkeeping here); it does not depend on how busy the machine is, unlike
   the wall time (``load_before`` says how busy it was).

    python benchmarks/arena_overhead.py                      # both, local and ray, 2 CPUs
    python benchmarks/arena_overhead.py --games 40 --only tasks

The results files of the executors are compared too: they must be identical.
Needs the ``ray`` extra for Ray (``pip install -e '.[ray]'``); without it only
the local executor is measured.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

from setgames.arena import ArenaGame, run_arena
from setgames.arena.plan import Plan
from setgames.arena.runner import RESULTS_FILE, _label_bots
from setgames.arena.worker import Job


def _empty_job() -> Job:
    return Job(Plan((), (), (), (), (), 0), _label_bots(["random", "random"]))


def per_task_seconds(executor: str, cpus: int, tasks: int) -> float:
    """Wall seconds per empty task, with the backend's usual number of tasks in flight."""
    if executor == "ray":
        from setgames.arena.ray_executor import RayBackend

        backend = RayBackend(_empty_job(), cpus)
    else:
        from setgames.arena.executors import LocalBackend

        backend = LocalBackend(_empty_job(), cpus)
    try:
        cf.wait([backend.submit(0, 0) for _ in range(backend.slots)])  # warm the workers
        t0 = time.perf_counter()
        inflight: set[cf.Future] = set()
        for _ in range(tasks):
            if len(inflight) >= backend.slots:
                _, inflight = cf.wait(inflight, return_when=cf.FIRST_COMPLETED)
            inflight.add(backend.submit(0, 0))
        cf.wait(inflight)
        return (time.perf_counter() - t0) / tasks
    finally:
        backend.close()


class TreeCPU:
    """CPU seconds of this process and all its descendants (Linux ``/proc``), sampled in a thread.

    Ray's daemons and workers and a pool's workers are descendants; each one's last sample
    counts, so a process that ends between two samples loses at most ``every`` of its time.
    """

    def __init__(self, every: float = 0.25):
        self.every = every
        self.seen: dict[int, float] = {}
        self._stop = threading.Event()
        self._tick = os.sysconf("SC_CLK_TCK")
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _stat(self) -> dict[int, tuple[int, float]]:
        out = {}
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            out[int(pid)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / self._tick)
        return out

    def sample(self) -> None:
        """Record the CPU so far of every process in the tree."""
        stats = self._stat()
        tree = {os.getpid()}
        grew = True
        while grew:
            grew = False
            for pid, (ppid, _) in stats.items():
                if ppid in tree and pid not in tree:
                    tree.add(pid)
                    grew = True
        for pid in tree:
            self.seen[pid] = stats[pid][1]

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.sample()

    def __enter__(self) -> TreeCPU:
        self.sample()
        self.start = dict(self.seen)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.sample()

    def seconds(self) -> float:
        """CPU seconds the tree used between enter and exit."""
        return sum(v - self.start.get(pid, 0.0) for pid, v in self.seen.items())


def startup(executor: str, cpus: int) -> dict:
    """Wall and CPU seconds to start the executor's workers, run one empty task and stop."""
    if executor == "ray":
        from setgames.arena.ray_executor import RayBackend as backend_cls
    else:
        from setgames.arena.executors import LocalBackend as backend_cls
    t0 = time.perf_counter()
    with TreeCPU() as cpu:
        backend = backend_cls(_empty_job(), cpus)
        backend.submit(0, 0).result()
        backend.close()
    return {"measure": "startup", "executor": executor, "cpus": cpus,
            "wall_seconds": round(time.perf_counter() - t0, 2), "cpu_seconds": round(cpu.seconds(), 2)}


def arena_run(executor: str, cpus: int, games: int, players: int, bots: list[str], seed: int,
              out: Path) -> dict:
    """Wall time and play time of the fixed arena on one executor."""
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    with TreeCPU() as cpu:
        res = run_arena([ArenaGame.of("tusac", num_players=players)], bots, games_per_pairing=games,
                        seed=seed, workers=cpus, executor=executor, out=out, progress=False)
    wall = time.perf_counter() - t0
    timing = res["timing"]
    n = timing["games"]
    return {"executor": executor, "cpus": cpus, "games": n, "load_before": round(load, 2),
            "wall_seconds": round(wall, 2), "cpu_seconds_all_processes": round(cpu.seconds(), 2),
            "game_cpu_seconds": timing["play_cpu_seconds"],
            "game_cpu_seconds_per_game": round(timing["play_cpu_seconds"] / n, 4),
            "overhead_cpu_seconds_per_game": round((cpu.seconds() - timing["play_cpu_seconds"]) / n, 4),
            "idle_cpu_seconds_per_game": round((wall * cpus - cpu.seconds()) / n, 4),
            "results": (out / RESULTS_FILE).read_bytes()}


def main(argv: list[str] | None = None) -> int:
    """Run the measurements and print them as JSON lines."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cpus", type=int, default=2)
    p.add_argument("--tasks", type=int, default=2000, help="empty tasks per executor (default 2000)")
    p.add_argument("--games", type=int, default=200, help="games of the fixed arena (default 200)")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--bots", nargs=2, default=["greedy", "ismcts"])
    p.add_argument("--seed", type=int, default=2612)
    p.add_argument("--executors", default="local,ray")
    p.add_argument("--only", choices=("tasks", "games"), default=None)
    args = p.parse_args(argv)
    executors = [e for e in args.executors.split(",") if e]
    try:
        import ray  # noqa: F401
    except ImportError:
        print("ray is not installed: measuring the local executor only", file=sys.stderr)
        executors = [e for e in executors if e != "ray"]
    if args.only in (None, "tasks"):
        for ex in executors:
            print(json.dumps(startup(ex, args.cpus)), flush=True)
            s = per_task_seconds(ex, args.cpus, args.tasks)
            print(json.dumps({"measure": "per_task", "executor": ex, "cpus": args.cpus, "tasks": args.tasks,
                              "ms_per_task": round(s * 1e3, 3)}), flush=True)
    if args.only in (None, "games"):
        files = {}
        with tempfile.TemporaryDirectory() as tmp:
            for ex in executors:
                row = arena_run(ex, args.cpus, args.games, args.players, args.bots, args.seed, Path(tmp) / ex)
                files[ex] = row.pop("results")
                print(json.dumps({"measure": "arena", **row}), flush=True)
        print(json.dumps({"measure": "same_results", "value": len(set(files.values())) == 1}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
