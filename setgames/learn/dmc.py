"""Deep Monte-Carlo: learn the value of each action from whole games' returns, over per-action
features (``setgames train GAME --algo dmc``).

The batched engine steps ``num_envs`` games with the opponents inside the step. At every
learner decision the batch gives the legal actions' feature rows (``Batch.action_features``:
facts about each action and the position after it); one network ``Q(observation, row)``
scores them and the learner plays the best (a share ``epsilon`` of its moves uniformly
random, to see the others). Each decision's target is the return the learner got from it to
the end of its game (the sum of its rewards, undiscounted: a card game's result is what
counts, and it is known once the game ends), and ``Q`` is fitted to it by mean squared error.
This is the learner of DouZero (Zha et al., 2021), which beats every rule-based Dou Dizhu bot,
and of RLCard's DMC agent, with the batch in place of their actor processes.

Outputs under ``out``: ``dmc.npz`` (the network, :mod:`setgames.bots.dmc`: ``--bots
dmc:weights=PATH`` plays it), its model card ``dmc.md``, ``curve.csv`` and ``curve.png``, as
``setgames train``'s PPO writes them, and ``summary.json``.

With ``--net attention`` (the ``history`` mode only) the observation first goes through an
attention encoder over its event rows (:class:`setgames.learn.encoder.EventAttention`), so that
the network reads the public event sequence as a sequence rather than as 4 x L more inputs.
"""

from __future__ import annotations

import csv
import json
import os
import platform
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from setgames import registry
from setgames.batch import make_batch
from setgames.bots.dmc import DmcPolicy
from setgames.bots.event_encoder import event_layout
from setgames.learn.encoder import EventAttention
from setgames.learn.ppo import _Bar, _library_version, _plot, parse_curriculum, resolve_device

__all__ = ["CURVE_FIELDS", "NETS", "DmcConfig", "QNet", "train_dmc"]

CURVE_FIELDS = ("update", "env_steps", "wall_s", "steps_per_s", "phase", "games", "mean_return",
                "win_rate", "q_loss", "greedy_agreement", "positions", "eval_games", "eval_score", "eval_low",
                "eval_high")
AGREEMENT_EVERY = 8  # rollout steps between two looks at greedy's move (the agreement column)
NETS = ("mlp", "attention")  # Q's network: an MLP, or an MLP after the event encoder (history mode)


@dataclass
class DmcConfig:
    """The settings of :func:`train_dmc` (each one a ``setgames train --algo dmc`` option).

    ``rollout`` steps of every game are played between two updates; each update fits ``Q``
    on the decisions whose game has ended (the others wait for their game's end), in
    ``minibatches`` minibatches, ``epochs`` passes. ``curriculum`` is PPO's (random and greedy
    opponents only: DMC here learns one seat's values against fixed opponents). ``net``
    "attention" puts an event encoder of ``embed``-wide vectors and ``heads`` queries before
    ``Q`` (the ``history`` mode only).
    """

    game: str
    steps: int = 2_000_000
    seed: int = 1
    num_envs: int = 512
    rollout: int = 32
    curriculum: str = "random:0.05,greedy"
    hidden: int = 128
    lr: float = 1e-3
    epochs: int = 1
    minibatches: int = 8
    max_grad_norm: float = 1.0
    epsilon: float = 0.05
    net: str = "mlp"
    embed: int = 32
    heads: int = 4
    threads: int = 1
    env_threads: int = 1
    eval_every: int = 20
    eval_games: int = 200
    out: str = "runs/dmc"
    device: str = "cpu"
    config: dict[str, Any] = field(default_factory=dict)
    progress: bool | None = None


class QNet(nn.Module):
    """``Q(observation, row)``: a ReLU MLP over the observation followed by one feature row.

    The first layer is split (its observation part is computed once per position and added to
    every row's part), so scoring all legal actions costs one observation pass and one row pass
    per action. With an ``encoder`` the observation goes through it first (once per position)."""

    def __init__(self, obs_size: int, row_size: int, hidden: int, encoder: nn.Module | None = None):
        super().__init__()
        self.encoder = encoder
        self.obs_size = encoder.out_size if encoder is not None else obs_size
        self.first = nn.Linear(self.obs_size + row_size, hidden)
        self.rest = nn.Sequential(nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def _seen(self, obs: torch.Tensor) -> torch.Tensor:
        return self.encoder(obs) if self.encoder is not None else obs

    def forward(self, obs: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        """Scores ``(N,)`` of rows ``(N, row_size)`` in positions ``obs`` ``(N, obs_size)``."""
        return self.rest(self.first(torch.cat([self._seen(obs), rows], -1)))[..., 0]

    def all_rows(self, obs: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        """Scores ``(B, A)`` of every row ``(B, A, row_size)`` of each position ``(B, obs_size)``."""
        obs = self._seen(obs)
        w = self.first.weight
        h = (obs @ w[:, :self.obs_size].T)[:, None, :] + rows @ w[:, self.obs_size:].T + self.first.bias
        return self.rest(h)[..., 0]

    def some_rows(self, obs: torch.Tensor, rows: torch.Tensor, slot: torch.Tensor) -> torch.Tensor:
        """Scores ``(L,)`` of rows ``(L, row_size)``, row ``i`` in position ``obs[slot[i]]``: the
        legal actions only (a few of a game's actions are legal at a time)."""
        obs = self._seen(obs)
        w = self.first.weight
        h = (obs @ w[:, :self.obs_size].T)[slot] + rows @ w[:, self.obs_size:].T + self.first.bias
        return self.rest(h)[..., 0]

    def policy(self, meta: dict[str, Any]) -> DmcPolicy:
        """The network as a numpy :class:`~setgames.bots.dmc.DmcPolicy` (weights copied)."""
        lins = [self.first, *(m for m in self.rest if isinstance(m, nn.Linear))]
        return DmcPolicy([(m.weight.detach().cpu().numpy().T.copy(), m.bias.detach().cpu().numpy().copy())
                          for m in lins], meta, self.encoder.numpy() if self.encoder is not None else None)


class _Positions:
    """The learner's decisions waiting for their game's end: observation, the chosen row, the
    episode it belongs to and the learner's reward total before it. A decision's target is its
    episode's final total minus that (the rewards from the decision on)."""

    def __init__(self, obs_size: int, row_size: int):
        self.obs = np.zeros((0, obs_size), np.int8)
        self.row = np.zeros((0, row_size), np.int8)
        self.episode = np.zeros(0, np.int64)
        self.before = np.zeros(0, np.float32)
        self.final = np.full(1024, np.nan, np.float64)  # episode id -> the learner's total (NaN: running)

    def add(self, obs: list[np.ndarray], row: list[np.ndarray], episode: list[np.ndarray],
            before: list[np.ndarray]) -> None:
        self.obs = np.concatenate([self.obs, *obs])
        self.row = np.concatenate([self.row, *row])
        self.episode = np.concatenate([self.episode, *episode])
        self.before = np.concatenate([self.before, *before])
        self._cover(self.episode)

    def end(self, episodes: np.ndarray, totals: np.ndarray) -> None:
        self._cover(episodes)
        self.final[episodes] = totals

    def _cover(self, episodes: np.ndarray) -> None:
        # The table of totals grows to hold every episode id seen, running or ended.
        if episodes.size and episodes.max() >= len(self.final):
            grown = np.full(max(2 * len(self.final), int(episodes.max()) + 1), np.nan)
            grown[:len(self.final)] = self.final
            self.final = grown

    def take_done(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The decisions whose game has ended, with their targets (removed from the store)."""
        total = self.final[self.episode]
        done = ~np.isnan(total)
        target = (total[done] - self.before[done]).astype(np.float32)
        out = self.obs[done], self.row[done], target
        keep = ~done
        self.obs, self.row, self.episode, self.before = (self.obs[keep], self.row[keep], self.episode[keep],
                                                         self.before[keep])
        return out


def _check(cfg: DmcConfig, game: Any) -> None:
    if game.action_spec is None:
        raise ValueError(f"{cfg.game} has no per-action features in this configuration (game.action_spec "
                         f"is None), which --algo dmc learns from")
    if not 0 <= cfg.epsilon <= 1:
        raise ValueError(f"--epsilon {cfg.epsilon} is a share of random moves, between 0 and 1")
    if cfg.net not in NETS:
        raise ValueError(f"unknown --net {cfg.net!r}; choose from {', '.join(NETS)}")
    if cfg.net == "attention":
        try:
            event_layout(game.obs_spec)
        except ValueError as exc:
            raise ValueError(f"--net attention: {exc} (--config obs=history)") from None
    for name, value in (("num-envs", cfg.num_envs), ("rollout", cfg.rollout), ("hidden", cfg.hidden),
                        ("embed", cfg.embed), ("heads", cfg.heads),
                        ("epochs", cfg.epochs), ("minibatches", cfg.minibatches), ("threads", cfg.threads),
                        ("env-threads", cfg.env_threads)):
        if value < 1:
            raise ValueError(f"--{name} must be 1 or more, not {value}")


def _meta(game: Any) -> dict[str, Any]:
    return {"game": game.name, "version": game.version, "obs_size": game.obs_spec.size,
            "row_size": game.action_spec.size, "num_actions": game.num_actions, "config": game.config_dict(),
            "library_version": _library_version()}


def evaluate(cfg: DmcConfig, weights: Path, seed: int) -> dict[str, Any]:
    """The policy in ``weights`` against greedy in the arena (duplicate deals): score and 95% interval."""
    from setgames.arena import ArenaGame, BotSpec, run_arena

    dmc = BotSpec("dmc", "dmc", (("weights", str(weights)),))
    res = run_arena([ArenaGame.of(cfg.game, **cfg.config)], [dmc, BotSpec.parse("greedy")],
                    games_per_pairing=cfg.eval_games, seed=seed, workers=1, progress=False, pairings=[(0, 1)])
    pair = res["arenas"][0]["pairings"][0]
    return {"games": pair["games"], "score": pair["score_a"], "low": pair["score_a_ci"][0],
            "high": pair["score_a_ci"][1]}


def train_dmc(cfg: DmcConfig) -> dict[str, Any]:
    """Train an action-value network by ``cfg``; write ``dmc.npz``, ``dmc.md``, ``curve.csv``,
    ``curve.png`` and ``summary.json`` under ``cfg.out``; return the summary.

    Raises:
        ValueError: a game configuration without per-action features, a bad curriculum or
            option (checked before any training).
    """
    phases = parse_curriculum(cfg.curriculum, cfg.steps)
    if any(name == "self" for name, _ in phases):
        raise ValueError("--algo dmc learns against random and greedy opponents; the curriculum has 'self'")
    dev = resolve_device(cfg.device)
    game = registry.make_game(cfg.game, **cfg.config)
    _check(cfg, game)
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    obs_size, row_size, n_act = game.obs_spec.size, game.action_spec.size, game.num_actions
    encoder = (EventAttention(event_layout(game.obs_spec), cfg.embed, cfg.heads) if cfg.net == "attention"
               else None)
    net = QNet(obs_size, row_size, cfg.hidden, encoder).to(dev)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    meta = _meta(game)
    B, T = cfg.num_envs, cfg.rollout
    store = _Positions(obs_size, row_size)
    rows_buf = np.zeros((B, n_act, row_size), np.int8)
    cols = np.arange(B)
    n_updates = sum(max(1, n // (B * T)) for _, n in phases)
    bar = _Bar(n_updates * B * T, sys.stderr.isatty() if cfg.progress is None else cfg.progress)
    start, cpu0 = time.perf_counter(), time.process_time()
    rows: list[dict[str, Any]] = []
    env_steps = update = 0
    next_episode = 0
    env_s = eval_s = 0.0
    note, last_eval = "", None
    curve = (out / "curve.csv").open("w", newline="")
    writer = csv.DictWriter(curve, fieldnames=CURVE_FIELDS)
    writer.writeheader()
    try:
        for p_index, (phase, phase_steps) in enumerate(phases):
            batch = make_batch(game, B, seed=cfg.seed * 1_000_003 + p_index * B, num_threads=cfg.env_threads,
                               opponents=phase, learner_seat="rotate")
            batch.reset()
            episode = np.arange(next_episode, next_episode + B)
            next_episode += B
            total = np.zeros(B, np.float32)
            for _ in range(max(1, phase_steps // (B * T))):
                got: dict[str, list[np.ndarray]] = {"obs": [], "row": [], "episode": [], "before": []}
                returns: list[float] = []
                agree = seen = 0
                for t in range(T):
                    tick = time.perf_counter()
                    batch.action_features(rows_buf)
                    obs = np.array(batch.obs)
                    mask = np.asarray(batch.mask).astype(bool)
                    greedy = batch.greedy_actions() if t % AGREEMENT_EVERY == 0 else None
                    env_s += time.perf_counter() - tick
                    slot, action = np.nonzero(mask)
                    with torch.no_grad():
                        legal_rows = torch.from_numpy(rows_buf[slot, action]).to(dev, torch.float32)
                        q_legal = net.some_rows(torch.from_numpy(obs).to(dev, torch.float32), legal_rows,
                                                torch.from_numpy(slot).to(dev)).cpu().numpy()
                    q = np.full((B, n_act), -np.inf, np.float32)
                    q[slot, action] = q_legal
                    act = q.argmax(1)
                    if greedy is not None:
                        agree += int((act == greedy).sum())
                        seen += B
                    explore = rng.random(B) < cfg.epsilon
                    if explore.any():
                        act = np.where(explore, batch.sample(rng), act)
                    got["obs"].append(obs)
                    got["row"].append(rows_buf[cols, act].copy())
                    got["episode"].append(episode.copy())
                    got["before"].append(total.copy())
                    tick = time.perf_counter()
                    batch.step(act)
                    env_s += time.perf_counter() - tick
                    total += batch.learner_reward
                    ended = np.asarray(batch.terminated) | np.asarray(batch.truncated)
                    if ended.any():
                        idx = np.flatnonzero(ended)
                        store.end(episode[idx], total[idx])
                        returns += total[idx].tolist()
                        episode[idx] = np.arange(next_episode, next_episode + len(idx))
                        next_episode += len(idx)
                        total[idx] = 0.0
                env_steps += B * T
                store.add(got["obs"], got["row"], got["episode"], got["before"])
                loss = _fit(net, opt, cfg, store.take_done(), rng, dev)
                update += 1
                wall = time.perf_counter() - start
                row: dict[str, Any] = {
                    "update": update, "env_steps": env_steps, "wall_s": round(wall, 2),
                    "steps_per_s": round(env_steps / wall), "phase": phase, "games": len(returns),
                    "mean_return": round(float(np.mean(returns)), 4) if returns else "",
                    "win_rate": round(float(np.mean(np.asarray(returns) > 0)), 4) if returns else "",
                    "q_loss": round(loss[0], 5) if loss[1] else "", "positions": loss[1],
                    "greedy_agreement": round(agree / seen, 4) if seen else "",
                    "eval_games": "", "eval_score": "", "eval_low": "", "eval_high": ""}
                if cfg.eval_every and (update % cfg.eval_every == 0 or update == n_updates):
                    path = net.policy(meta).save(out / "eval.npz")
                    tick = time.perf_counter()
                    last_eval = evaluate(cfg, path, seed=cfg.seed + 7)
                    eval_s += time.perf_counter() - tick
                    row.update(eval_games=last_eval["games"], eval_score=round(last_eval["score"], 4),
                               eval_low=round(last_eval["low"], 4), eval_high=round(last_eval["high"], 4))
                    note = (f"vs greedy {last_eval['score']:.3f} "
                            f"[{last_eval['low']:.3f}, {last_eval['high']:.3f}]")
                writer.writerow(row)
                curve.flush()
                rows.append(row)
                bar.show(env_steps, env_steps / wall, note)
    finally:
        curve.close()
        bar.close()
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu0
    weights = net.policy(meta).save(out / "dmc.npz")
    (out / "eval.npz").unlink(missing_ok=True)
    tail = rows[-max(1, len(rows) // 10):]
    agreement = [r["greedy_agreement"] for r in tail if r["greedy_agreement"] != ""]
    summary = {"config": asdict(cfg), "env_steps": env_steps, "updates": update, "wall_s": round(wall, 1),
               "cpu_s": round(cpu, 1), "steps_per_s": round(env_steps / wall), "env_s": round(env_s, 1),
               "eval_s": round(eval_s, 1), "obs_size": obs_size, "q_obs_size": net.obs_size,
               "row_size": row_size, "num_actions": n_act,
               "weights": str(weights), "weights_bytes": weights.stat().st_size, "last_eval": last_eval,
               "greedy_agreement": round(float(np.mean(agreement)), 4) if agreement else None, "meta": meta}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    _write_card(out / "dmc.md", summary)
    _plot(rows, out / "curve.png")
    return summary


def _fit(net: QNet, opt: torch.optim.Optimizer, cfg: DmcConfig, data: tuple[np.ndarray, ...],
         rng: np.random.Generator, dev: torch.device) -> tuple[float, int]:
    """Fit ``Q`` to the targets of the ended decisions; the mean loss and how many there were."""
    obs, row, target = data
    n = len(target)
    if n == 0:
        return float("nan"), 0
    o = torch.from_numpy(obs).to(dev, torch.float32)
    r = torch.from_numpy(row).to(dev, torch.float32)
    y = torch.from_numpy(target).to(dev)
    losses = []
    for _ in range(cfg.epochs):
        for part in np.array_split(rng.permutation(n), min(cfg.minibatches, n)):
            idx = torch.from_numpy(part).to(dev)
            loss = nn.functional.mse_loss(net(o[idx], r[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            opt.step()
            losses.append(float(loss.detach()))
    return float(np.mean(losses)), n


def _write_card(path: Path, s: dict[str, Any]) -> None:
    """The model card beside the weights: how it was trained and how it scored."""
    c = s["config"]
    ev = s["last_eval"]
    score = (f"{ev['score']:.3f} (95% interval {ev['low']:.3f}-{ev['high']:.3f}) over {ev['games']} games"
             if ev else "not evaluated")
    opts = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in c.items()
                    if k not in ("game", "out", "config", "progress"))
    opts += "".join(f" --config {k}={v}" for k, v in c["config"].items())
    agreement = s["greedy_agreement"]
    configs = "".join(f" --config {k}={v}" for k, v in c["config"].items())
    encoder = (f"an attention encoder over the event rows ({c['embed']}-wide events, {c['heads']} pooling "
               f"queries, the cards part passed through), then a "
               if c.get("net", "mlp") == "attention" else "")
    path.write_text(f"""# dmc policy: {registry.game_title(c['game'])}

- training command: `setgames train {c['game']} --algo dmc {opts}`
- seed: {c['seed']}; env steps: {s['env_steps']:,} \
({s['updates']} updates of {c['num_envs']} x {c['rollout']})
- wall time: {s['wall_s']} s; CPU time of the process: {s['cpu_s']} s; {s['steps_per_s']:,} env steps/s \
including the network, on {os.cpu_count()} cores ({platform.processor() or platform.machine()}); \
{s['env_s']} s of the wall time in the batched engine's calls, {s['eval_s']} s in the arena evaluations
- library version: {s['meta']['library_version']}; game version: {s['meta']['version']}; \
config: {json.dumps(s['meta']['config'])}
- network: Q(observation, action row), {encoder}ReLU MLP \
{s.get('q_obs_size', s['obs_size'])}+{s['row_size']}-{c['hidden']}-{c['hidden']}-1 \
over the observation and one action's feature row, the legal action of highest value played \
(numpy inference, {s['weights_bytes']:,} bytes); {s['num_actions']} actions
- targets: each decision's undiscounted return to the end of its game (Monte-Carlo), \
{c['epsilon']:.0%} of the moves uniformly random while training
- plays greedy's move in {'' if agreement is None else f'{agreement:.1%} of '}its positions over \
the last tenth of training{' (not measured)' if agreement is None else ''}
- arena vs greedy at the end of training (duplicate deals, seed {c['seed'] + 7}): {score}
- play it: `setgames arena --game {c['game']}{configs} --bots dmc:weights={s['weights']} greedy`
""")
