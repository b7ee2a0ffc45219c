"""Tianshou multi-agent training: one masked DQN per seat, all learning at once.

Uses :class:`setgames.wrappers.TurnBasedEnv`, the view Tianshou's multi-agent
dispatcher needs (observations ``{"agent_id", "obs", "mask"}``, a reward
vector, and a closing step so the seat that did not make the last move still
receives its result). Player 0's network is then played greedily against the
random bot on rotating seats, and its score printed with a 95% Wilson
interval. Written for Tianshou 2.x.

    python examples/tianshou_multiagent.py --game bharg --epochs 10
    python examples/tianshou_multiagent.py --smoke
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from setgames.arena.stats import wilson_interval
from setgames.wrappers import SingleAgentEnv, TurnBasedEnv


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="bharg")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--steps-per-epoch", type=int, default=10_000)
    p.add_argument("--n-envs", type=int, default=4)
    p.add_argument("--eval-games", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--smoke", action="store_true", help="a few hundred steps")
    args = p.parse_args()
    if args.smoke:
        args.epochs, args.steps_per_epoch, args.n_envs, args.eval_games = 1, 300, 2, 10
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)

    env = TurnBasedEnv(args.game)
    obs_size = env.observation_space.shape[0]
    n_actions = int(env.action_space.n)
    algorithms = []
    for _ in env.agents:
        net = Net(state_shape=obs_size, action_shape=n_actions, hidden_sizes=[256, 256])
        policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                         observation_space=env.observation_space, eps_training=0.2)
        algorithms.append(DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=0.99,
                              n_step_return_horizon=1, target_update_freq=200))
    marl = MultiAgentOffPolicyAlgorithm(algorithms=algorithms, env=env)

    train_envs = DummyVectorEnv([lambda: TurnBasedEnv(args.game) for _ in range(args.n_envs)])
    train_envs.seed(args.seed)
    buffer = VectorReplayBuffer(50_000, args.n_envs)
    collector = Collector(marl, train_envs, buffer, exploration_noise=True)
    collector.reset()
    result = marl.run_training(OffPolicyTrainerParams(
        training_collector=collector,
        test_collector=None,
        max_epochs=args.epochs,
        epoch_num_steps=args.steps_per_epoch,
        collection_step_num_env_steps=40,
        batch_size=64,
        update_step_num_gradient_steps_per_sample=0.25,
        test_in_training=False,
        show_progress=False,
        verbose=False,
    ))
    print(f"trained {result.timing.total_time:.0f} s, {result.train_step} env steps")

    net0 = algorithms[0].policy.model
    net0.eval()
    eval_env = SingleAgentEnv(args.game, opponents="random", learner_seat="rotate")
    score = 0.0
    for g in range(args.eval_games):
        obs, _ = eval_env.reset(seed=args.seed + 1 if g == 0 else None)
        done = False
        while not done:
            with torch.no_grad():
                q, _ = net0(obs[None].astype(np.float32))
            q = q[0].numpy()
            q[~eval_env.action_masks()] = -np.inf
            obs, _, term, trunc, info = eval_env.step(int(q.argmax()))
            done = term or trunc
        ret = info["returns"]
        mine = ret[eval_env.learner_seat]
        best = max(r for s, r in enumerate(ret) if s != eval_env.learner_seat)
        score += 1.0 if mine > best else 0.5 if mine == best else 0.0
    pr = score / args.eval_games
    lo, hi = wilson_interval(pr, args.eval_games)
    print(f"player_0 vs random over {args.eval_games} games: score {pr:.3f} "
          f"(95% Wilson CI {lo:.3f}..{hi:.3f})")


if __name__ == "__main__":
    main()
