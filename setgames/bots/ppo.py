"""The ``ppo`` bot: a trained policy network, run in numpy (no torch needed).

The weights of a game's policies ship in its package, in the folder its
descriptor's ``ppo_weights`` field names (``"package:relative/folder"``, e.g.
``"<game>_env:weights"``): one ``ppo*.npz`` per configuration trained (for a game
of 2 or 3 players, ``ppo-2p.npz`` and ``ppo-3p.npz``), each with its model card beside it;
:func:`weights_path` picks the file trained for a game's configuration (the same
number of players, then the most options alike). :mod:`setgames.learn.ppo`
trains and writes them. A weights file is an ``.npz`` of the policy's layers ``w0, b0, w1, b1,
...`` (ReLU between them, the last layer's output the action logits) and the
metadata :data:`META_KEYS`. A policy with the greedy prior (``prior`` =
``"greedy"``, what ``setgames train --prior greedy`` trains: residual learning
on the rule bot) also reads the greedy bot's move ``g`` in the position: the
first layer adds row ``g`` of ``e0`` to its sum, and ``bonus`` is added to
``g``'s logit, so a fresh policy plays the greedy move and training learns
when to play another; the bot asks the game's greedy bot (seeded from its own
seed) for ``g``. A policy with the features prior (``"features"``, format 3)
reads ``g`` the same way and, after the observation, the game's greedy
features (its descriptor's ``greedy_features``: what the greedy bot weighs for
each action, flattened): its first layer has ``obs_size + features`` inputs.
Format 4 adds the move head (:class:`RowHeadWeights`, ``head_*`` arrays): a small
network shared by every row of the features scores each row for the move it
describes.
:func:`load_policy` refuses, in one line, a file for another game, game version,
observation size or action count.
"""

from __future__ import annotations

import importlib.resources
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from setgames import registry
from setgames.bots.base import Bot
from setgames.bots.lookup import greedy_class
from setgames.bots.views import game_obs, in_mode
from setgames.game import Game
from setgames.obs import DEFAULT_OBS

__all__ = ["FORMAT", "HEAD_GAIN", "META_KEYS", "PpoBot", "PpoPolicy", "RowHeadWeights", "WeightsError",
           "load_policy", "save_weights", "shipped_weights", "weights_path"]

FORMAT = 4  # the layout of a weights file; bumped when it changes (2: the greedy prior; 3: features; 4: head)
READS = (1, 2, 3, 4)  # the formats this library reads
# The move head reads its rows times this: features are a few tenths apart, and the head's weights
# then move at the pace of the body's.
HEAD_GAIN = 10.0
META_KEYS = ("format", "game", "version", "obs_size", "num_actions", "config", "library_version")
PRIORS = ("none", "greedy", "features")  # what a policy reads besides its observation (train --prior)


class WeightsError(ValueError):
    """A weights file that cannot serve this game (its message is one line)."""


@dataclass(frozen=True)
class RowHeadWeights:
    """A policy's move head (format 4; ``setgames train --head``): one ReLU MLP ``layers``
    shared by every row of the greedy features scores the row (its inputs times ``gain``),
    and the score joins the logit of action ``moves[row]``. ``tie`` is the column flagging
    greedy's exact ties (-1: none): where greedy's move is flagged, the first layer leaves
    out its embedding and the bonus goes to every flagged move."""

    layers: list[tuple[np.ndarray, np.ndarray]]
    moves: np.ndarray
    gain: float
    tie: int

    def scores(self, rows: np.ndarray) -> np.ndarray:
        """The rows' scores ``(..., R)`` for rows ``(..., R, cols)``."""
        (w0, b0), (w1, b1) = self.layers
        return (np.maximum((rows * np.float32(self.gain)) @ w0 + b0, 0.0) @ w1 + b1)[..., 0]


class PpoPolicy:
    """A ReLU multilayer perceptron from observation to action logits, in float32 numpy.

    Args:
        layers: ``[(w, b), ...]``, ``w`` of shape ``(inputs, outputs)``.
        meta: the file's metadata (game, version, sizes, config, library version).
        prior: with the greedy prior, ``(e0, bonus)``: ``e0`` of shape
            ``(num_actions, outputs of the first layer)``, ``bonus`` a float.

        head: the move head (:class:`RowHeadWeights`), or None.

    ``meta["features"]`` (0 when absent) is the length of the greedy features the
    first layer reads after the observation.
    """

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any],
                 prior: tuple[np.ndarray, float] | None = None, head: RowHeadWeights | None = None):
        self.layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        self.meta = dict(meta, features=int(meta.get("features", 0)))
        self.prior = None if prior is None else (np.asarray(prior[0], np.float32), float(prior[1]))
        self.head = None if head is None else RowHeadWeights(
            [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in head.layers],
            np.asarray(head.moves, np.int64), float(head.gain), int(head.tie))

    @property
    def needs_greedy(self) -> bool:
        """Whether :meth:`logits` needs the greedy bot's move."""
        return self.prior is not None

    @property
    def needs_features(self) -> bool:
        """Whether :meth:`logits` needs the greedy features."""
        return self.meta["features"] > 0

    def logits(self, obs: np.ndarray, greedy: Any = None, features: Any = None) -> np.ndarray:
        """Logits ``(..., num_actions)`` of observations ``(..., obs_size)`` (any numeric
        dtype); ``greedy`` (an int or int array ``(...)``) is the greedy bot's move in each,
        needed by a policy with the greedy prior; ``features`` (``(..., k)`` or ``(...,
        num_actions, k)``), the greedy features, needed by one with the features prior.

        Raises:
            ValueError: ``greedy`` or ``features`` missing for a policy that needs them.
        """
        x = np.asarray(obs, np.float32)
        rows = None
        if self.needs_features:
            if features is None:
                raise ValueError("this policy reads the greedy features: pass features=")
            f = np.asarray(features, np.float32).reshape(*x.shape[:-1], -1)
            if f.shape[-1] != self.meta["features"]:
                raise ValueError(f"this policy reads {self.meta['features']} greedy features, "
                                 f"got {f.shape[-1]}")
            x = np.concatenate([x, f], -1)
            if self.head is not None:
                rows = f.reshape(*f.shape[:-1], len(self.head.moves), -1)
        tied = tie_moves = None
        if self.prior is not None:
            if greedy is None:
                raise ValueError("this policy reads the greedy bot's move: pass greedy=")
            g = np.asarray(greedy, np.int64)
            if rows is not None and self.head.tie >= 0:
                tie_moves = np.zeros((*x.shape[:-1], self.meta["num_actions"]), np.float32)
                tie_moves[..., self.head.moves] = rows[..., self.head.tie]
                tied = np.take_along_axis(tie_moves, g[..., None], -1) > 0
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if i == 0 and self.prior is not None:
                x += self.prior[0][g] if tied is None else np.where(tied, np.float32(0), self.prior[0][g])
            if i < last:
                np.maximum(x, 0.0, out=x)
        if rows is not None:
            x[..., self.head.moves] += self.head.scores(rows)
        if self.prior is not None and tied is None:
            np.put_along_axis(x, g[..., None], np.take_along_axis(x, g[..., None], -1) + self.prior[1], -1)
        elif self.prior is not None:
            one = np.zeros_like(x)
            np.put_along_axis(one, g[..., None], np.float32(1), -1)
            x += np.float32(self.prior[1]) * np.where(tied, tie_moves, one)
        return x

    def save(self, path: str | Path) -> Path:
        """Write the policy and its metadata to ``path`` (a compressed ``.npz``)."""
        arrays: dict[str, Any] = {}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        if self.prior is not None:
            arrays["e0"], arrays["bonus"] = self.prior[0], np.float32(self.prior[1])
        if self.head is not None:
            for i, (w, b) in enumerate(self.head.layers):
                arrays[f"head_w{i}"], arrays[f"head_b{i}"] = w, b
            arrays["head_moves"], arrays["head_gain"] = self.head.moves, np.float32(self.head.gain)
            arrays["head_tie"] = np.int64(self.head.tie)
        meta = dict(self.meta, format=FORMAT)
        arrays["meta_features"] = np.array(meta["features"])
        return save_weights(path, arrays, meta, META_KEYS)


def save_weights(path: str | Path, arrays: dict[str, Any], meta: dict[str, Any],
                 keys: tuple[str, ...]) -> Path:
    """Write ``arrays`` and the ``keys`` of ``meta`` (as ``meta_<key>``; the config as JSON) to
    ``path``, a compressed ``.npz``: the one layout of every policy file."""
    for key in keys:
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
    files = _read_npz(path)
    try:
        meta = {k: _scalar(files, f"meta_{k}") for k in META_KEYS}
        meta["config"] = json.loads(meta["config"])
        meta["features"] = _scalar(files, "meta_features", int) if "meta_features" in files else 0
        n = sum(1 for k in files if k.startswith("w"))
        layers = [(_floats(files, f"w{i}", 2), _floats(files, f"b{i}", 1)) for i in range(n)]
        prior = (_floats(files, "e0", 2), _scalar(files, "bonus", float)) if "e0" in files else None
        head = None
        if "head_moves" in files:
            moves = files["head_moves"]
            if moves.ndim != 1 or moves.dtype.kind not in "iu":
                raise _Bad("head_moves is not a list of action ids")
            head = RowHeadWeights([(_floats(files, f"head_w{i}", 2), _floats(files, f"head_b{i}", 1))
                                   for i in range(2)], moves, _scalar(files, "head_gain", float),
                                  _scalar(files, "head_tie", int))
    except KeyError as exc:
        raise WeightsError(f"{path} is not a ppo weights file (missing {exc})") from None
    except (_Bad, ValueError, TypeError) as exc:  # ValueError: the config is not JSON
        raise WeightsError(f"{path} is not a ppo weights file ({exc})") from None
    for key in ("format", "obs_size", "num_actions", "features"):
        if isinstance(meta[key], bool) or not isinstance(meta[key], int) or meta[key] < 0:
            raise WeightsError(f"{path} is not a ppo weights file (meta_{key} {meta[key]!r} is not a count)")
    # Every layer's shapes, so that a bad file is refused here and not at its first move.
    for i, (w, b) in enumerate(layers):
        if b.shape != (w.shape[1],) or (i and w.shape[0] != layers[i - 1][0].shape[1]):
            raise WeightsError(f"{path}: layer {i} has shapes {w.shape} and {b.shape}, which do not "
                               f"follow {'its bias' if not i else f'layer {i - 1}'}")
    if head is not None:
        (hw0, hb0), (_, hb1) = head.layers
        if hb0.shape != (hw0.shape[1],) or hb1.shape != (1,):
            raise WeightsError(f"{path}: its move head's biases do not match its layers")
    if meta["format"] not in READS:
        raise WeightsError(f"{path} has weights format {meta['format']}, this library reads "
                           f"{', '.join(map(str, READS))}")
    if game is not None:
        obs_size = _obs_size(game)
        want = {"game": game.name, "version": game.version, "obs_size": obs_size,
                "num_actions": game.num_actions}
        for key, value in want.items():
            if meta[key] != value:
                raise WeightsError(f"{path} was trained for {key} {meta[key]!r}, not {value!r} "
                                   f"({game.name} v{game.version}, obs {obs_size}, "
                                   f"{game.num_actions} actions)")
    if game is not None and meta["features"]:
        have = _features_size(game)
        if have != meta["features"]:
            raise WeightsError(f"{path} reads {meta['features']} greedy features, {game.name} gives "
                               f"{have or 'none'}")
    inputs = meta["obs_size"] + meta["features"]
    if not layers or layers[0][0].shape[0] != inputs or layers[-1][0].shape[1] != meta["num_actions"]:
        raise WeightsError(f"{path}: its layers do not match its own obs_size and num_actions")
    if prior is not None and prior[0].shape != (meta["num_actions"], layers[0][0].shape[1]):
        raise WeightsError(f"{path}: its greedy prior does not match its first layer and num_actions")
    if head is not None:
        moves = np.asarray(head.moves)
        cols = meta["features"] // max(1, len(moves))
        if (not meta["features"] or cols * len(moves) != meta["features"]
                or head.layers[0][0].shape[0] != cols
                or head.layers[1][0].shape != (head.layers[0][0].shape[1], 1) or moves.min() < 0
                or moves.max() >= meta["num_actions"] or len(set(moves.tolist())) != len(moves)
                or not -1 <= head.tie < cols):
            raise WeightsError(f"{path}: its move head does not match its greedy features and num_actions")
    return PpoPolicy(layers, meta, prior, head)


MAX_FILE_BYTES = 256 * 2**20  # what a weights file may expand to (the shipped ones are a few MB)
MAX_MEMBERS = 256  # arrays in a weights file


class _Bad(Exception):
    """A weights array of the wrong kind (the caller names the file)."""


def _read_npz(path: str | Path) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` at ``path``, sizes checked before anything is inflated.

    Raises:
        WeightsError: not a readable zip of ``.npy`` arrays of numbers and strings, more than
            :data:`MAX_FILE_BYTES` once inflated (a zip bomb), or an array header that
            claims more than its member holds (one line).
    """
    import zipfile

    def refuse(why: str) -> WeightsError:
        return WeightsError(f"cannot read ppo weights {path}: {why}")

    try:
        archive = zipfile.ZipFile(path)
    except (OSError, EOFError, ValueError, zipfile.BadZipFile) as exc:
        raise refuse(f"not an .npz file ({getattr(exc, 'strerror', None) or exc})") from None
    with archive:
        infos = archive.infolist()
        total = sum(i.file_size for i in infos)
        if len(infos) > MAX_MEMBERS or total > MAX_FILE_BYTES:
            raise refuse(f"{len(infos)} arrays expanding to {total / 2**20:.0f} MB; a weights file holds "
                         f"at most {MAX_MEMBERS} arrays and {MAX_FILE_BYTES // 2**20} MB")
        out: dict[str, np.ndarray] = {}
        try:
            for info in infos:
                if not info.filename.endswith(".npy"):
                    raise refuse(f"member {info.filename[:60]!r} is not a .npy array")
                with archive.open(info) as fh:
                    version = np.lib.format.read_magic(fh)
                    shape, _, dtype = (np.lib.format.read_array_header_1_0(fh) if version == (1, 0)
                                       else np.lib.format.read_array_header_2_0(fh))
                    # read_array allocates what the header says before reading: check it against the
                    # member's size, which the zip index gives and the inflater holds to.
                    if dtype.hasobject or dtype.kind not in "biufcU":
                        raise refuse(f"array {info.filename[:60]!r} has dtype {dtype}")
                    if int(np.prod(shape, dtype=np.float64)) * dtype.itemsize > info.file_size:
                        raise refuse(f"array {info.filename[:60]!r} claims shape {shape}, more than it holds")
                with archive.open(info) as fh:
                    out[info.filename[:-4]] = np.lib.format.read_array(fh, allow_pickle=False)
        except WeightsError:
            raise
        except (OSError, EOFError, ValueError, zipfile.BadZipFile, RuntimeError) as exc:
            why = str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
            raise refuse(f"a damaged array ({why})") from None
    return out


def _scalar(files: dict[str, np.ndarray], key: str, kind: type | None = None) -> Any:
    """The 0-d array ``key`` as a Python value (``kind``: int or float, finite)."""
    a = files[key]
    if a.ndim != 0:
        raise _Bad(f"{key} has shape {a.shape}, not a single value")
    value = a.item()
    if kind is int and (a.dtype.kind not in "iu"):
        raise _Bad(f"{key} is {a.dtype}, not an integer")
    if kind is float and (a.dtype.kind not in "iuf" or not np.isfinite(value)):
        raise _Bad(f"{key} is {value!r} ({a.dtype}), not a finite number")
    return value


def _floats(files: dict[str, np.ndarray], key: str, ndim: int) -> np.ndarray:
    """The weights ``key``: real floats of ``ndim`` dimensions, none empty, all finite."""
    a = files[key]
    if a.dtype.kind != "f":
        raise _Bad(f"{key} is {a.dtype}, not floats")
    if a.ndim != ndim or 0 in a.shape:
        raise _Bad(f"{key} has shape {a.shape}, not a {'matrix' if ndim == 2 else 'vector'}")
    if not np.isfinite(a).all():
        raise _Bad(f"{key} holds NaN or infinite weights")
    return a


def _features_size(game: Game) -> int:
    """The length of ``game``'s flat greedy features (0 when its descriptor has none)."""
    features = registry.part(game.name, "greedy_features")
    if features is None:
        return 0
    state = game.new_state(np.random.default_rng(0))
    return int(np.asarray(features(game, state, game.current_seat(state))).size)


def _obs_size(game: Game) -> int:
    """The length of ``game``'s flat observation (from a dealt state; games fix it per config)."""
    state = game.new_state(np.random.default_rng(0))
    return int(np.asarray(game.observe(state, game.current_seat(state))).size)


def shipped_weights(game_name: str) -> list[Path]:
    """Every weights file game ``game_name`` ships (``ppo*.npz`` in its descriptor's
    ``ppo_weights`` folder), by name.

    Raises:
        ValueError: the game ships no ppo weights.
    """
    ref = registry.describe(game_name).ppo_weights
    files: list[Path] = []
    if ref is not None:
        package, _, rel = ref.partition(":")
        folder = Path(str(importlib.resources.files(package).joinpath(rel)))
        files = sorted(folder.glob("ppo*.npz"))
    if not files:
        have = [n for n in registry.game_names() if registry.describe(n).ppo_weights is not None]
        raise ValueError(f"no ppo weights for game {game_name!r}; ppo weights ship for "
                         f"{', '.join(have) or 'no game'}")
    return files


def _file_meta(path: Path) -> dict[str, Any]:
    files = _read_npz(path)
    try:
        meta = {k: _scalar(files, f"meta_{k}") for k in META_KEYS}
    except (KeyError, _Bad) as exc:
        raise WeightsError(f"{path} is not a ppo weights file ({exc})") from None
    meta["config"] = json.loads(meta["config"])
    return meta


def weights_path(game_name: str, game: Game | None = None) -> Path:
    """The shipped weights for ``game`` (a game of ``game_name``; its default
    configuration when None): among the files made for this game, version,
    observation size and action count, the one trained with the same number of
    players and then the most options equal to ``game``'s (the first by name on a tie).

    Raises:
        ValueError: the game ships no ppo weights, or none for this configuration
            (naming the configurations it ships).
    """
    files = shipped_weights(game_name)
    game = game if game is not None else registry.make_game(game_name)
    want = game.config_dict()
    obs_size = _obs_size(game)
    best: tuple[int, Path] | None = None
    trained = []
    for path in files:
        meta = _file_meta(path)
        cfg = meta["config"]
        trained.append(f"{path.name} ({', '.join(f'{k}={v}' for k, v in cfg.items())})")
        if (meta["game"], meta["version"], meta["obs_size"], meta["num_actions"]) != (
                game.name, game.version, obs_size, game.num_actions):
            continue
        if cfg.get("num_players") != want.get("num_players"):
            continue
        agree = sum(cfg.get(k) == v for k, v in want.items())
        if best is None or agree > best[0]:
            best = (agree, path)
    if best is None:
        raise ValueError(f"no shipped ppo weights fit {game_name} with "
                         f"{', '.join(f'{k}={v}' for k, v in want.items())}; shipped: {'; '.join(trained)}")
    return best[1]


def _prior_seed(seed: int | None) -> int | None:
    """The greedy prior's seed: apart from the sampling's, so their draws are not the same."""
    return None if seed is None else (int(seed) * 1_000_003 + 17) % (1 << 63)


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
        if weights is None and game_name is None:
            raise ValueError("the ppo bot needs a game_name or a weights file")
        # Without a file, the shipped one for each game's configuration, chosen when it is met.
        self.weights = str(weights) if weights is not None else None
        self.sample = bool(sample)
        self._policy: PpoPolicy | None = None
        self._mode = DEFAULT_OBS  # the observation mode the policy reads (setgames.bots.views)
        self._greedy: Bot | None = None
        self._greedy_game: str | None = None
        self._features: Any = None  # the game's greedy_features, for a policy that reads them
        self._features_engine: Any = None  # and their engine route
        self._greedy_seed = _prior_seed(seed)
        self._checked: tuple[Any, ...] | None = None
        if game_name is not None:  # refuse a mismatched file when built, not at the first move
            if self.weights is None:
                self._load(registry.make_game(game_name))
            else:  # checked against the configuration it was trained for (and again where it plays)
                meta = load_policy(self.weights).meta
                if meta["game"] != game_name:
                    raise WeightsError(f"{self.weights} was trained for game {meta['game']!r}, "
                                       f"not {game_name!r}")
                try:
                    trained_for = registry.make_game(game_name, **meta["config"])
                except (TypeError, ValueError) as exc:
                    raise WeightsError(f"{self.weights}: its config is not one of {game_name}'s "
                                       f"({exc})") from None
                self._load(trained_for)

    def _load(self, game: Game) -> PpoPolicy:
        """The policy, checked against ``game`` (once per game name, version and config)."""
        key = (game.name, game.version, game.num_actions, json.dumps(game.config_dict(), sort_keys=True))
        if self._policy is None or self._checked != key:
            path = self.weights if self.weights is not None else weights_path(game.name, game)
            # A policy reads the observation mode it was trained on, whatever mode the game
            # it plays was made with.
            self._mode = load_policy(path).meta["config"].get("obs", DEFAULT_OBS)
            try:
                view = in_mode(game, self._mode)
            except ValueError as exc:
                raise WeightsError(f"{path}: {exc}") from None
            self._policy = load_policy(path, view)
            self._checked = key
            if self._policy.needs_greedy and (self._greedy is None or self._greedy_game != game.name):
                self._greedy = greedy_class(game.name)(self._greedy_seed)
                self._greedy_game = game.name
            self._features = self._features_engine = None
            if self._policy.needs_features:
                self._features = registry.part(game.name, "greedy_features")
                self._features_engine = registry.part(game.name, "greedy_features_engine")
                if self._features is None:
                    raise WeightsError(f"{path} reads greedy features, which {game.name} does not offer")
        return self._policy

    def reset(self, seed: int | None) -> None:
        """Reseed the sampling and the greedy prior's tie-breaks."""
        super().reset(seed)
        self._greedy_seed = _prior_seed(seed)
        if self._greedy is not None:
            self._greedy.reset(self._greedy_seed)

    def act(self, game: Game, state: Any, seat: int) -> int:
        """The policy's legal action for ``seat``."""
        policy = self._load(game)
        g = self._greedy.act(game, state, seat) if self._greedy is not None else None
        f = self._features(game, state, seat) if self._features is not None else None
        view = in_mode(game, self._mode)
        return self._choose(policy, view.observe(state, seat), game.legal_actions(state), g, f)

    def supports_engine(self, game: Game, engine: Any) -> bool:
        """Every engine gives the observation and the legal list (the rules layer's); a
        policy with the greedy prior also needs its greedy bot's engine route, and one
        reading the greedy features their engine route."""
        if not self._moves_as(PpoBot):
            return False
        self._load(game)
        if game_obs(game) != self._mode:  # the engine observes in its game's mode only
            return False
        if self._load(game).needs_features and (
                self._features_engine is None
                or self._features_engine(game, engine, engine.current_seat()) is None):
            return False
        return self._greedy is None or self._greedy.supports_engine(game, engine)

    def act_engine(self, game: Game, engine: Any, seat: int) -> int:
        """:meth:`act` on the engine's observation and legal list of ``seat``."""
        policy = self._load(game)
        g = self._greedy.act_engine(game, engine, seat) if self._greedy is not None else None
        f = self._features_engine(game, engine, seat) if self._features_engine is not None else None
        return self._choose(policy, engine.observe(seat), engine.legal_actions(), g, f)

    def _choose(self, policy: PpoPolicy, obs: np.ndarray, legal_ids: list[int], greedy: int | None,
                features: np.ndarray | None = None) -> int:
        logits = policy.logits(obs, greedy, features)
        legal = np.asarray(legal_ids)
        z = logits[legal]
        if not self.sample:
            return int(legal[int(np.argmax(z))])
        p = np.exp(z - z.max())
        p /= p.sum()
        return int(legal[int(self.rng.choice(len(legal), p=p))])

    def __repr__(self) -> str:
        return f"PpoBot(weights={self.weights!r}, sample={self.sample})"
