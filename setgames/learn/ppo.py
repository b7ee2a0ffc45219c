"""Masked PPO in one file (CleanRL style, plain torch) on a game's batched engine.

``setgames train GAME`` runs :func:`train`: B games in C (:mod:`setgames.batch`)
with the opponents inside the step (``random``, ``greedy``) or, in a ``self``
phase, the other seat played by a frozen snapshot of the policy (a pool of
the last few, one drawn per rollout). A curriculum is a list of phases, each
an opponent and the share of the steps it gets (``random:0.1,greedy:0.6,self``:
the last phase takes the rest). Illegal logits are set to -inf before the
softmax. Every ``eval_every`` updates the policy plays the arena
(:func:`setgames.arena.run_arena`, duplicate deals, a fixed game count)
against ``greedy``; the learning curve goes to ``curve.csv`` (and
``curve.png`` with matplotlib), the policy to ``ppo.npz`` (the ``ppo`` bot's
file, :mod:`setgames.bots.ppo`) and its model card to ``ppo.md``.

Throughput is reported as env steps a second including the network: every
slot's step counts once (with opponents in C, one learner move and the
opponents' replies; in self-play, one move of either seat).

    setgames train GAME --steps 5000000 --seed 1 --out runs/GAME
"""

from __future__ import annotations

import csv
import json
import os
import platform
import sys
import time
from dataclasses import asdict, dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from setgames import registry
from setgames.batch import make_batch
from setgames.bots.ppo import HEAD_GAIN, PRIORS, PpoPolicy, RowHeadWeights
from setgames.learn.expert import anchor_moves, search_moves, search_policy, search_value

__all__ = [
    "DEVICES",
    "PHASE_OPPONENTS",
    "TrainConfig",
    "head_spec",
    "masked_logits",
    "parse_curriculum",
    "resolve_device",
    "sample_actions",
    "train",
]

PHASE_OPPONENTS = ("random", "greedy", "self")
DEVICES = ("cpu", "cuda", "auto")
SNAPSHOTS = 5  # frozen policies kept for self-play
MAX_HEAD = 1024  # widest move head (--head)
CURVE_FIELDS = ("update", "env_steps", "wall_s", "steps_per_s", "phase", "games", "mean_return",
                "win_rate", "policy_loss", "value_loss", "entropy", "approx_kl",
                "greedy_agreement", "search_agreement", "search_switch", "eval_games", "eval_score",
                "eval_low", "eval_high")


@dataclass
class TrainConfig:
    """The recipe's settings (every one a ``setgames train`` option).

    ``prior="greedy"`` gives both networks the greedy bot's move as an input and
    starts the actor's logit of it ``prior_bonus`` above the others (residual
    learning on the rule bot: the policy starts near greedy and learns where to
    differ); the shipped bot then asks the greedy bot at every move.
    ``prior="features"`` adds, after the observation, what the greedy bot weighs
    for each action (the batch's ``greedy_features``; the game descriptor's
    ``greedy_features`` when the bot plays). ``head`` (its width; 0: none) adds the
    actor's move head (:class:`RowHead`), which scores each row of those features
    for the move it describes; it needs the descriptor's ``greedy_feature_moves``.

    ``playouts`` weighs a second policy-gradient term over every legal action at
    once: in a share ``playout_share`` of the learner's positions the batch plays
    each legal action out with greedy for all seats (``greedy_returns()``), and the
    term raises ``sum_a pi(a) * (value_a - mean value)`` (values scaled by their
    spread in the rollout): one-step policy improvement over greedy, learned from
    the real positions, so the policy needs no look-ahead when it plays.

    ``redeals`` makes those values the mean over that many re-deals of the cards
    the seat has not seen (``greedy_returns(redeals=k)``: a determinized search's
    root values, from what the seat knows) instead of one play-out from the true
    state. ``distil`` weighs a cross-entropy to the search's move in those
    positions: the best value, or greedy's move unless the best beats it by more
    than ``switch_margin`` (distilling the search, as expert iteration does: the
    cross-entropy keeps pulling where the policy-gradient terms vanish, on a policy
    that gives greedy's move nearly all its probability). ``distil_temp`` above 0
    makes the target soft: ``softmax((value + switch_margin [greedy's move]) /
    distil_temp)`` over the legal actions, which a few re-deals' noise moves less
    than it moves their argmax.

    ``generations`` above 1 is expert iteration: the recipe (every phase of the curriculum,
    ``steps`` env steps) runs that many times on one policy, and from the second generation
    on the search's base move is the previous generation's own move (its frozen policy's legal
    argmax) instead of greedy's, so each expert starts from what the last apprentice learned
    and the apprentice learns from the positions it now reaches. ``search_value`` weighs a
    second critic target in the searched positions: the play-out value of the search's move
    (:func:`setgames.learn.expert.search_value`). Each generation plays the arena against
    greedy on the same deals and leaves its policy, ``gen-<k>.npz``, and a row of
    ``generations.csv``; ``ppo.npz`` is the last generation's.
    """

    game: str
    steps: int = 2_000_000
    seed: int = 1
    num_envs: int = 512
    rollout: int = 64
    curriculum: str = "random:0.05,greedy"
    hidden: int = 128
    lr: float = 3e-4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    epochs: int = 3
    minibatches: int = 8
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    prior: str = "none"
    prior_bonus: float = 2.0
    head: int = 0
    playouts: float = 0.0
    playout_share: float = 1.0
    redeals: int = 0
    distil: float = 0.0
    switch_margin: float = 0.0
    distil_temp: float = 0.0
    generations: int = 1
    search_value: float = 0.0
    threads: int = 1
    env_threads: int = 1
    eval_every: int = 20
    eval_games: int = 200
    out: str = "runs/ppo"
    device: str = "cpu"
    config: dict[str, Any] = field(default_factory=dict)
    progress: bool | None = None


def parse_curriculum(text: str, steps: int) -> list[tuple[str, int]]:
    """``"random:0.1,greedy"`` -> ``[("random", steps // 10), ("greedy", rest)]``.

    Raises:
        ValueError: an unknown opponent, a bad share, or shares over 1.

    >>> parse_curriculum("random:0.25,greedy", 100)
    [('random', 25), ('greedy', 75)]
    """
    items = [x.strip() for x in text.split(",") if x.strip()]
    if not items:
        raise ValueError("empty curriculum")
    phases: list[tuple[str, int]] = []
    used = 0
    for k, item in enumerate(items):
        name, colon, share = item.partition(":")
        if name not in PHASE_OPPONENTS:
            raise ValueError(f"unknown opponent {name!r} in curriculum; choose from "
                             f"{', '.join(PHASE_OPPONENTS)}")
        if k == len(items) - 1:
            n = steps - used
        else:
            try:
                frac = float(share) if colon else float("nan")
            except ValueError:
                frac = float("nan")
            if not 0 < frac < 1:
                raise ValueError(f"phase {item!r} needs a share between 0 and 1 (name:0.2); only the last "
                                 "phase takes the rest")
            n = int(steps * frac)
        if n <= 0:
            raise ValueError(f"curriculum {text!r} leaves no steps for phase {name!r}")
        used += n
        phases.append((name, n))
    return phases


def resolve_device(name: str) -> torch.device:
    """The torch device ``--device`` names: ``cpu``, ``cuda`` (refused where torch sees no CUDA
    device) or ``auto`` (CUDA where there is one, else the CPU). The batch steps on the CPU either
    way; the device holds the networks and their updates.

    Raises:
        ValueError: an unknown name, or ``cuda`` without a CUDA device.

    >>> resolve_device("cpu").type
    'cpu'
    """
    if name not in DEVICES:
        raise ValueError(f"--device {name!r} is not one of {', '.join(DEVICES)}")
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda: torch sees no CUDA device here (try --device cpu or auto)")
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    return torch.device(name)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with the illegal actions at -inf (so they have probability 0)."""
    return logits.masked_fill(~mask, float("-inf"))


def sample_actions(logits: torch.Tensor) -> torch.Tensor:
    """One action per row drawn from ``softmax(logits)`` (Gumbel-max: cheaper than
    ``torch.multinomial`` on wide rows; -inf logits are never drawn)."""
    u = torch.rand_like(logits).clamp_(min=1e-20)
    return (logits - torch.log(-torch.log(u))).argmax(-1)


def _mlp(sizes: list[int], out_std: float) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        lin = nn.Linear(sizes[i], sizes[i + 1])
        last = i == len(sizes) - 2
        nn.init.orthogonal_(lin.weight, out_std if last else np.sqrt(2))
        nn.init.zeros_(lin.bias)
        layers.append(lin)
        if not last:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class RowHead(nn.Module):
    """The move head: one small ReLU MLP, shared by every row of the greedy features, scores
    each row from that row alone; the score joins the logit of the move the row describes.
    A policy reads which features matter once for every move, where the body must learn
    each move's inputs apart (a discard of each of 36 cards, say).

    Args:
        cols: the features per row; hidden: the head's width; moves: the action of each row;
        tie: the column flagging greedy's exact ties (-1: none; see :class:`Net`).
    """

    def __init__(self, cols: int, hidden: int, moves: Any, tie: int = -1):
        super().__init__()
        self.cols, self.tie = cols, tie
        self.register_buffer("moves", torch.as_tensor(np.asarray(moves, np.int64)))
        self.hidden = nn.Linear(cols, hidden)
        self.out = nn.Linear(hidden, 1)
        nn.init.zeros_(self.out.weight)  # a fresh head adds nothing
        nn.init.zeros_(self.out.bias)

    def rows(self, x: torch.Tensor) -> torch.Tensor:
        """The feature rows ``(N, R, cols)`` at the end of the inputs ``x``."""
        n_rows = len(self.moves)
        return x[:, x.shape[1] - n_rows * self.cols:].reshape(len(x), n_rows, self.cols)

    def forward(self, rows: torch.Tensor) -> torch.Tensor:
        """The rows' scores ``(N, R)``, the inputs scaled by :data:`HEAD_GAIN`."""
        return self.out(torch.relu(self.hidden(rows * HEAD_GAIN)))[..., 0]

    def tied(self, rows: torch.Tensor, num_actions: int) -> torch.Tensor:
        """``(N, num_actions)``: 1 on the moves greedy chose among by a coin toss."""
        return rows.new_zeros(len(rows), num_actions).index_copy(1, self.moves, rows[..., self.tie])


class Net(nn.Module):
    """A ReLU MLP; with the greedy prior, the greedy move's learned embedding joins the
    first layer's sum and (on the actor) a learned ``bonus`` its logit; with a
    :class:`RowHead`, the rows' scores join their moves' logits. Where the head's rows
    flag an exact tie of greedy's at its move (its ``tie`` column), greedy's move was a
    coin toss: the embedding is left out and the bonus goes to every tied move, so the
    policy breaks the tie on what it learned, not on the coin."""

    def __init__(self, sizes: list[int], out_std: float, num_actions: int, prior: bool,
                 bonus: float | None, head: RowHead | None = None):
        super().__init__()
        self.body = _mlp(sizes, out_std)
        self.emb = nn.Embedding(num_actions, sizes[1]) if prior else None
        if self.emb is not None:
            nn.init.zeros_(self.emb.weight)  # a fresh policy is the plain MLP plus the bonus
        self.bonus = nn.Parameter(torch.tensor(float(bonus))) if prior and bonus is not None else None
        self.head = head

    def forward(self, obs: torch.Tensor, greedy: torch.Tensor | None = None) -> torch.Tensor:
        """Outputs for observations ``(N, obs_size)`` (and the greedy moves ``(N,)`` with a prior)."""
        layers = list(self.body)
        x = layers[0](obs)
        rows = self.head.rows(obs) if self.head is not None else None
        tied = None
        if rows is not None and self.head.tie >= 0 and self.emb is not None:
            tie_moves = self.head.tied(rows, self.emb.num_embeddings)
            tied = tie_moves.gather(1, greedy[:, None]) > 0
        if self.emb is not None:
            x = x + (self.emb(greedy) if tied is None else torch.where(tied, 0.0, self.emb(greedy)))
        for m in layers[1:]:
            x = m(x)
        if rows is not None:
            x = x.index_add(1, self.head.moves, self.head(rows))
        if self.bonus is not None and tied is None:
            x = x.scatter_add(1, greedy[:, None], self.bonus.expand(len(x), 1))
        elif self.bonus is not None:
            one = x.new_zeros(x.shape).scatter_(1, greedy[:, None], 1.0)
            x = x + self.bonus * torch.where(tied, tie_moves, one)
        return x


def _numpy_pair(m: nn.Linear) -> tuple[np.ndarray, np.ndarray]:
    # The numpy policy multiplies from the left (x @ W), torch stores W transposed.
    return m.weight.detach().cpu().numpy().T.copy(), m.bias.detach().cpu().numpy().copy()


class Agent(nn.Module):
    """Separate actor (the shipped policy: ReLU MLP to logits) and critic.

    Args:
        prior: the greedy prior (:mod:`setgames.bots.ppo`): both networks read the
            greedy bot's move, the actor's logit of it starts ``bonus`` above the rest.
        head: ``(cols, hidden, moves, tie)``: the actor's :class:`RowHead` over the
            greedy features at the end of the inputs, or None.
    """

    def __init__(self, obs_size: int, num_actions: int, hidden: int, prior: bool = False,
                 bonus: float = 2.0, head: tuple[int, int, Any, int] | None = None):
        super().__init__()
        self.prior = prior
        self.head_spec = head
        row_head = RowHead(*head) if head is not None else None
        self.actor = Net([obs_size, hidden, hidden, num_actions], 0.01, num_actions, prior, bonus, row_head)
        self.critic = Net([obs_size, hidden, hidden, 1], 1.0, num_actions, prior, None)

    def policy(self, meta: dict[str, Any]) -> PpoPolicy:
        """The actor as a numpy :class:`~setgames.bots.ppo.PpoPolicy` (weights copied)."""
        lins = [m for m in self.actor.body if isinstance(m, nn.Linear)]
        layers = [_numpy_pair(m) for m in lins]
        prior = None
        if self.actor.emb is not None and self.actor.bonus is not None:
            prior = (self.actor.emb.weight.detach().cpu().numpy().copy(), float(self.actor.bonus.detach()))
        head = None
        if self.actor.head is not None:
            h = self.actor.head
            head = RowHeadWeights([_numpy_pair(m) for m in (h.hidden, h.out)], h.moves.cpu().numpy().copy(),
                                  HEAD_GAIN, h.tie)
        return PpoPolicy(layers, meta, prior, head)


def _library_version() -> str:
    try:
        return version("setgames")
    except PackageNotFoundError:
        return "unknown"


def _meta(game: Any, obs_size: int, features: int = 0) -> dict[str, Any]:
    return {"game": game.name, "version": game.version, "obs_size": obs_size,
            "num_actions": game.num_actions, "config": game.config_dict(),
            "library_version": _library_version(), "features": features}


def _evaluate(cfg: TrainConfig, weights: Path, seed: int) -> dict[str, Any]:
    """The policy in ``weights`` against greedy in the arena: score and 95% interval."""
    from setgames.arena import ArenaGame, BotSpec, run_arena

    ppo = BotSpec("ppo", "ppo", (("weights", str(weights)),))
    res = run_arena([ArenaGame.of(cfg.game, **cfg.config)], [ppo, BotSpec.parse("greedy")],
                    games_per_pairing=cfg.eval_games, seed=seed, workers=1, progress=False,
                    pairings=[(0, 1)])
    pair = res["arenas"][0]["pairings"][0]
    return {"games": pair["games"], "score": pair["score_a"], "low": pair["score_a_ci"][0],
            "high": pair["score_a_ci"][1]}


def _gae(rew: np.ndarray, done: np.ndarray, val: np.ndarray, valid: np.ndarray, boot: np.ndarray,
         gamma: float, lam: float) -> np.ndarray:
    """GAE over each slot's own moves: steps where ``valid`` is False (the other seat moved,
    in self-play) are skipped, the next valid step's value and advantage carried past them."""
    adv = np.zeros_like(val)
    next_val = boot.astype(np.float32).copy()
    next_adv = np.zeros_like(next_val)
    for t in range(val.shape[0] - 1, -1, -1):
        v = valid[t]
        nonterm = 1.0 - done[t]
        delta = rew[t] + gamma * next_val * nonterm - val[t]
        a = delta + gamma * lam * nonterm * next_adv
        adv[t] = np.where(v, a, 0.0)
        next_val = np.where(v, val[t], next_val)
        next_adv = np.where(v, a, next_adv)
    return adv


class _Bar:
    """One progress line on stderr (steps, rate, last evaluation), at most twice a second."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.enabled, self.last = total, enabled, 0.0

    def show(self, done: int, rate: float, note: str) -> None:
        now = time.perf_counter()
        if not self.enabled or (now - self.last < 0.5 and done < self.total):
            return
        self.last = now
        filled = int(30 * min(done, self.total) / self.total)
        sys.stderr.write(f"\rtrain [{'#' * filled}{'.' * (30 - filled)}] {done:,}/{self.total:,} steps "
                         f"{rate:,.0f}/s {note} ")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")


def train(cfg: TrainConfig) -> dict[str, Any]:
    """Train a policy by ``cfg`` and write ``ppo.npz``, ``ppo.md``, ``curve.csv`` (and
    ``curve.png``) under ``cfg.out``; returns the summary the model card shows.

    Raises:
        ValueError: a bad curriculum, or a game without a batched engine here.
    """
    phases = parse_curriculum(cfg.curriculum, cfg.steps)
    dev = resolve_device(cfg.device)

    def put(a: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(a).to(dev)
    torch.distributions.Distribution.set_default_validate_args(False)  # checks cost a tenth of the step
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    game = registry.make_game(cfg.game, **cfg.config)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    probe = make_batch(game, 1, seed=0)
    probe.reset()
    obs_size, n_act = probe.obs_size, probe.num_actions
    if cfg.prior not in PRIORS:
        raise ValueError(f"prior {cfg.prior!r} is not one of {', '.join(PRIORS)}")
    use_prior = cfg.prior in ("greedy", "features")
    n_feat = 0
    if cfg.prior == "features":
        if not hasattr(probe, "greedy_features"):
            raise ValueError(f"{cfg.game} offers no greedy features (--prior features)")
        n_feat = probe.greedy_features().shape[1]
    values = bool(cfg.playouts or cfg.distil)  # the rollout takes play-out values
    if cfg.distil and not use_prior:
        raise ValueError("--distil needs --prior greedy or features (the search's move defaults to greedy's)")
    if cfg.generations < 1:
        raise ValueError(f"--generations is how many times expert iteration runs the recipe, 1 or more, "
                         f"not {cfg.generations}")
    if (cfg.generations > 1 or cfg.search_value) and not cfg.distil:
        raise ValueError("--generations above 1 and --search-value need --distil (they learn from the "
                         "search's moves and values)")
    agent = Agent(obs_size + n_feat, n_act, cfg.hidden, use_prior, cfg.prior_bonus,
                  head_spec(cfg.game, cfg.prior, cfg.head, n_feat) if cfg.head else None).to(dev)
    opt = torch.optim.Adam(agent.parameters(), lr=cfg.lr, eps=1e-5)
    meta = _meta(game, obs_size, n_feat)
    B, T = cfg.num_envs, cfg.rollout
    feat = np.zeros((B, n_feat), np.float32)  # the greedy features of the slots' positions
    per_generation = sum(max(1, n // (B * T)) for _, n in phases)
    n_updates = per_generation * cfg.generations
    bar = _Bar(n_updates * B * T, sys.stderr.isatty() if cfg.progress is None else cfg.progress)
    start, cpu0 = time.perf_counter(), time.process_time()
    snapshots: list[nn.Module] = []
    rows: list[dict[str, Any]] = []
    env_steps, update, note, last_eval = 0, 0, "", None
    env_s = playout_s = eval_s = 0.0  # wall time in the batch (steps, greedy moves, play-outs), arenas
    curve = (out / "curve.csv").open("w", newline="")
    writer = csv.DictWriter(curve, fieldnames=CURVE_FIELDS)
    writer.writeheader()
    generations: list[dict[str, Any]] = []
    anchor: Agent | None = None  # the previous generation's frozen policy (None: greedy anchors)
    stages = [(gen, p_index, phase, n) for gen in range(cfg.generations)
              for p_index, (phase, n) in enumerate(phases)]
    try:
        for gen, p_index, phase, phase_steps in stages:
            selfplay = phase == "self"
            batch = make_batch(game, B, seed=cfg.seed * 1_000_003 + (gen * len(phases) + p_index) * B,
                               num_threads=cfg.env_threads, opponents=None if selfplay else phase,
                               learner_seat="rotate")
            batch.reset()
            learner = rng.integers(game.num_players, size=B).astype(np.int32)
            for _ in range(max(1, phase_steps // (B * T))):
                frozen = snapshots[int(rng.integers(len(snapshots)))] if selfplay and snapshots else agent
                s_obs = np.zeros((T, B, obs_size + n_feat), np.float32)
                s_mask = np.zeros((T, B, n_act), bool)
                s_act = np.zeros((T, B), np.int64)
                s_logp = np.zeros((T, B), np.float32)
                s_val = np.zeros((T, B), np.float32)
                s_rew = np.zeros((T, B), np.float32)
                s_done = np.zeros((T, B), np.float32)
                s_valid = np.ones((T, B), bool)
                s_greedy = np.zeros((T, B), np.int64)  # the greedy bot's move (the prior's input)
                # the search's base move from the second generation on (None: greedy's)
                s_anchor = None if anchor is None else np.zeros((T, B), np.int64)
                s_play = np.zeros((T, B, n_act) if values else (0, B, n_act), np.float32)
                s_played = np.zeros((T, B), bool)
                last = np.full(B, -1)
                returns: list[float] = []
                cols = np.arange(B)
                for t in range(T):
                    tick = time.perf_counter()
                    obs = put(_inputs(batch, feat))
                    mask = put(batch.mask.astype(bool))
                    if use_prior:
                        batch.greedy_actions(s_greedy[t])
                    g = put(s_greedy[t]) if use_prior else None
                    if anchor is not None:
                        with torch.no_grad():
                            s_anchor[t] = anchor_moves(anchor.actor(obs, g).cpu().numpy(),
                                                       mask.cpu().numpy())
                    if values:
                        chosen = (rng.random(B) < cfg.playout_share) & (batch.seat >= 0)
                        if selfplay:
                            chosen &= batch.seat == learner
                        tock = time.perf_counter()
                        batch.greedy_returns(s_play[t], chosen, redeals=cfg.redeals)
                        playout_s += time.perf_counter() - tock
                        s_played[t] = chosen
                    env_s += time.perf_counter() - tick
                    with torch.no_grad():
                        logp_all = torch.log_softmax(masked_logits(agent.actor(obs, g), mask), -1)
                        act = sample_actions(logp_all)
                        logp = logp_all.gather(1, act[:, None]).squeeze(1)
                        val = agent.critic(obs, g).squeeze(-1)
                        if selfplay:
                            valid = batch.seat == learner
                            f_act = sample_actions(masked_logits(frozen.actor(obs, g), mask))
                            act = torch.where(put(valid), act, f_act)
                        else:
                            valid = np.ones(B, bool)
                    s_obs[t], s_mask[t], s_act[t] = obs.cpu().numpy(), mask.cpu().numpy(), act.cpu().numpy()
                    s_logp[t], s_val[t], s_valid[t] = logp.cpu().numpy(), val.cpu().numpy(), valid
                    last = np.where(valid, t, last)
                    tick = time.perf_counter()
                    batch.step(act.cpu().numpy())
                    env_s += time.perf_counter() - tick
                    r = batch.rewards[cols, learner] if selfplay else batch.learner_reward
                    ended = np.asarray(batch.terminated) | np.asarray(batch.truncated)
                    seen = last >= 0  # a reward before the slot's first move here is lost (rare)
                    s_rew[last[seen], cols[seen]] += r[seen]
                    hit = ended & seen
                    s_done[last[hit], cols[hit]] = 1.0
                    if ended.any():
                        fin = batch.final_learner_seat if not selfplay else learner
                        returns += [float(batch.rewards[i, fin[i]]) for i in np.flatnonzero(ended)]
                        if selfplay:
                            learner = np.where(ended, 1 - learner if game.num_players == 2
                                               else rng.integers(game.num_players, size=B), learner)
                env_steps += B * T
                with torch.no_grad():
                    g_last = put(batch.greedy_actions()) if use_prior else None
                    last_obs = put(_inputs(batch, feat))
                    boot = agent.critic(last_obs, g_last).squeeze(-1).cpu().numpy()
                if selfplay:
                    boot = np.where(batch.seat == learner, boot, 0.0)
                adv = _gae(s_rew, s_done, s_val, s_valid, boot, cfg.gamma, cfg.gae_lambda)
                stats = _update(agent, opt, cfg, s_obs, s_mask, s_act, s_logp, s_val, adv, s_valid, rng,
                                s_greedy, use_prior,
                                (s_play, s_played) if values else None, s_anchor)
                update += 1
                wall = time.perf_counter() - start
                row: dict[str, Any] = {
                    "update": update, "env_steps": env_steps, "wall_s": round(wall, 2),
                    "steps_per_s": round(env_steps / wall), "phase": phase, "games": len(returns),
                    "mean_return": round(float(np.mean(returns)), 4) if returns else "",
                    "win_rate": round(float(np.mean(np.asarray(returns) > 0)), 4) if returns else "",
                    **{k: round(v, 5) if v == v else "" for k, v in stats.items()},
                    "eval_games": "", "eval_score": "", "eval_low": "", "eval_high": ""}
                gen_end = update % per_generation == 0
                if cfg.eval_every and (update % cfg.eval_every == 0 or gen_end):
                    path = agent.policy(meta).save(out / "eval.npz")
                    tick = time.perf_counter()
                    last_eval = _evaluate(cfg, path, seed=cfg.seed + 7)
                    eval_s += time.perf_counter() - tick
                    row.update(eval_games=last_eval["games"], eval_score=round(last_eval["score"], 4),
                               eval_low=round(last_eval["low"], 4), eval_high=round(last_eval["high"], 4))
                    note = (f"vs greedy {last_eval['score']:.3f} "
                            f"[{last_eval['low']:.3f}, {last_eval['high']:.3f}]")
                writer.writerow(row)
                curve.flush()
                rows.append(row)
                if gen_end and cfg.generations > 1:
                    generations.append(_generation_row(gen, rows[-per_generation:], row, anchor is None))
                    agent.policy(meta).save(out / f"gen-{gen + 1}.npz")
                    _write_rows(out / "generations.csv", generations)
                    anchor = _frozen_copy(agent, obs_size + n_feat, n_act, cfg.hidden)
                if update % 10 == 0:
                    frozen_now = _frozen_copy(agent, obs_size + n_feat, n_act, cfg.hidden)
                    snapshots = [*snapshots, frozen_now][-SNAPSHOTS:]
                bar.show(env_steps, env_steps / wall, note)
    finally:
        curve.close()
        bar.close()
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu0
    weights = agent.policy(meta).save(out / "ppo.npz")
    (out / "eval.npz").unlink(missing_ok=True)
    summary = {"config": asdict(cfg), "env_steps": env_steps, "updates": update, "wall_s": round(wall, 1),
               "cpu_s": round(cpu, 1), "steps_per_s": round(env_steps / wall), "env_s": round(env_s, 1),
               "playout_s": round(playout_s, 1), "eval_s": round(eval_s, 1), "obs_size": obs_size,
               "num_actions": n_act, "weights": str(weights), "weights_bytes": weights.stat().st_size,
               "last_eval": last_eval, "generations": generations, "meta": meta}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    _write_card(out / "ppo.md", summary)
    _plot(rows, out / "curve.png")
    return summary


def _generation_row(gen: int, rows: list[dict[str, Any]], last: dict[str, Any], greedy_anchor: bool
                    ) -> dict[str, Any]:
    """A generation's line of ``generations.csv``: its anchor, how often its policy played the
    search's move and how often the search left the anchor (means over its updates), and the
    arena score against greedy at its end."""
    def mean(key: str) -> float | str:
        xs = [r[key] for r in rows if r.get(key, "") != ""]
        return round(float(np.mean(xs)), 4) if xs else ""

    return {"generation": gen + 1, "env_steps": last["env_steps"], "wall_s": last["wall_s"],
            "anchor": "greedy" if greedy_anchor else f"generation {gen}",
            "search_agreement": mean("search_agreement"), "search_switch": mean("search_switch"),
            **{k: last[k] for k in ("eval_games", "eval_score", "eval_low", "eval_high")}}


def _write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def head_spec(game_name: str, prior: str, width: int, n_feat: int) -> tuple[int, int, Any, int]:
    """The actor's move head ``(cols, hidden, moves, tie)`` for ``--head width`` (see
    :class:`RowHead`), from the game's descriptor.

    Raises:
        ValueError: not the features prior, a game whose features name no moves, or a bad width.
    """
    moves = registry.part(game_name, "greedy_feature_moves")
    if prior != "features" or moves is None:
        why = "none" if moves is None else "needs --prior features"
        raise ValueError(f"--head needs --prior features and a game whose greedy features name the move "
                         f"of each row ({game_name}: {why})")
    if not 0 < width <= MAX_HEAD:
        raise ValueError(f"--head is the move head's width, 1 to {MAX_HEAD} (0: none), not {width}")
    names = tuple(registry.part(game_name, "greedy_feature_names") or ())
    return n_feat // len(moves), width, moves, names.index("greedy_tie") if "greedy_tie" in names else -1


def _inputs(batch: Any, feat: np.ndarray) -> np.ndarray:
    """The networks' input for every slot: the observation, then (``feat`` not empty) the
    greedy features written into ``feat``."""
    obs = batch.obs.astype(np.float32)
    if not feat.shape[1]:
        return obs
    batch.greedy_features(feat)
    return np.concatenate([obs, feat], 1)


def _frozen_copy(agent: Agent, obs_size: int, n_act: int, hidden: int) -> Agent:
    copy = Agent(obs_size, n_act, hidden, agent.prior, head=agent.head_spec)
    copy.to(next(agent.parameters()).device)
    copy.load_state_dict(agent.state_dict())
    copy.eval()
    return copy


def _update(agent: Agent, opt: torch.optim.Optimizer, cfg: TrainConfig, obs: np.ndarray, mask: np.ndarray,
            act: np.ndarray, logp: np.ndarray, val: np.ndarray, adv: np.ndarray, valid: np.ndarray,
            rng: np.random.Generator, greedy: np.ndarray, prior: bool = False,
            playouts: tuple[np.ndarray, np.ndarray] | None = None, anchor: np.ndarray | None = None
            ) -> dict[str, float]:
    """The clipped PPO update over the rollout's valid moves (``epochs`` passes of minibatches);
    ``prior``: the networks read the greedy bot's moves ``greedy``; ``playouts``: the play-out
    values and where they were taken (the all-action term, the distillation and the search's
    value, :class:`TrainConfig`); ``anchor``: the search's base moves (None: greedy's)."""
    dev = next(agent.parameters()).device

    def put(a: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(a).to(dev)

    keep = valid.reshape(-1)
    b_obs = put(obs.reshape(-1, obs.shape[-1])[keep])
    b_mask = put(mask.reshape(-1, mask.shape[-1])[keep])
    b_act = put(act.reshape(-1)[keep])
    b_logp = put(logp.reshape(-1)[keep])
    b_adv = put(adv.reshape(-1)[keep])
    b_ret = b_adv + put(val.reshape(-1)[keep])
    b_g = put(greedy.reshape(-1)[keep])
    b_q = b_played = b_target = b_soft = b_sval = b_anchor = None
    if playouts is not None:
        q = playouts[0].reshape(-1, playouts[0].shape[-1])[keep]
        legal = mask.reshape(-1, mask.shape[-1])[keep]
        played = playouts[1].reshape(-1)[keep]
        # values against their mean over the legal actions, scaled by their spread in the rollout
        count = np.maximum(legal.sum(-1, keepdims=True), 1)
        centred = np.where(legal, q - (q * legal).sum(-1, keepdims=True) / count, 0.0)
        spread = float(centred[played].std()) if played.any() else 1.0
        b_q = put((centred / (spread + 1e-6)).astype(np.float32))
        b_played = put(played)
        if prior:
            g_keep = (greedy if anchor is None else anchor).reshape(-1)[keep]
            target = search_moves(q, legal, g_keep, cfg.switch_margin)
            b_target = put(target)
            b_sval = put(search_value(q, target))
            b_anchor = put(g_keep)
            if cfg.distil_temp > 0:
                b_soft = put(search_policy(q, legal, g_keep, cfg.switch_margin, cfg.distil_temp))
    n = len(b_act)
    size = max(1, n // cfg.minibatches)
    pl = vl = ent = kl = agree = s_agree = s_switch = 0.0
    count = s_count = 0
    for _ in range(cfg.epochs):
        order = put(rng.permutation(n))
        for lo in range(0, n - size + 1, size):
            idx = order[lo:lo + size]
            m = b_mask[idx]
            gi = b_g[idx] if prior else None
            logp_all = torch.log_softmax(masked_logits(agent.actor(b_obs[idx], gi), m), -1)
            new_logp = logp_all.gather(1, b_act[idx][:, None]).squeeze(1)
            ratio = (new_logp - b_logp[idx]).exp()
            a = b_adv[idx]
            a = (a - a.mean()) / (a.std() + 1e-8)
            p_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - cfg.clip, 1 + cfg.clip)).mean()
            v_pred = agent.critic(b_obs[idx], gi).squeeze(-1)
            v_loss = 0.5 * (v_pred - b_ret[idx]).pow(2).mean()
            # Entropy over the legal actions only: -inf logits would give 0 * -inf = nan.
            legal_logp = torch.where(m, logp_all, torch.zeros_like(logp_all))
            e = -(legal_logp.exp() * legal_logp).sum(-1).mean()
            loss = p_loss + cfg.vf_coef * v_loss - cfg.ent_coef * e
            if b_q is not None and b_played is not None:
                sel = b_played[idx]
                if bool(sel.any()):
                    gain = (logp_all.exp() * b_q[idx]).sum(-1)
                    loss = loss - cfg.playouts * gain[sel].mean()
                if b_target is not None and bool(sel.any()):
                    want = b_target[idx][sel]
                    if cfg.distil and b_soft is not None:
                        ce = -(b_soft[idx][sel] * torch.where(m[sel], logp_all[sel], 0.0)).sum(-1)
                        loss = loss + cfg.distil * ce.mean()
                    elif cfg.distil:
                        ce = -logp_all[sel].gather(1, want[:, None]).squeeze(1)
                        loss = loss + cfg.distil * ce.mean()
                    if cfg.search_value and b_sval is not None:
                        sv = 0.5 * (v_pred[sel] - b_sval[idx][sel]).pow(2).mean()
                        loss = loss + cfg.vf_coef * cfg.search_value * sv
                    with torch.no_grad():
                        s_agree += float((logp_all[sel].argmax(-1) == want).float().mean())
                        s_switch += float((want != b_anchor[idx][sel]).float().mean())
                        s_count += 1
            if prior:
                with torch.no_grad():
                    agree += float((logp_all.argmax(-1) == b_g[idx]).float().mean())
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), cfg.max_grad_norm)
            opt.step()
            with torch.no_grad():
                kl += float(((ratio - 1) - (new_logp - b_logp[idx])).mean())
            pl, vl = pl + p_loss.detach().item(), vl + v_loss.detach().item()
            ent, count = ent + e.detach().item(), count + 1
    count = max(count, 1)
    return {"policy_loss": pl / count, "value_loss": vl / count, "entropy": ent / count,
            "approx_kl": kl / count,
            "greedy_agreement": agree / count if prior else float("nan"),
            "search_agreement": s_agree / s_count if s_count else float("nan"),
            "search_switch": s_switch / s_count if s_count else float("nan")}


def _write_card(path: Path, s: dict[str, Any]) -> None:
    """The model card beside the weights: how it was trained and how it scored."""
    c = s["config"]
    ev = s["last_eval"]
    score = (f"{ev['score']:.3f} (95% interval {ev['low']:.3f}-{ev['high']:.3f}) over {ev['games']} games"
             if ev else "not evaluated")
    opts = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in c.items()
                    if k not in ("game", "out", "config", "progress"))
    opts += "".join(f" --config {k}={v}" for k, v in c["config"].items())
    n_feat = s["meta"].get("features", 0)
    prior = ""
    if c.get("prior") in ("greedy", "features"):
        prior = (", reading the greedy bot's move (an embedding in the first layer and a logit bonus, "
                 "residual learning on the rule bot)")
    if n_feat:
        prior += f" and, after the observation, the {n_feat} greedy features (what greedy weighs per move)"
    if c.get("head"):
        prior += (f"; a move head (a ReLU MLP of {c['head']} units shared by every row of the features) "
                  "adds each row's score to its move's logit")
    if c.get("distil"):
        prior += (f"; trained to play a one-step search's move (every legal move played out by greedy "
                  f"over {c.get('redeals', 0)} re-deals of the unseen cards)")
    if c.get("generations", 1) > 1:
        prior += (f", by expert iteration over {c['generations']} generations (from the second on, the "
                  "search keeps the previous generation's move unless another is clearly better)")
    if c.get("search_value"):
        prior += "; the critic also learns the search's value of each searched position"
    path.write_text(f"""# ppo policy: {registry.game_title(c['game'])}

- training command: `setgames train {c['game']} {opts}`
- seed: {c['seed']}; env steps: {s['env_steps']:,} \
({s['updates']} updates of {c['num_envs']} x {c['rollout']})
- wall time: {s['wall_s']} s; CPU time of the process: {s['cpu_s']} s; {s['steps_per_s']:,} env steps/s \
including the network, on {os.cpu_count()} cores ({platform.processor() or platform.machine()}); \
{s['env_s']} s of the wall time in the batched engine's calls ({s['playout_s']} s of it play-outs), \
{s['eval_s']} s in the arena evaluations
- library version: {s['meta']['library_version']}; game version: {s['meta']['version']}; \
config: {json.dumps(s['meta']['config'])}
- observation size: {s['obs_size']}; actions: {s['num_actions']}; policy: ReLU MLP \
{s['obs_size'] + n_feat}-{c['hidden']}-{c['hidden']}-{s['num_actions']}{prior} (numpy inference, \
{s['weights_bytes']:,} bytes)
- arena vs greedy at the end of training (duplicate deals, seed {c['seed'] + 7}): {score}
{_generations_table(s.get("generations") or [])}""")


def _generations_table(rows: list[dict[str, Any]]) -> str:
    """The model card's table of expert iteration's generations (empty for one generation)."""
    if not rows:
        return ""
    lines = ["", "Expert iteration, generation by generation (the search's base move, how often the "
             "policy played the search's move, how often the search left its base move, the arena "
             "against greedy on the same deals):", "",
             "| generation | env steps | search's base move | plays the search's move | search leaves "
             "the base | vs greedy [95%] |", "|---|---|---|---|---|---|"]
    for r in rows:
        score = (f"{r['eval_score']:.3f} [{r['eval_low']:.3f}, {r['eval_high']:.3f}]"
                 if r["eval_score"] != "" else "not evaluated")
        lines.append(f"| {r['generation']} | {r['env_steps']:,} | {r['anchor']} | {r['search_agreement']} | "
                     f"{r['search_switch']} | {score} |")
    return "\n".join(lines) + "\n"


def _plot(rows: list[dict[str, Any]], path: Path) -> Path | None:
    """``curve.png``: rollout win rate and the arena score against greedy (skipped without matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, ax = plt.subplots(figsize=(7, 4))
    xs = [r["env_steps"] for r in rows if r["win_rate"] != ""]
    ax.plot(xs, [r["win_rate"] for r in rows if r["win_rate"] != ""], label="rollout win rate", lw=1)
    ev = [r for r in rows if r["eval_score"] != ""]
    if ev:
        ys = np.array([r["eval_score"] for r in ev])
        err = np.array([[r["eval_score"] - r["eval_low"] for r in ev], [r["eval_high"] - r["eval_score"]
                                                                         for r in ev]])
        ax.errorbar([r["env_steps"] for r in ev], ys, yerr=err, fmt="o-",
                    label="arena score vs greedy (95%)")
    ax.axhline(0.5, color="grey", lw=0.5)
    ax.set_xlabel("env steps")
    ax.set_ylabel("score")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
