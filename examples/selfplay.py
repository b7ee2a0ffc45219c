"""Self-play: MaskablePPO against a pool of frozen copies of itself.

Each generation trains the learner against opponents drawn from the pool
(earlier snapshots, plus the random bot so it never forgets the basics),
then adds a snapshot of the learner to the pool. At the end the last
snapshot meets the first one and the random bot in the arena.

    python examples/selfplay.py --game bharg --generations 6 --steps-per-generation 20000
    python examples/selfplay.py --smoke
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv

from setgames.arena import BotSpec, run_arena
from setgames.bots import Bot, RandomBot
from setgames.wrappers import SingleAgentEnv
from setgames.wrappers.sb3 import MaskablePPOBot, maskable_ppo_bot


class PoolOpponent(Bot):
    """Plays, each game, a member of the pool drawn at random (on ``reset``)."""

    name = "pool"

    def __init__(self, pool: list[Bot], seed: int | None = None):
        super().__init__(seed)
        self.pool = pool
        self.current = pool[0]

    def reset(self, seed: int | None) -> None:
        super().reset(seed)
        self.current = self.pool[int(self.rng.integers(len(self.pool)))]
        self.current.reset(seed)

    def act(self, game, state, seat):
        return self.current.act(game, state, seat)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="bharg")
    p.add_argument("--generations", type=int, default=6)
    p.add_argument("--steps-per-generation", type=int, default=20_000)
    p.add_argument("--n-envs", type=int, default=4)
    p.add_argument("--eval-games", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="runs/selfplay")
    p.add_argument("--smoke", action="store_true", help="two generations of 128 steps")
    args = p.parse_args()
    if args.smoke:
        args.generations, args.steps_per_generation, args.n_envs, args.eval_games = 2, 128, 2, 4
    torch.set_num_threads(1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    pool: list[Bot] = [RandomBot()]
    envs = [SingleAgentEnv(args.game, learner_seat="rotate") for _ in range(args.n_envs)]
    venv = DummyVecEnv([lambda e=e: e for e in envs])
    venv.seed(args.seed)
    model = MaskablePPO("MlpPolicy", venv, n_steps=64 if args.smoke else 512, batch_size=128,
                        gamma=0.995, ent_coef=0.01, seed=args.seed, device="cpu", verbose=0)
    snapshots = []
    for gen in range(args.generations):
        for i, env in enumerate(envs):
            others = [PoolOpponent(pool, seed=args.seed * 1000 + gen * 100 + i + k)
                      for k in range(env.game.num_players - 1)]
            env.set_opponents(others)
        model.learn(total_timesteps=args.steps_per_generation, reset_num_timesteps=False)
        path = out / f"gen{gen}.zip"
        model.save(path)
        snapshots.append(path)
        frozen = MaskablePPO.load(path, device="cpu")
        pool.append(MaskablePPOBot(frozen, deterministic=False))
        print(f"generation {gen}: {model.num_timesteps} steps, pool of {len(pool)}")

    first = BotSpec("gen0", "gen0", (("path", str(snapshots[0])),), factory=maskable_ppo_bot)
    last = BotSpec(f"gen{len(snapshots) - 1}", "last", (("path", str(snapshots[-1])),),
                   factory=maskable_ppo_bot)
    bots = [last, first, "random"] if len(snapshots) > 1 else [last, "random"]
    res = run_arena([args.game], bots, games_per_pairing=args.eval_games, seed=args.seed + 7,
                    pairings=[(0, i) for i in range(1, len(bots))], progress=False)
    for row in res["arenas"][0]["pairings"]:
        lo, hi = row["score_a_ci"]
        print(f"{row['bot_a']} vs {row['bot_b']}: score {row['score_a']:.3f} "
              f"(95% CI {lo:.3f}..{hi:.3f}) over {row['games']} games")


if __name__ == "__main__":
    main()
