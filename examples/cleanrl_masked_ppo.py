"""CleanRL-style masked PPO in one file of plain torch, on any of our games.

Everything is here: rollout collection over a few envs, GAE, the clipped
objective, and the one line that matters for card games, illegal logits set
to -inf before the softmax (``masked_logits``). The learner plays a rotating
seat of :class:`setgames.wrappers.SingleAgentEnv` against a bot; at the end it
plays ``--eval-games`` games against the random bot and prints its score with
a 95% Wilson interval.

    python examples/cleanrl_masked_ppo.py --game bharg --total-timesteps 100000
    python examples/cleanrl_masked_ppo.py --smoke
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

from setgames.arena.stats import wilson_interval
from setgames.wrappers import SingleAgentEnv


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="bharg")
    p.add_argument("--opponent", default="random")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--total-timesteps", type=int, default=100_000)
    p.add_argument("--num-envs", type=int, default=8)
    p.add_argument("--num-steps", type=int, default=128, help="steps per env per rollout")
    p.add_argument("--lr", type=float, default=2.5e-4)
    p.add_argument("--gamma", type=float, default=0.995)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--eval-games", type=int, default=200)
    p.add_argument("--smoke", action="store_true", help="a few hundred steps")
    args = p.parse_args()
    if args.smoke:
        args.total_timesteps, args.num_envs, args.num_steps, args.eval_games = 256, 2, 64, 10
    return args


class Agent(nn.Module):
    """Separate actor and critic MLPs over the flat observation."""

    def __init__(self, obs_size: int, n_actions: int):
        super().__init__()
        self.critic = nn.Sequential(nn.Linear(obs_size, 256), nn.Tanh(), nn.Linear(256, 256), nn.Tanh(),
                                    nn.Linear(256, 1))
        self.actor = nn.Sequential(nn.Linear(obs_size, 256), nn.Tanh(), nn.Linear(256, 256), nn.Tanh(),
                                   nn.Linear(256, n_actions))

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x).squeeze(-1)

    def masked_logits(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        # Illegal actions get -inf: probability exactly 0, and no gradient through them.
        return self.actor(x).masked_fill(~mask, float("-inf"))

    def act(self, x, mask, action=None):
        dist = Categorical(logits=self.masked_logits(x, mask))
        if action is None:
            action = dist.sample()
        # Entropy over legal actions only (0 * -inf would be nan).
        p = dist.probs
        entropy = -(p * torch.where(mask, dist.logits, torch.zeros_like(p))).sum(-1)
        return action, dist.log_prob(action), entropy, self.value(x)


def evaluate(agent: Agent, game: str, games: int, seed: int) -> tuple[float, tuple[float, float], int]:
    """Score (wins + half draws) of the greedy policy vs the random bot, rotating seats."""
    env = SingleAgentEnv(game, opponents="random", learner_seat="rotate")
    score = 0.0
    for g in range(games):
        obs, _ = env.reset(seed=seed if g == 0 else None)
        done = False
        while not done:
            with torch.no_grad():
                logits = agent.masked_logits(torch.as_tensor(obs, dtype=torch.float32)[None],
                                             torch.as_tensor(env.action_masks())[None])
            obs, _, term, trunc, info = env.step(int(logits.argmax()))
            done = term or trunc
        mine = info["returns"][env.learner_seat]
        best_other = max(r for s, r in enumerate(info["returns"]) if s != env.learner_seat)
        score += 1.0 if mine > best_other else 0.5 if mine == best_other else 0.0
    p = score / games
    return p, tuple(wilson_interval(p, games)), games


def main() -> None:
    args = parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    envs = [SingleAgentEnv(args.game, opponents=args.opponent, learner_seat="rotate")
            for _ in range(args.num_envs)]
    obs_size = envs[0].observation_space.shape[0]
    n_actions = int(envs[0].action_space.n)
    agent = Agent(obs_size, n_actions)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)

    T, N = args.num_steps, args.num_envs
    obs_buf = torch.zeros((T, N, obs_size))
    mask_buf = torch.zeros((T, N, n_actions), dtype=torch.bool)
    act_buf = torch.zeros((T, N), dtype=torch.long)
    logp_buf, rew_buf, done_buf, val_buf = (torch.zeros((T, N)) for _ in range(4))

    next_obs = torch.as_tensor(np.stack([e.reset(seed=args.seed + i)[0] for i, e in enumerate(envs)]),
                               dtype=torch.float32)
    next_mask = torch.as_tensor(np.stack([e.action_masks() for e in envs]))
    next_done = torch.zeros(N)
    returns_seen: list[float] = []
    updates = max(1, args.total_timesteps // (T * N))
    t0 = time.perf_counter()
    for update in range(1, updates + 1):
        for step in range(T):
            obs_buf[step], mask_buf[step], done_buf[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logp, _, value = agent.act(next_obs, next_mask)
            act_buf[step], logp_buf[step], val_buf[step] = action, logp, value
            o, m, d = [], [], []
            for i, env in enumerate(envs):
                ob, r, term, trunc, info = env.step(int(action[i]))
                rew_buf[step, i] = r
                if term or trunc:
                    returns_seen.append(info.get("returns", [r] * env.game.num_players)[env.learner_seat])
                    ob, _ = env.reset()
                o.append(ob)
                m.append(env.action_masks())
                d.append(float(term or trunc))
            next_obs = torch.as_tensor(np.stack(o), dtype=torch.float32)
            next_mask = torch.as_tensor(np.stack(m))
            next_done = torch.as_tensor(d)

        with torch.no_grad():  # GAE
            next_value = agent.value(next_obs)
            adv = torch.zeros_like(rew_buf)
            last = torch.zeros(N)
            for t in reversed(range(T)):
                nonterminal = 1.0 - (next_done if t == T - 1 else done_buf[t + 1])
                nv = next_value if t == T - 1 else val_buf[t + 1]
                delta = rew_buf[t] + args.gamma * nv * nonterminal - val_buf[t]
                adv[t] = last = delta + args.gamma * args.gae_lambda * nonterminal * last
            ret = adv + val_buf

        b_obs, b_mask = obs_buf.reshape(-1, obs_size), mask_buf.reshape(-1, n_actions)
        b_act, b_logp = act_buf.reshape(-1), logp_buf.reshape(-1)
        b_adv, b_ret = adv.reshape(-1), ret.reshape(-1)
        batch = T * N
        mb = batch // args.num_minibatches
        for _ in range(args.update_epochs):
            for idx in torch.randperm(batch).split(mb):
                _, logp, entropy, value = agent.act(b_obs[idx], b_mask[idx], b_act[idx])
                ratio = (logp - b_logp[idx]).exp()
                a = b_adv[idx]
                a = (a - a.mean()) / (a.std() + 1e-8)
                clipped = ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)
                pg_loss = torch.max(-a * ratio, -a * clipped).mean()
                v_loss = 0.5 * ((value - b_ret[idx]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        recent = returns_seen[-100:]
        print(f"update {update}/{updates}  steps {update * batch}  episodes {len(returns_seen)}  "
              f"mean return (last 100) {np.mean(recent) if recent else float('nan'):+.3f}  "
              f"{time.perf_counter() - t0:.0f} s")

    p, (lo, hi), n = evaluate(agent, args.game, args.eval_games, args.seed + 1000)
    print(f"vs random over {n} games: score {p:.3f} (95% Wilson CI {lo:.3f}..{hi:.3f})")


if __name__ == "__main__":
    main()
