"""Tu Sac hot-path check: raw_env steps/s next to the null env, and a profile.

Random legal play (the benchmark harness's sampler and loops, see
:mod:`setgames.bench.envs`) for 2, 3 and 4 players: the rules layer, the rules
plus the acting seat's observation, ``raw_env`` and the null env with the same
spaces, measured round-robin so the ``x_null`` ratios are paired.

    python benchmarks/tusac_profile.py                 # figures, 3 repeats of 1 s
    python benchmarks/tusac_profile.py --profile 4     # cProfile of raw_env play, 4 players
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

from setgames.bench.envs import aec_play, game_cases, run_cases, summarize
from setgames.bench.sampler import LegalSampler
from tusac_env.env import env, raw_env
from tusac_env.rules import TuSacGame

KINDS = ("rules", "rules+obs", "raw_env", "null")  # cases measured (env() is the harness's job)


def figures(players: list[int], repeats: int, seconds: float) -> None:
    """Print steps/s (median of repeats) and the paired ratio to the null env.

    Timed on this process's CPU clock: the machine is shared, and wall-clock
    figures swing with the other jobs far more than the ratios do."""
    cases = []
    for n in players:
        cases += [c for c in game_cases("tusac", TuSacGame, raw_env, env, {"num_players": n},
                                        group=f"tusac {n}p") if c.kind in KINDS]
    rows = summarize(cases, run_cases(cases, repeats, seconds, clock=time.process_time))
    print(f"{'group':<10} {'case':<18} {'steps/s':>9} {'x null':>7} {'steps/game':>10}")
    for r in rows:
        ratio = f"{r['x_null']:.3f}" if r.get("x_null") else ""
        print(f"{r['group']:<10} {r['label']:<18} {r['steps_per_s']['median']:>9,.0f} {ratio:>7} "
              f"{r['steps_per_game']:>10.1f}")


def profile(n: int, games: int) -> None:
    """cProfile of ``games`` random games through ``raw_env``, top 25 by own time."""
    run = aec_play(raw_env(num_players=n), LegalSampler(0))
    prof = cProfile.Profile()
    prof.enable()
    for seed in range(games):
        run(seed)
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)


def main() -> None:
    """Command line entry point."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", default="2,3,4", help="player counts, comma-separated")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--profile", type=int, metavar="N", help="profile N-player raw_env play instead")
    ap.add_argument("--games", type=int, default=300, help="games to profile")
    args = ap.parse_args()
    if args.profile:
        profile(args.profile, args.games)
    else:
        figures([int(x) for x in args.players.split(",")], args.repeats, args.seconds)


if __name__ == "__main__":
    main()
