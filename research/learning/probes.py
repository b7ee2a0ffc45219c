"""Offline probes behind the learning findings (research/FINDINGS.md, "Learning to beat greedy").

``imitation``: how well a ReLU MLP on the observation imitates the greedy bot
(held-out accuracy after supervised training on positions of greedy play).
``playouts``: distil the greedy play-out values of every legal action
(``Batch.greedy_returns``) into a policy with the greedy prior, report the
held-out play-out value of its argmax against greedy's, and play it against
greedy in the arena.
``distil``: the search's values (``greedy_returns(redeals=k)``, twice: one estimate
for the targets, an independent one to score with) distilled into a policy with
the greedy prior by the soft cross-entropy of ``setgames train --distil``, with or
without the greedy features; reports the held-out gain per decision (value of the
policy's argmax minus greedy's, on the second estimate) against the search's own.

    python -m research.learning.probes imitation bharg --steps 300
    python -m research.learning.probes playouts bharg --config num_players=2 --config reward=win
    python -m research.learning.probes distil bharg --config num_players=2 --config reward=win \
        --steps 600 --redeals 32 --features
    python -m research.learning.probes distil tethsi --steps 400 --redeals 64 --features --head 16 \
        --margin 0.05
``search``: the teacher itself playing against greedy (greedy's move unless another
legal move's mean over ``--redeals`` re-deals is higher by ``--margin``), learner seat
rotating, ``--games`` games; its win, draw and loss shares.

    python -m research.learning.probes search bharg --config num_players=2 --config reward=win \
        --redeals 32 --games 600
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from setgames import registry
from setgames.arena import ArenaGame, BotSpec, run_arena
from setgames.batch import make_batch
from setgames.learn.expert import search_moves, search_policy
from setgames.learn.ppo import Agent, head_spec, masked_logits


def positions(game: Any, steps: int, explore: float, seed: int, values: bool, redeals: int = 0,
              features: bool = False) -> dict[str, np.ndarray]:
    """Positions of the learner's seat in greedy play against greedy (a share ``explore``
    of the moves random): observations (then, with ``features``, the greedy features),
    masks, greedy's moves and, with ``values``, every legal action's greedy play-out
    value (over ``redeals`` re-deals, and a second independent estimate ``values2``)."""
    b = make_batch(game, 256, seed=seed, opponents="greedy", learner_seat="rotate")
    b.reset()
    rng = np.random.default_rng(seed)
    out: dict[str, list[np.ndarray]] = {"obs": [], "mask": [], "greedy": [], "values": [], "values2": []}
    for _ in range(steps):
        g = b.greedy_actions()
        if values:
            out["values"].append(b.greedy_returns(redeals=redeals))
            if redeals:
                out["values2"].append(b.greedy_returns(redeals=redeals))
        obs = b.obs.astype(np.float32)
        out["obs"].append(np.concatenate([obs, b.greedy_features()], 1) if features else obs)
        out["mask"].append(b.mask.astype(bool))
        out["greedy"].append(g)
        b.step(np.where(rng.random(b.num_envs) < explore, b.sample(rng), g))
    return {k: np.concatenate(v) for k, v in out.items() if v}


def imitation(game: Any, steps: int, hidden: int, epochs: int) -> list[float]:
    """Held-out accuracy of an MLP trained to predict greedy's move, after each epoch."""
    data = positions(game, steps, 0.3, 5, values=False)
    obs, mask, act = (torch.from_numpy(data[k]) for k in ("obs", "mask", "greedy"))
    n_train = int(len(act) * 0.9)
    net = nn.Sequential(nn.Linear(obs.shape[1], hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                        nn.Linear(hidden, mask.shape[1]))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    accuracy = []
    for _ in range(epochs):
        for idx in torch.randperm(n_train).split(1024):
            loss = nn.functional.cross_entropy(masked_logits(net(obs[idx]), mask[idx]), act[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            z = masked_logits(net(obs[n_train:]), mask[n_train:])
            accuracy.append(float((z.argmax(1) == act[n_train:]).float().mean()))
    return accuracy


def playouts(game: Any, steps: int, hidden: int, epochs: int, bonus: float, games: int) -> dict[str, Any]:
    """Distil the play-out values (the all-action gain, as ``setgames train --playouts``) and
    arena the policy against greedy."""
    data = positions(game, steps, 0.1, 11, values=True)
    mask, q, g = data["mask"], data["values"], data["greedy"]
    count = np.maximum(mask.sum(1, keepdims=True), 1)
    centred = np.where(mask, q - (q * mask).sum(1, keepdims=True) / count, 0.0)
    differ = (np.abs(centred) > 1e-6).any(1)
    rows = np.arange(len(g))
    greedy_value, best_value = q[rows, g], np.where(mask, q, -np.inf).max(1)
    scaled = torch.from_numpy((centred / (centred[differ].std() + 1e-6)).astype(np.float32))
    obs, mask_t, g_t = torch.from_numpy(data["obs"]), torch.from_numpy(mask), torch.from_numpy(g)
    agent = Agent(obs.shape[1], mask.shape[1], hidden, prior=True, bonus=bonus)
    opt = torch.optim.Adam(agent.actor.parameters(), lr=1e-3)
    n_train = int(len(g) * 0.9)
    held = slice(n_train, None)
    for _ in range(epochs):
        for idx in torch.randperm(n_train).split(1024):
            logp = torch.log_softmax(masked_logits(agent.actor(obs[idx], g_t[idx]), mask_t[idx]), -1)
            loss = -(logp.exp() * scaled[idx]).sum(-1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        a = masked_logits(agent.actor(obs[held], g_t[held]), mask_t[held]).argmax(1).numpy()
    meta = {"game": game.name, "version": game.version, "obs_size": obs.shape[1],
            "num_actions": mask.shape[1], "config": game.config_dict(), "library_version": "probe"}
    with tempfile.TemporaryDirectory() as tmp:
        path = agent.policy(meta).save(Path(tmp) / "probe.npz")
        res = run_arena([ArenaGame.of(game.name, **game.config_dict())],
                        [BotSpec("ppo", "ppo", (("weights", str(path)),)), BotSpec.parse("greedy")],
                        games_per_pairing=games, seed=41, workers=1, progress=False, pairings=[(0, 1)])
    pair = res["arenas"][0]["pairings"][0]
    return {"positions": len(g), "actions_differ": float(differ.mean()),
            "greedy_below_best": float((greedy_value < best_value - 1e-6).mean()),
            "held_out_agreement": float((a == g[held]).mean()),
            "held_out_value_of_argmax": float(q[held][np.arange(len(a)), a].mean()),
            "held_out_value_of_greedy": float(greedy_value[held].mean()),
            "arena_vs_greedy": pair["score_a"], "arena_ci": pair["score_a_ci"], "arena_games": pair["games"]}


def distil(game: Any, steps: int, hidden: int, epochs: int, bonus: float, redeals: int, features: bool,
           temp: float, margin: float, head: int = 0) -> dict[str, Any]:
    """Held-out gain per decision of the distilled policy and of the search it learns from
    (``head``: the width of the actor's move head over the features; 0: none)."""
    data = positions(game, steps, 0.1, 13, values=True, redeals=redeals, features=features)
    mask, v1, v2, g = data["mask"], data["values"], data["values2"], data["greedy"]
    n_train = int(len(g) * 0.8)
    held = slice(n_train, None)
    rows = np.arange(len(g) - n_train)

    def gain(moves: np.ndarray) -> float:
        return float((v2[held][rows, moves] - v2[held][rows, g[held]]).mean())

    search = search_moves(v1[held], mask[held], g[held], margin)
    target = torch.from_numpy(search_policy(v1, mask, g, margin, temp))
    obs, mask_t, g_t = torch.from_numpy(data["obs"]), torch.from_numpy(mask), torch.from_numpy(g)
    spec = None
    if head:
        n_feat = obs.shape[1] - make_batch(game, 1, seed=0).obs_size
        spec = head_spec(game.name, "features" if features else "none", head, n_feat)
    agent = Agent(obs.shape[1], mask.shape[1], hidden, prior=True, bonus=bonus, head=spec)
    opt = torch.optim.Adam(agent.actor.parameters(), lr=1e-3)
    by_epoch = []
    for _ in range(epochs):
        for idx in torch.randperm(n_train).split(1024):
            logp = torch.log_softmax(masked_logits(agent.actor(obs[idx], g_t[idx]), mask_t[idx]), -1)
            loss = -(target[idx] * torch.where(mask_t[idx], logp, 0.0)).sum(-1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            a = masked_logits(agent.actor(obs[held], g_t[held]), mask_t[held]).argmax(1).numpy()
        by_epoch.append(round(gain(a), 4))
    return {"positions": len(g), "search_gain": round(gain(search), 4),
            "search_switch": round(float((search != g[held]).mean()), 3),
            "policy_gain_by_epoch": by_epoch, "policy_switch": round(float((a != g[held]).mean()), 3)}


def search(game: Any, redeals: int, margin: float, games: int) -> dict[str, Any]:
    """Win, draw and loss shares of the one-step search (:func:`search_moves` on
    ``greedy_returns(redeals=...)``) against greedy inside the batch."""
    b = make_batch(game, 256, seed=12345, opponents="greedy", learner_seat="rotate")
    b.reset()
    rewards: list[float] = []
    while len(rewards) < games:
        g = b.greedy_actions()
        b.step(search_moves(b.greedy_returns(redeals=redeals), b.mask.astype(bool), g, margin))
        rewards += [float(b.learner_reward[i]) for i in np.flatnonzero(b.terminated | b.truncated)]
    r = np.asarray(rewards[:games])
    return {"games": len(r), "win": float((r > 0).mean()), "draw": float((r == 0).mean()),
            "loss": float((r < 0).mean())}


def main() -> None:
    """The command line (see the module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("probe", choices=("imitation", "playouts", "distil", "search"))
    p.add_argument("game")
    p.add_argument("--config", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--steps", type=int, default=300, help="batch steps of 256 positions")
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--bonus", type=float, default=3.0)
    p.add_argument("--games", type=int, default=2000)
    p.add_argument("--redeals", type=int, default=32)
    p.add_argument("--features", action="store_true", help="the networks read the greedy features")
    p.add_argument("--temp", type=float, default=0.05)
    p.add_argument("--margin", type=float, default=0.0)
    p.add_argument("--head", type=int, default=0, help="distil: the move head's width (needs --features)")
    args = p.parse_args()
    config = {k: int(v) if v.isdigit() else v for k, v in (kv.split("=", 1) for kv in args.config)}
    torch.set_num_threads(1)
    torch.manual_seed(0)
    game = registry.make_game(args.game, **config)
    start = time.perf_counter()
    if args.probe == "imitation":
        print({"held_out_accuracy_by_epoch": [round(x, 3) for x in imitation(game, args.steps, args.hidden,
                                                                               args.epochs)]})
    elif args.probe == "playouts":
        print(playouts(game, args.steps, args.hidden, args.epochs, args.bonus, args.games))
    elif args.probe == "search":
        print(search(game, args.redeals, args.margin, args.games))
    else:
        print(distil(game, args.steps, args.hidden, args.epochs, args.bonus, args.redeals, args.features,
                     args.temp, args.margin, args.head))
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
