"""Quickstart: one game of random play through the PettingZoo AEC API.

    python examples/quickstart.py --game bharg --seed 0
"""

import argparse
import importlib

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--game", default="bharg", help="tethsi, bharg or tusac")
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--smoke", action="store_true", help="accepted for symmetry: one game is already short")
args = parser.parse_args()

env = importlib.import_module(f"{args.game}_env").env(render_mode="ansi")
env.reset(seed=args.seed)
for agent in env.agent_iter():
    obs, reward, termination, truncation, info = env.last()
    action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
    env.step(action)
print(env.render())
print("final info (numbers only):", {k: v for k, v in info.items() if k != "action_mask"})
print("outcome:", env.outcome())
