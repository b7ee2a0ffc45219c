"""Train sb3-contrib's MaskablePPO on Bharg against a bot, then measure it in the arena.

The learner plays one seat of the game (a different seat each episode) through
:class:`setgames.wrappers.SingleAgentEnv`; the training opponent is the greedy
bot (or the random bot where a game has no greedy bot yet). The trained policy
is then played through :func:`setgames.arena.run_arena` against the random bot
and the training opponent, with seats swapped on duplicate deals, and the score
(wins + half the draws) is printed with its 95% confidence interval. Trained
against random for 60000 steps (a few CPU minutes) it beats random with a CI
above 0.5; examples/README.md has the measured figures.

    python examples/maskable_ppo_bharg.py                  # full run vs greedy (minutes)
    python examples/maskable_ppo_bharg.py --opponent random --timesteps 60000
    python examples/maskable_ppo_bharg.py --smoke          # a few hundred steps
    python examples/maskable_ppo_bharg.py --game tethsi --timesteps 100000
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from pathlib import Path

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env

from setgames.arena import BotSpec, run_arena
from setgames.bots.registry import make_bot
from setgames.wrappers import SingleAgentEnv
from setgames.wrappers.sb3 import maskable_ppo_bot


def training_opponent(game: str, wanted: str) -> str:
    """``wanted`` if that bot exists for ``game``, else ``"random"`` (said aloud)."""
    try:
        make_bot(wanted, game, 0)
    except (ValueError, ImportError) as exc:
        print(f"note: no {wanted!r} bot for {game} ({exc}); training against 'random'")
        return "random"
    return wanted


class LearningCurve(BaseCallback):
    """Records (timestep, episode return) for every finished episode."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[int, float]] = []

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "episode" in info:
                self.rows.append((self.num_timesteps, float(info["episode"]["r"])))
        return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="bharg")
    parser.add_argument("--opponent", default="greedy", help="training opponent bot name")
    parser.add_argument("--timesteps", type=int, default=150_000)
    parser.add_argument("--reward", choices=("score", "win"), default=None,
                        help="Bharg's reward option: points won/conceded (the game's default) or +1/-1")
    parser.add_argument("--n-envs", type=int, default=4)
    parser.add_argument("--subproc", action="store_true", help="SubprocVecEnv instead of DummyVecEnv")
    parser.add_argument("--eval-games", type=int, default=400, help="arena games per pairing")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/maskable_ppo", help="model, curve and arena results")
    parser.add_argument("--smoke", action="store_true", help="a few hundred steps, a few arena games")
    args = parser.parse_args()
    if args.smoke:
        args.timesteps, args.n_envs, args.eval_games = 256, 2, 4
    torch.set_num_threads(1)  # the machine's cores are shared; small nets gain nothing from more
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    opponent = training_opponent(args.game, args.opponent)
    vec_cls = None
    if args.subproc:
        from stable_baselines3.common.vec_env import SubprocVecEnv

        vec_cls = SubprocVecEnv
    game_config = {} if args.reward is None else {"reward": args.reward}  # only Bharg has the option
    env = make_vec_env(SingleAgentEnv, n_envs=args.n_envs, seed=args.seed, vec_env_cls=vec_cls,
                       env_kwargs={"game": args.game, "opponents": opponent, "learner_seat": "rotate",
                                   **game_config})
    n_steps = 64 if args.smoke else 512
    model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=min(256, n_steps * args.n_envs),
                        n_epochs=4 if args.smoke else 10, learning_rate=3e-4, gamma=0.995,
                        ent_coef=0.01, policy_kwargs={"net_arch": [256, 256]}, seed=args.seed,
                        device="cpu", verbose=0)
    curve = LearningCurve()
    t0, c0 = time.perf_counter(), time.process_time()  # wall and CPU: the cores may be shared
    model.learn(total_timesteps=args.timesteps, callback=curve)
    train_s, train_cpu = time.perf_counter() - t0, time.process_time() - c0
    env.close()
    path = out / "model.zip"
    model.save(path)
    with open(out / "learning_curve.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["timestep", "episode_return"])
        w.writerows(curve.rows)
    print(f"trained {args.timesteps} steps vs {opponent} in {train_s:.0f} s ({train_cpu:.0f} s CPU); "
          f"{len(curve.rows)} episodes; model saved to {path}")

    ppo = BotSpec("ppo", "ppo", (("path", str(path)),), factory=maskable_ppo_bot)
    bots = [ppo, "random"] + ([opponent] if opponent != "random" else [])
    pairings = [(0, i) for i in range(1, len(bots))]
    t0 = time.perf_counter()
    results = run_arena([args.game], bots, games_per_pairing=args.eval_games, seed=args.seed + 1,
                        out=out / "arena", pairings=pairings, progress=False)
    print(f"arena: {time.perf_counter() - t0:.0f} s")
    summary = {"game": args.game, "opponent": opponent, "reward": args.reward, "timesteps": args.timesteps,
               "train_seconds": round(train_s, 1), "train_cpu_seconds": round(train_cpu, 1), "pairings": []}
    for row in results["arenas"][0]["pairings"]:
        lo, hi = row["score_a_ci"]
        print(f"  ppo vs {row['bot_b']:>8}: score {row['score_a']:.3f} (95% CI {lo:.3f}..{hi:.3f}) "
              f"over {row['games']} games: {row['wins_a']} won, {row['wins_b']} lost, {row['draws']} drawn")
        summary["pairings"].append({k: row[k] for k in ("bot_b", "games", "wins_a", "wins_b", "draws",
                                                        "score_a", "score_a_ci")})
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    first = np.mean([r for _, r in curve.rows[:50]]) if curve.rows else float("nan")
    last = np.mean([r for _, r in curve.rows[-50:]]) if curve.rows else float("nan")
    print(f"mean episode return vs {opponent}: first 50 episodes {first:+.3f}, last 50 {last:+.3f}")


if __name__ == "__main__":
    main()
