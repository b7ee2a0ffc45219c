"""Per-step cost of one game, layer by layer, robust to a busy machine.

Times random legal play (the harness's sampler and loops) through the rules
layer, the rules with the acting seat's observation, ``raw_env``, ``env()`` and
the null env with the same spaces, interleaved in many short runs, and keeps
each case's *fastest* run: other jobs on a shared machine only ever slow a
run down, so the minimum is the steadiest estimate of the cost itself (the
harness's medians are the figures to quote; this is for telling two versions
of the code apart).

    python benchmarks/ladder.py tusac --players 4 --repeats 15
"""

from __future__ import annotations

import argparse
import importlib
import time

from setgames import registry
from setgames.bench.envs import aec_play, rules_play
from setgames.bench.null_env import null_env_like
from setgames.bench.sampler import LegalSampler


def ladder(name: str, config: dict, repeats: int, seconds: float) -> dict[str, float]:
    """Microseconds per step of each case: the fastest of ``repeats`` interleaved runs."""
    env_cls = registry.env_class(name)
    game = registry.game_class(name)(**config)
    env_fn = importlib.import_module(env_cls.__module__).env
    probe = rules_play(game, LegalSampler(0))
    length = round(sum(probe(10_000 + i)[0] for i in range(16)) / 16)
    cases = {
        "rules": rules_play(game, LegalSampler(0)),
        "+observe": rules_play(game, LegalSampler(0), observe=True),
        "raw_env": aec_play(env_cls(**config), LegalSampler(0)),
        "env()": aec_play(env_fn(**config), LegalSampler(0)),
        "null env": aec_play(null_env_like(env_cls(**config), length), LegalSampler(0)),
    }
    best = dict.fromkeys(cases, float("inf"))
    clock = time.perf_counter
    for r in range(repeats):
        for label, run in cases.items():
            seed, steps, t0 = 5_000 * r, 0, clock()
            while clock() - t0 < seconds:
                steps += run(seed)[0]
                seed += 1
            best[label] = min(best[label], (clock() - t0) / steps * 1e6)
    return best


def main() -> None:
    """Command line entry point."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("game", choices=registry.GAME_NAMES)
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--seconds", type=float, default=0.06, help="length of one run")
    args = ap.parse_args()
    config = {} if args.players is None else {"num_players": args.players}
    best = ladder(args.game, config, args.repeats, args.seconds)
    for label, us in best.items():
        print(f"{args.game} {label:<9} {us:7.2f} us/step  x null env {best['null env'] / us:.3f}")


if __name__ == "__main__":
    main()
