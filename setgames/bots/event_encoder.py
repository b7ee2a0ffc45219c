"""An attention encoder over the ``history`` mode's event rows, in float32 numpy: what the
``dmc`` bot runs when its network was trained with ``setgames train --algo dmc --net attention``.

The history block (:mod:`setgames.history`) holds the public events newest first as four
columns, kind, seat, card and arg. The encoder reads each event as the sum of one learned
vector per column value and one per place in the sequence (so that order counts: the
newest card discarded is not the oldest), passes it through a ReLU layer, and pools the
events with ``heads`` learned queries, each a softmax over the events actually there
(padding, kind 0, takes no weight; a history with no events pools to zeros). What it hands
the Q network is the observation with the four event columns taken out and the pooled
vectors put in their place, so the network sees the cards part (and ``event_count``) as before.

The torch module that trains it is :class:`setgames.learn.encoder.EventAttention`; the two are
held equal by ``tests/setgames/learn/test_encoder.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from setgames.history import COLUMNS
from setgames.spec import ObsSpec

__all__ = ["ARRAYS", "EventAttentionNp", "EventLayout", "event_layout"]

# The encoder's arrays in a weights file (each prefixed "enc_"): one table per column, the
# places, the event layer and the queries.
ARRAYS = ("kind", "seat", "card", "arg", "place", "w", "b", "queries")


@dataclass(frozen=True)
class EventLayout:
    """Where the event columns sit in an observation vector.

    Attributes:
        start: offset of ``event_kind`` (the four columns follow one another).
        length: events per column (``L``).
        lows: each column's smallest value (its embedding table's row 0).
        sizes: each column's number of values (its table's rows).
        obs_size: the whole vector's size.
    """

    start: int
    length: int
    lows: tuple[int, int, int, int]
    sizes: tuple[int, int, int, int]
    obs_size: int

    @property
    def stop(self) -> int:
        """Offset just past the four columns."""
        return self.start + 4 * self.length

    @property
    def rest_size(self) -> int:
        """Entries of the observation the encoder passes through (all but the four columns)."""
        return self.obs_size - 4 * self.length


def event_layout(spec: ObsSpec) -> EventLayout:
    """The event columns' layout in ``spec``.

    Raises:
        ValueError: ``spec`` has no event columns (a mode other than ``history``).
    """
    features = {f.name: f for f in spec.features}
    if any(name not in features for name in COLUMNS):
        raise ValueError("the attention encoder reads the history mode's event rows; this observation "
                         "has none (make the game with obs='history')")
    slices = spec.slices
    start, length = slices[COLUMNS[0]].start, features[COLUMNS[0]].shape[0]
    for i, name in enumerate(COLUMNS):
        if slices[name].start != start + i * length or features[name].shape != (length,):
            raise ValueError(f"the event columns of this observation are not four in a row ({name})")
    lows = tuple(features[n].low for n in COLUMNS)
    sizes = tuple(features[n].high - features[n].low + 1 for n in COLUMNS)
    return EventLayout(start, length, lows, sizes, spec.size)  # type: ignore[arg-type]


def _softmax_pool(h: np.ndarray, scores: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """``(N, H, D)``: per query, the events of ``h`` ``(N, L, D)`` weighted by the softmax of
    their ``scores`` ``(N, L, H)`` over the ``valid`` ones ``(N, L)`` (none: zeros)."""
    s = np.where(valid[..., None], scores, np.float32(-1e30))
    s = s - s.max(axis=1, keepdims=True)
    e = np.exp(s) * valid[..., None]
    total = e.sum(axis=1, keepdims=True)
    alpha = e / np.maximum(total, np.float32(1e-30))
    return np.einsum("nlh,nld->nhd", alpha, h)


class EventAttentionNp:
    """The encoder in numpy, from its arrays (:data:`ARRAYS`) and the observation's layout.

    Args:
        arrays: ``name -> array`` for each of :data:`ARRAYS`.
        layout: where the event columns sit (:func:`event_layout`).
    """

    def __init__(self, arrays: dict[str, np.ndarray], layout: EventLayout):
        missing = [k for k in ARRAYS if k not in arrays]
        if missing:
            raise ValueError(f"the encoder lacks {', '.join(missing)}")
        self.layout = layout
        a = {k: np.asarray(arrays[k], np.float32) for k in ARRAYS}
        d = a["w"].shape[0]
        shapes = {"kind": (layout.sizes[0], d), "seat": (layout.sizes[1], d), "card": (layout.sizes[2], d),
                  "arg": (layout.sizes[3], d), "place": (layout.length, d), "w": (d, d), "b": (d,)}
        for k, shape in shapes.items():
            if a[k].shape != shape:
                raise ValueError(f"encoder array {k} has shape {a[k].shape}, not {shape}")
        if a["queries"].ndim != 2 or a["queries"].shape[1] != d:
            raise ValueError(f"encoder array queries has shape {a['queries'].shape}, not (heads, {d})")
        self.arrays = a
        self.embed, self.heads = d, a["queries"].shape[0]

    @property
    def out_size(self) -> int:
        """Entries of an encoded observation: the passed-through ones, then ``heads x embed`` pooled."""
        return self.layout.rest_size + self.heads * self.embed

    def encode(self, obs: np.ndarray) -> np.ndarray:
        """The encoded observations ``(N, out_size)`` of ``obs`` ``(N, obs_size)``
        (or one, ``(obs_size,)``)."""
        one = obs.ndim == 1
        x = np.atleast_2d(obs)
        lay, a = self.layout, self.arrays
        ev = x[:, lay.start:lay.stop].astype(np.int64).reshape(len(x), 4, lay.length)
        idx = [np.clip(ev[:, i] - lay.lows[i], 0, lay.sizes[i] - 1) for i in range(4)]
        e = a["kind"][idx[0]] + a["seat"][idx[1]] + a["card"][idx[2]] + a["arg"][idx[3]] + a["place"]
        h = np.maximum(e @ a["w"] + a["b"], np.float32(0))
        scores = (h @ a["queries"].T) * np.float32(1 / np.sqrt(self.embed))
        pooled = _softmax_pool(h, scores, ev[:, 0] > 0).reshape(len(x), -1)
        out = np.concatenate([x[:, :lay.start].astype(np.float32), x[:, lay.stop:].astype(np.float32),
                              pooled.astype(np.float32)], axis=1)
        return out[0] if one else out

    def to_arrays(self) -> dict[str, Any]:
        """``enc_<name> -> array`` for a weights file."""
        return {f"enc_{k}": v for k, v in self.arrays.items()}
