"""``setgames train GAME``: the arguments of :func:`setgames.learn.ppo.train` (importing no torch
until it runs, so the other subcommands work in a plain install)."""

from __future__ import annotations

import argparse
import dataclasses
import json

from setgames.usage import UsageError, parse_config

__all__ = ["add_arguments", "run"]

_SKIP = ("game", "config", "progress")


def _defaults() -> dict[str, object]:
    # TrainConfig's defaults, written out: the parser is built for every subcommand, and importing
    # setgames.learn.ppo would import torch (a test holds the two equal).
    return dict(steps=2_000_000, seed=1, num_envs=512, rollout=64, curriculum="random:0.05,greedy",
                hidden=128, lr=3e-4, gamma=0.995, gae_lambda=0.95, epochs=3, minibatches=8, clip=0.2,
                ent_coef=0.01, vf_coef=0.5, max_grad_norm=0.5, prior="none", prior_bonus=2.0, head=0,
                playouts=0.0, playout_share=1.0, redeals=0, distil=0.0, switch_margin=0.0,
                distil_temp=0.0, generations=1, search_value=0.0, threads=1,
                env_threads=1, eval_every=20, eval_games=200, out="runs/ppo")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``setgames train`` (one per :class:`~setgames.learn.ppo.TrainConfig` field)."""
    p.add_argument("game", help="game to train on (it needs a batched engine)")
    for key, value in _defaults().items():
        p.add_argument(f"--{key.replace('_', '-')}", dest=key, type=type(value), default=value,
                       metavar=type(value).__name__.upper())
    p.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                   help="game config option (repeatable)")
    p.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="force the progress bar on (default: when stderr is a terminal)")
    p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    """Train, then print where the weights, card and curve went."""
    try:
        from setgames.learn.ppo import TrainConfig, train
    except ModuleNotFoundError as exc:
        raise UsageError(f"setgames train needs torch ({exc}); pip install torch, then "
                         "pip install -e '.[train]' in a checkout") from None
    fields = {f.name for f in dataclasses.fields(TrainConfig)}
    kwargs = {k: v for k, v in vars(args).items() if k in fields and k not in _SKIP}
    cfg = TrainConfig(game=args.game, config=parse_config(args.config), progress=args.progress, **kwargs)
    try:
        summary = train(cfg)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print(json.dumps({k: summary[k] for k in ("env_steps", "wall_s", "cpu_s", "steps_per_s", "last_eval",
                                              "weights", "weights_bytes")}))
    return 0
