"""The ``dmc`` bot: an action-value network trained by Deep Monte-Carlo, run in numpy.

A Deep Monte-Carlo policy (:mod:`setgames.learn.dmc`, ``setgames train --algo dmc``) scores
each legal action by one network ``Q(observation, row)``, where the row is the action's
per-action features (``game.action_features``: facts about the action and the position after
it), and plays the legal action of highest score. A weights file is an ``.npz`` of the
network's layers ``w0, b0, w1, b1, ...`` (ReLU between them; the first layer reads the
observation followed by the row, the last gives one number) and the metadata
:data:`META_KEYS`; its ``config`` names the observation mode it reads (``obs``), and the bot
observes in that mode whatever mode the game it plays was made with
(:func:`setgames.bots.views.in_mode`). :func:`load_dmc` refuses, in one line, a file for another
game, game version, observation or row size or action count.

A network trained with ``--net attention`` (format 2) reads the ``history`` mode's observation
through an attention encoder over its event rows first (:mod:`setgames.bots.event_encoder`: the
``enc_*`` arrays and ``enc_layout``); the first layer then reads the encoded observation.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from setgames import registry
from setgames.bots.base import Bot
from setgames.bots.event_encoder import ARRAYS as ENCODER_ARRAYS
from setgames.bots.event_encoder import EventAttentionNp, EventLayout, event_layout
from setgames.bots.ppo import WeightsError, _Bad, _floats, _read_npz, _scalar, save_weights
from setgames.bots.views import game_obs, in_mode
from setgames.game import Game
from setgames.obs import DEFAULT_OBS

__all__ = ["DMC_FORMAT", "DMC_FORMATS", "META_KEYS", "DmcBot", "DmcPolicy", "load_dmc"]

DMC_FORMAT = 2  # the newest layout of a dmc weights file; bumped when it changes
# What each format holds (both are read; an MLP alone is still written as format 1).
DMC_FORMATS = {1: "an MLP over the observation and an action's row",
               2: "the same after an attention encoder over the event rows (enc_* arrays)"}
META_KEYS = ("format", "game", "version", "obs_size", "row_size", "num_actions", "config", "library_version")
_KIND = "dmc"  # meta_kind: what tells a dmc file from a ppo one


class DmcPolicy:
    """``Q(observation, row)``: a ReLU multilayer perceptron over the observation followed by
    one action's feature row, in float32 numpy.

    Args:
        layers: ``(w, b)`` pairs, ``x @ w + b``; the first reads ``obs_size + row_size``
            inputs, the last gives one output.
        meta: the file's metadata (:data:`META_KEYS`).
        encoder: the event encoder the observation goes through first (None: it is read as is).
    """

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any],
                 encoder: EventAttentionNp | None = None):
        self.layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        self.meta = meta
        self.encoder = encoder
        n_obs = encoder.out_size if encoder is not None else meta["obs_size"]
        w0 = self.layers[0][0]
        # The first layer split in two: the observation's part is computed once per position.
        self._w_obs, self._w_row = w0[:n_obs], w0[n_obs:]

    @property
    def obs_mode(self) -> str:
        """The observation mode the network reads."""
        return str(self.meta["config"].get("obs", DEFAULT_OBS))

    def values(self, obs: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The scores ``(R,)`` of ``rows`` ``(R, row_size)`` in the position ``obs``."""
        b0 = self.layers[0][1]
        if self.encoder is not None:
            obs = self.encoder.encode(obs)
        x = np.maximum(obs.astype(np.float32) @ self._w_obs + rows.astype(np.float32) @ self._w_row + b0, 0.0)
        for i, (w, b) in enumerate(self.layers[1:], 1):
            x = x @ w + b
            if i < len(self.layers) - 1:
                np.maximum(x, 0.0, out=x)
        return x[:, 0]

    def save(self, path: str | Path) -> Path:
        """Write the network and its metadata to ``path`` (a compressed ``.npz``)."""
        arrays: dict[str, Any] = {}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        arrays["meta_kind"] = np.array(_KIND)
        if self.encoder is None:
            return save_weights(path, arrays, dict(self.meta, format=1), META_KEYS)  # (old readers too)
        lay = self.encoder.layout
        arrays.update(self.encoder.to_arrays(), enc_layout=np.array(
            [lay.start, lay.length, *lay.lows, *lay.sizes], np.int64))
        return save_weights(path, arrays, dict(self.meta, format=DMC_FORMAT), META_KEYS)


def load_dmc(path: str | Path, game: Game | None = None) -> DmcPolicy:
    """The policy in ``path``, checked against ``game`` (seen in the policy's mode) when given.

    Raises:
        WeightsError: the file is unreadable, not a dmc file, or made for another game, game
            version, observation size, row size or action count (one line naming both).
    """
    files = _read_npz(path)
    try:
        if _scalar(files, "meta_kind") != _KIND:
            raise _Bad("meta_kind is not 'dmc'")
        meta = {k: _scalar(files, f"meta_{k}") for k in META_KEYS}
        meta["config"] = json.loads(meta["config"])
        if not isinstance(meta["config"], dict):
            raise _Bad("meta_config is not a JSON object")
        n = sum(1 for k in files if k.startswith("w"))
        layers = [(_floats(files, f"w{i}", 2), _floats(files, f"b{i}", 1)) for i in range(n)]
        encoder = _encoder(files, meta) if meta["format"] == 2 else None
    except KeyError as exc:
        raise WeightsError(f"{path} is not a dmc weights file (missing {exc})") from None
    except (_Bad, ValueError, TypeError) as exc:
        raise WeightsError(f"{path} is not a dmc weights file ({exc})") from None
    for key in ("format", "obs_size", "row_size", "num_actions"):
        if isinstance(meta[key], bool) or not isinstance(meta[key], int) or meta[key] < 0:
            raise WeightsError(f"{path} is not a dmc weights file (meta_{key} {meta[key]!r} is not a count)")
    if meta["format"] not in DMC_FORMATS:
        raise WeightsError(f"{path} has dmc format {meta['format']}, this library reads "
                           f"{' and '.join(map(str, DMC_FORMATS))}")
    for i, (w, b) in enumerate(layers):
        if b.shape != (w.shape[1],) or (i and w.shape[0] != layers[i - 1][0].shape[1]):
            raise WeightsError(f"{path}: layer {i} has shapes {w.shape} and {b.shape}, which do not "
                               f"follow {'its bias' if not i else f'layer {i - 1}'}")
    inputs = (encoder.out_size if encoder is not None else meta["obs_size"]) + meta["row_size"]
    if not layers or layers[0][0].shape[0] != inputs or layers[-1][0].shape[1] != 1:
        what = "the encoded observation" if encoder is not None else "obs_size"
        raise WeightsError(f"{path}: its layers do not read {what} + row_size inputs and give one value")
    policy = DmcPolicy(layers, meta, encoder)
    if game is not None:
        try:
            view = in_mode(game, policy.obs_mode)
        except ValueError as exc:
            raise WeightsError(f"{path}: {exc}") from None
        row = view.action_spec.size if view.action_spec is not None else None
        want = {"game": view.name, "version": view.version, "obs_size": view.obs_spec.size,
                "row_size": row, "num_actions": view.num_actions}
        for key, value in want.items():
            if meta[key] != value:
                raise WeightsError(f"{path} was trained for {key} {meta[key]!r}, not {value!r} "
                                   f"({view.name} v{view.version} in obs mode {policy.obs_mode!r})")
        if encoder is not None and encoder.layout != _layout_or_none(view.obs_spec):
            raise WeightsError(f"{path}: its encoder reads event columns laid out as {encoder.layout}, "
                               f"which {view.name} in obs mode {policy.obs_mode!r} does not have")
    return policy


def _layout_or_none(spec: Any) -> EventLayout | None:
    try:
        return event_layout(spec)
    except ValueError:
        return None


def _encoder(files: Any, meta: dict[str, Any]) -> EventAttentionNp:
    """A format-2 file's event encoder (raises KeyError or ValueError for a bad one)."""
    lay = [int(v) for v in np.asarray(files["enc_layout"]).ravel()]
    if len(lay) != 10:
        raise ValueError(f"enc_layout has {len(lay)} numbers, not 10")
    layout = EventLayout(lay[0], lay[1], tuple(lay[2:6]), tuple(lay[6:10]), meta["obs_size"])  # type: ignore[arg-type]
    if layout.start < 0 or layout.length < 1 or layout.stop > layout.obs_size or min(layout.sizes) < 1:
        raise ValueError(f"enc_layout {lay} does not fit an observation of {layout.obs_size}")
    return EventAttentionNp({k: _floats(files, f"enc_{k}", 1 if k == "b" else 2) for k in ENCODER_ARRAYS},
                            layout)


class DmcBot(Bot):
    """Plays a Deep Monte-Carlo policy: the legal action whose feature row scores highest
    (ties to the lowest id).

    Args:
        seed: unused by the choice (it is deterministic); kept for the bot protocol.
        game_name: the game the bot plays (its file is checked against it when built).
        weights: path of the ``dmc.npz`` to play (``setgames train --algo dmc`` writes one).
    """

    name = "dmc"

    def __init__(self, seed: int | None = None, game_name: str | None = None, weights: str | None = None):
        super().__init__(seed)
        if weights is None:
            raise ValueError("the dmc bot needs a weights file: dmc:weights=PATH")
        self.weights = str(weights)
        self._policy = load_dmc(self.weights)
        self._checked: Any = None
        if game_name is not None:
            if self._policy.meta["game"] != game_name:
                raise WeightsError(f"{self.weights} was trained for game {self._policy.meta['game']!r}, "
                                   f"not {game_name!r}")
            try:
                trained_for = registry.make_game(game_name, **self._policy.meta["config"])
            except (TypeError, ValueError) as exc:
                raise WeightsError(f"{self.weights}: its config is not one of {game_name}'s "
                                   f"({exc})") from None
            self._load(trained_for)

    def _load(self, game: Game) -> Game:
        """The game as the policy sees it, the file checked against it once per config."""
        key = (type(game), json.dumps(game.config_dict(), sort_keys=True))
        if self._checked != key:
            load_dmc(self.weights, game)
            self._checked = key
        return in_mode(game, self._policy.obs_mode)

    def act(self, game: Game, state: Any, seat: int) -> int:
        """The legal action of highest value for ``seat``."""
        view = self._load(game)
        return self._choose(view.observe(state, seat), view.action_features(state, seat),
                            game.legal_actions(state))

    def supports_engine(self, game: Game, engine: Any) -> bool:
        """An engine of the game in the policy's own mode that gives per-action features."""
        return (self._moves_as(DmcBot) and game_obs(self._load(game)) == game_obs(game)
                and hasattr(engine, "action_features"))

    def act_engine(self, game: Game, engine: Any, seat: int) -> int:
        """:meth:`act` on the engine's observation, rows and legal list of ``seat``."""
        return self._choose(engine.observe(seat), engine.action_features(seat), engine.legal_actions())

    def _choose(self, obs: np.ndarray, rows: np.ndarray, legal_ids: list[int]) -> int:
        legal = np.asarray(legal_ids)
        return int(legal[int(np.argmax(self._policy.values(obs, rows[legal])))])

    def __repr__(self) -> str:
        return f"DmcBot(weights={self.weights!r})"
