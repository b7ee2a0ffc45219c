"""``setgames train GAME``: the arguments of :func:`setgames.learn.ppo.train` (``--algo ppo``, the
default) and :func:`setgames.learn.dmc.train_dmc` (``--algo dmc``), importing no torch until it
runs, so the other subcommands work in a plain install.

The options both learners read share one flag; where their defaults differ the help says both.
An option of one learner given to the other is refused in one line."""

from __future__ import annotations

import argparse
import dataclasses
import json

from setgames.usage import UsageError, build_game, parse_config

__all__ = ["CHOICES", "HELP", "add_arguments", "run"]

_SKIP = ("game", "config", "progress")


def _defaults() -> dict[str, object]:
    # TrainConfig's defaults, written out: the parser is built for every subcommand, and importing
    # setgames.learn.ppo would import torch (a test holds the two equal).
    return dict(steps=2_000_000, seed=1, num_envs=512, rollout=64, curriculum="random:0.05,greedy",
                hidden=128, lr=3e-4, gamma=0.995, gae_lambda=0.95, epochs=3, minibatches=8, clip=0.2,
                ent_coef=0.01, vf_coef=0.5, max_grad_norm=0.5, prior="none", prior_bonus=2.0, head=0,
                playouts=0.0, playout_share=1.0, redeals=0, distil=0.0, switch_margin=0.0,
                distil_temp=0.0, generations=1, search_value=0.0, threads=1,
                env_threads=1, eval_every=20, eval_games=200, out="runs/ppo", device="cpu")


# What each option does, as ``setgames train --help`` shows it (a test holds one per option).
HELP = {
    "steps": "environment steps to train for, every seat's moves counted",
    "seed": "seed of the deals, the network's weights and the sampling",
    "num_envs": "games the batched engine steps at once",
    "rollout": "steps per game between two updates (the rollout is NUM_ENVS x ROLLOUT moves)",
    "curriculum": "opponents and their share of the steps, e.g. random:0.1,greedy (the last takes the rest)",
    "hidden": "width of the two hidden layers of the actor and of the critic",
    "lr": "Adam's learning rate",
    "gamma": "discount of future rewards",
    "gae_lambda": "lambda of the generalised advantage estimate",
    "epochs": "passes over each rollout per update",
    "minibatches": "minibatches each pass splits the rollout into",
    "clip": "PPO's clip range of the probability ratio",
    "ent_coef": "weight of the entropy bonus",
    "vf_coef": "weight of the critic's loss",
    "max_grad_norm": "gradients are clipped to this norm",
    "prior": "none (learn from the observation alone), greedy (the greedy move as an input and a logit "
             "bonus) or features (greedy's per-move features after the observation)",
    "prior_bonus": "with --prior greedy: the greedy move's starting logit above the others",
    "head": "width of the move head that scores each row of greedy's features "
            "(0: none; needs --prior features)",
    "playouts": "weight of the term over every legal action's greedy play-out value (0: off)",
    "playout_share": "share of the learner's positions whose actions are played out",
    "redeals": "play-out values averaged over this many re-deals of the unseen cards (0: the true deal)",
    "distil": "weight of the cross-entropy to the search's move in played-out positions (0: off)",
    "switch_margin": "the search's move is greedy's unless another action's value beats it by more than this",
    "distil_temp": "above 0: a soft distillation target, softmax of the values at this temperature",
    "generations": "expert iteration: run the recipe this many times, each on the last one's moves",
    "search_value": "weight of a second critic target, the play-out value of the search's move",
    "threads": "torch threads for the networks and their updates",
    "env_threads": "threads the batched engine steps its games on",
    "eval_every": "updates between two evaluations against greedy (0: only at the end)",
    "eval_games": "arena games of each evaluation against greedy, on duplicate deals",
    "out": "directory for ppo.npz, its model card ppo.md, curve.csv and curve.png",
    "device": "where the networks run: cpu, cuda or auto (cuda when torch sees one); "
              "the batch steps on the CPU",
}
CHOICES = {"prior": ("none", "greedy", "features"), "device": ("cpu", "cuda", "auto"),
           "net": ("mlp", "attention")}
ALGOS = ("ppo", "dmc")
# DmcConfig's defaults, written out as TrainConfig's are (a test holds them equal): the options
# only DMC reads, and the shared ones whose DMC default differs.
DMC_ONLY = {"epsilon": 0.05, "net": "mlp", "embed": 32, "heads": 4}
DMC_DEFAULTS = {"rollout": 32, "lr": 1e-3, "epochs": 1, "max_grad_norm": 1.0,
                "out": "runs/dmc"}
DMC_SHARED = ("steps", "seed", "num_envs", "rollout", "curriculum", "hidden", "lr", "epochs", "minibatches",
              "max_grad_norm", "threads", "env_threads", "eval_every", "eval_games", "out", "device")
HELP_DMC = {"epsilon": "with --algo dmc: the share of the learner's moves played uniformly at random",
            "net": "with --algo dmc: Q's network, mlp (over the observation as a vector) or attention "
                   "(an attention encoder over the event rows first; needs --config obs=history)",
            "embed": "with --net attention: width of each event's learned vector",
            "heads": "with --net attention: learned queries pooling the events (each adds embed inputs to Q)",
            "out": "directory for the weights (ppo.npz or dmc.npz), the model card, curve.csv and curve.png",
            "epochs": "passes over each rollout's data per update",
            "minibatches": "minibatches each pass splits the rollout's data into",
            "hidden": "width of the hidden layers (PPO: of the actor and of the critic; DMC: of Q)"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``setgames train`` (one per :class:`~setgames.learn.ppo.TrainConfig` field)."""
    p.add_argument("game", help="game to train on (it needs a batched engine)")
    p.add_argument("--algo", choices=ALGOS, default="ppo",
                   help="the learner: ppo (an actor-critic on the observation) or dmc (Deep Monte-Carlo: "
                        "action values over the per-action features; the game needs them) (default: ppo)")
    for key, value in {**_defaults(), **DMC_ONLY}.items():
        kind = {"choices": CHOICES[key]} if key in CHOICES else {"metavar": type(value).__name__.upper()}
        if key in DMC_ONLY:
            default = f"(default: {value}; dmc only)"
        elif key not in DMC_SHARED:
            default = f"(default: {value}; ppo only)"
        elif key in DMC_DEFAULTS:
            default = f"(default: {value}; dmc: {DMC_DEFAULTS[key]})"
        else:
            default = f"(default: {value})"
        # None: not given, so each learner takes its own default (and a learner's own option given
        # to the other is told apart from its default).
        p.add_argument(f"--{key.replace('_', '-')}", dest=key, type=type(value), default=None,
                       help=f"{HELP_DMC.get(key, HELP.get(key))} {default}", **kind)
    p.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                   help="game config option (repeatable)")
    p.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="force the progress bar on (default: when stderr is a terminal)")
    p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    """Train, then print where the weights, card and curve went.

    The game, its config and the device are checked before the set-up, so a bad one ends in
    one line (exit 2), not in a traceback."""
    from setgames.registry import game_class, game_names

    try:
        from setgames.learn.ppo import TrainConfig, resolve_device, train
    except ModuleNotFoundError as exc:
        raise UsageError(f"setgames train needs torch ({exc}); pip install torch, then "
                         "pip install -e '.[train]' in a checkout") from None
    if args.game not in game_names():
        raise UsageError(f"unknown game {args.game!r}; choose from {', '.join(game_names())}")
    config = parse_config(args.config)
    game = build_game(game_class(args.game), args.game, config)
    algo = getattr(args, "algo", "ppo")
    given = {k: v for k, v in vars(args).items() if v is not None and k in {**_defaults(), **DMC_ONLY}}
    own = DMC_SHARED + tuple(DMC_ONLY) if algo == "dmc" else tuple(_defaults())
    stray = [k for k in given if k not in own]
    if stray:
        flags = ", ".join(f"--{k.replace('_', '-')}" for k in stray)
        other = "ppo" if algo == "dmc" else "dmc"
        raise UsageError(f"{flags}: an option of --algo {other}, not of --algo {algo}")
    try:
        resolve_device(given.get("device", "cpu"))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if algo == "dmc":
        if getattr(game, "action_spec", None) is None:
            raise UsageError(f"--algo dmc learns from per-action features, which {args.game} with "
                             f"{config or 'its default config'} does not offer (game.action_spec is None)")
        from setgames.learn.dmc import DmcConfig, train_dmc

        cfg_dmc = DmcConfig(game=args.game, config=config, progress=args.progress, **given)
        try:
            summary = train_dmc(cfg_dmc)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    else:
        fields = {f.name for f in dataclasses.fields(TrainConfig)}
        kwargs = {k: v for k, v in given.items() if k in fields and k not in _SKIP}
        cfg = TrainConfig(game=args.game, config=config, progress=args.progress, **kwargs)
        try:
            summary = train(cfg)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    print(json.dumps({k: summary[k] for k in ("env_steps", "wall_s", "cpu_s", "steps_per_s", "last_eval",
                                              "weights", "weights_bytes")}))
    return 0
