"""The ``ppo`` bot: a trained policy network, run in numpy (no torch needed).

The weights of a game's policy ship in its package, named by its descriptor's
``ppo_weights`` field (``"package:relative/path.npz"``, e.g.
``"tethsi_env:weights/ppo.npz"``); :mod:`setgames.learn.ppo` trains and writes
them. A weights file is an ``.npz`` of the policy's layers ``w0, b0, w1, b1,
...`` (ReLU between them, the last layer's output the action logits) and the
metadata :data:`META_KEYS`; :func:`load_policy` refuses, in one line, a file
for another game, game version, observation size or action count.
"""

from __future__ import annotations

import importlib.resources
import json
from pathlib import Path
from typing import Any

import numpy as np

from setgames import registry
from setgames.bots.base import Bot
from setgames.game import Game

__all__ = ["FORMAT", "META_KEYS", "PpoBot", "PpoPolicy", "WeightsError", "load_policy", "weights_path"]

FORMAT = 1  # the layout of a weights file; bumped when it changes
META_KEYS = ("format", "game", "version", "obs_size", "num_actions", "config", "library_version")


class WeightsError(ValueError):
    """A weights file that cannot serve this game (its message is one line)."""


class PpoPolicy:
    """A ReLU multilayer perceptron from observation to action logits, in float32 numpy.

    Args:
        layers: ``[(w, b), ...]``, ``w`` of shape ``(inputs, outputs)``.
        meta: the file's metadata (game, version, sizes, config, library version).
    """

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any]):
        self.layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        self.meta = meta

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Logits ``(..., num_actions)`` of observations ``(..., obs_size)`` (any numeric dtype)."""
        x = np.asarray(obs, np.float32)
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if i < last:
                np.maximum(x, 0.0, out=x)
        return x

    def save(self, path: str | Path) -> Path:
        """Write the policy and its metadata to ``path`` (a compressed ``.npz``)."""
        arrays: dict[str, Any] = {}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        meta = dict(self.meta, format=FORMAT)
        for key in META_KEYS:
            value = meta[key]
            arrays[f"meta_{key}"] = np.array(json.dumps(value) if key == "config" else value)
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:  # a file handle: savez would append .npz to another suffix
            np.savez_compressed(fh, **arrays)
        return path


def load_policy(path: str | Path, game: Game | None = None) -> PpoPolicy:
    """The policy in ``path``, checked against ``game`` when given.

    Raises:
        WeightsError: the file is unreadable, of another format, or made for another
            game, game version, observation size or action count (one line naming both).
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            files = dict(data)
    except (OSError, ValueError) as exc:
        raise WeightsError(f"cannot read ppo weights {path}: {exc}") from None
    try:
        meta = {k: files[f"meta_{k}"].item() for k in META_KEYS}
        meta["config"] = json.loads(meta["config"])
        n = sum(1 for k in files if k.startswith("w"))
        layers = [(files[f"w{i}"], files[f"b{i}"]) for i in range(n)]
    except (KeyError, ValueError) as exc:
        raise WeightsError(f"{path} is not a ppo weights file (missing {exc})") from None
    if meta["format"] != FORMAT:
        raise WeightsError(f"{path} has weights format {meta['format']}, this library reads {FORMAT}")
    if game is not None:
        obs_size = _obs_size(game)
        want = {"game": game.name, "version": game.version, "obs_size": obs_size,
                "num_actions": game.num_actions}
        for key, value in want.items():
            if meta[key] != value:
                raise WeightsError(f"{path} was trained for {key} {meta[key]!r}, not {value!r} "
                                   f"({game.name} v{game.version}, obs {obs_size}, "
                                   f"{game.num_actions} actions)")
    if not layers or layers[0][0].shape[0] != meta["obs_size"] or layers[-1][0].shape[1] != meta[
            "num_actions"]:
        raise WeightsError(f"{path}: its layers do not match its own obs_size and num_actions")
    return PpoPolicy(layers, meta)


def _obs_size(game: Game) -> int:
    """The length of ``game``'s flat observation (from a dealt state; games fix it per config)."""
    state = game.new_state(np.random.default_rng(0))
    return int(np.asarray(game.observe(state, game.current_seat(state))).size)


def weights_path(game_name: str) -> Path:
    """The shipped weights of game ``game_name`` (its descriptor's ``ppo_weights``).

    Raises:
        ValueError: the game ships no ppo weights.
    """
    ref = registry.describe(game_name).ppo_weights
    if ref is None:
        have = [n for n in registry.game_names() if registry.describe(n).ppo_weights is not None]
        raise ValueError(f"no ppo weights for game {game_name!r}; ppo weights ship for "
                         f"{', '.join(have) or 'no game'}")
    package, _, rel = ref.partition(":")
    return Path(str(importlib.resources.files(package).joinpath(rel)))


class PpoBot(Bot):
    """Plays a trained policy: the legal action of highest logit, or one sampled from the
    masked softmax with the bot's own generator.

    Args:
        seed: seeds the generator of ``sample=True``.
        game_name: the game whose shipped weights to load (when ``weights`` is None).
        weights: path of a weights file to play instead of the shipped one.
        sample: draw from the policy's distribution instead of taking its argmax.
    """

    name = "ppo"

    def __init__(self, seed: int | None = None, game_name: str | None = None,
                 weights: str | None = None, sample: bool = False):
        super().__init__(seed)
        if weights is None:
            if game_name is None:
                raise ValueError("the ppo bot needs a game_name or a weights file")
            weights = str(weights_path(game_name))
        self.weights = str(weights)
        self.sample = bool(sample)
        self._policy: PpoPolicy | None = None
        self._checked: tuple[Any, ...] | None = None
        if game_name is not None:  # refuse a mismatched file when built, not at the first move
            self._load(registry.make_game(game_name))

    def _load(self, game: Game) -> PpoPolicy:
        """The policy, checked against ``game`` (once per game name, version and config)."""
        key = (game.name, game.version, game.num_actions, json.dumps(game.config_dict(), sort_keys=True))
        if self._policy is None or self._checked != key:
            self._policy = load_policy(self.weights, game)
            self._checked = key
        return self._policy

    def act(self, game: Game, state: Any, seat: int) -> int:
        """The policy's legal action for ``seat``."""
        return self._choose(game, game.observe(state, seat), game.legal_actions(state))

    def supports_engine(self, game: Game, engine: Any) -> bool:
        """Every engine gives the observation and the legal list (the rules layer's)."""
        return self._moves_as(PpoBot)

    def act_engine(self, game: Game, engine: Any, seat: int) -> int:
        """:meth:`act` on the engine's observation and legal list of ``seat``."""
        return self._choose(game, engine.observe(seat), engine.legal_actions())

    def _choose(self, game: Game, obs: np.ndarray, legal_ids: list[int]) -> int:
        policy = self._load(game)
        logits = policy.logits(obs)
        legal = np.asarray(legal_ids)
        z = logits[legal]
        if not self.sample:
            return int(legal[int(np.argmax(z))])
        p = np.exp(z - z.max())
        p /= p.sum()
        return int(legal[int(self.rng.choice(len(legal), p=p))])

    def __repr__(self) -> str:
        return f"PpoBot(weights={self.weights!r}, sample={self.sample})"
