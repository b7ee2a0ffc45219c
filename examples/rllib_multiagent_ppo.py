"""Multi-agent PPO on RLlib's current API stack, every seat a learner, then
the trained policy measured in the arena.

    python examples/rllib_multiagent_ppo.py --game bharg --iterations 20
    python examples/rllib_multiagent_ppo.py --policies per-seat --env-runners 2

The env is the library's RLlib view (``register_rllib_env``: the acting agent
observes ``{"observations", "action_mask"}``, every agent that acted gets a
reward entry, everyone gets the final result); the model is RLlib's
``ActionMaskingTorchRLModule``. ``--policies shared`` maps every seat to one
policy (self-play), ``per-seat`` gives each seat its own. ``--env-runners N``
samples in N Ray env-runner actors (0: in this process). The policy of seat 0
is then saved and played through :func:`setgames.arena.run_arena` against the
random bot (``setgames.wrappers.rllib.rlmodule_bot``). ``--smoke``: one
training iteration on small batches and a few arena games (what CI runs).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path


def build_config(game: str, policies: str, env_runners: int, batch: int, minibatch: int, epochs: int,
                 seed: int):
    """The ``PPOConfig``: our env, the masking module, seats mapped to policies."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from setgames.registry import make_game
    from setgames.wrappers.rllib import register_rllib_env

    name = register_rllib_env("setgames")
    seats = [f"player_{i}" for i in range(make_game(game).num_players)]
    if policies == "shared":
        ids = ["shared"]

        def mapping(agent_id, episode, **kw):
            return "shared"
    else:
        ids = seats

        def mapping(agent_id, episode, **kw):
            return agent_id
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                          model_config={"head_fcnet_hiddens": [128, 128], "head_fcnet_activation": "relu"})
    return (
        PPOConfig()
        .environment(name, env_config={"game": game})
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=1)
        .multi_agent(policies=set(ids), policy_mapping_fn=mapping)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=dict.fromkeys(ids, module)))
        .training(train_batch_size_per_learner=batch, minibatch_size=minibatch, num_epochs=epochs,
                  lr=3e-4, entropy_coeff=0.01)
        .debugging(seed=seed)
    )


def main() -> None:
    """Train, save seat 0's module, play it in the arena."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="bharg", help="tethsi, bharg or tusac")
    parser.add_argument("--policies", choices=("shared", "per-seat"), default="shared")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--env-runners", type=int, default=0, help="Ray env-runner actors (0: sample here)")
    parser.add_argument("--batch", type=int, default=4000, help="env steps per training iteration")
    parser.add_argument("--eval-games", type=int, default=200, help="arena games vs random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/rllib_ppo")
    parser.add_argument("--smoke", action="store_true", help="one iteration, small batches, 4 arena games")
    args = parser.parse_args()
    if args.smoke:
        args.iterations, args.batch, args.eval_games = 1, 256, 4
    import ray
    import torch

    from setgames.arena import BotSpec, run_arena
    from setgames.wrappers.rllib import rlmodule_bot

    torch.set_num_threads(1)
    ray.init(num_cpus=max(2, args.env_runners + 1), include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    config = build_config(args.game, args.policies, args.env_runners, args.batch,
                          min(128, args.batch), 1 if args.smoke else 5, args.seed)
    algo = config.build_algo()
    t0 = time.perf_counter()
    for i in range(args.iterations):
        result = algo.train()
        runners = result["env_runners"]
        per_seat = runners.get("agent_episode_returns_mean", {})
        means = {k: round(float(v), 3) for k, v in sorted(per_seat.items())}
        print(f"iteration {i + 1}: {runners.get('num_episodes', 0)} episodes, "
              f"{runners.get('num_env_steps_sampled', 0)} env steps, mean return per seat {means}")
    print(f"trained {args.iterations} iteration(s) in {time.perf_counter() - t0:.0f} s")
    out = Path(args.out)
    pid = "shared" if args.policies == "shared" else "player_0"
    path = (out / "module").resolve()
    algo.get_module(pid).save_to_path(str(path))
    algo.stop()
    ray.shutdown()
    ppo = BotSpec("ppo", "ppo", (("path", str(path)),), factory=rlmodule_bot)
    results = run_arena([args.game], [ppo, "random"], games_per_pairing=args.eval_games, seed=args.seed + 1,
                        out=out / "arena", progress=False)
    row = results["arenas"][0]["pairings"][0]
    lo, hi = row["score_a_ci"]
    print(f"ppo ({pid}) vs random: score {row['score_a']:.3f} (95% CI {lo:.3f}..{hi:.3f}) over "
          f"{row['games']} games: {row['wins_a']} won, {row['wins_b']} lost, {row['draws']} drawn")


if __name__ == "__main__":
    main()
