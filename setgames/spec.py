"""One spec drives each observation: named pieces give the flat vector,
the ``Box``, the slices, the decoder and the README table.

>>> spec = ObsSpec([Feature("hand", (3,), 1, "cards in hand"),
...                 Feature("pile", (), 9, "cards left in the pile")])
>>> spec.size, spec.slices["pile"]
(4, slice(3, 4, None))
>>> spec.unpack(np.array([1, 0, 1, 7], dtype=np.int8))["pile"]
7
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from gymnasium import spaces

__all__ = ["ACTION_FEATURES_BEGIN", "ACTION_FEATURES_END", "README_BEGIN", "README_END", "Feature", "ObsSpec",
           "mode_markers"]

README_BEGIN = "<!-- observation-table:begin -->"
README_END = "<!-- observation-table:end -->"
# The per-action feature row's table (a game's ``action_spec``).
ACTION_FEATURES_BEGIN = "<!-- action-features-table:begin -->"
ACTION_FEATURES_END = "<!-- action-features-table:end -->"


def mode_markers(mode: str) -> tuple[str, str]:
    """The README markers of observation mode ``mode``'s table (``cards``: the plain ones).

    >>> mode_markers("structure")
    ('<!-- observation-table:structure:begin -->', '<!-- observation-table:structure:end -->')
    """
    if mode == "cards":
        return README_BEGIN, README_END
    return f"<!-- observation-table:{mode}:begin -->", f"<!-- observation-table:{mode}:end -->"


@dataclass(frozen=True)
class Feature:
    """One named piece of a flat observation vector.

    Attributes:
        name: identifier, unique within the spec.
        shape: shape of the piece (``()`` for a scalar).
        high: largest value any entry can take (inclusive).
        doc: what the entries mean, for the README table.
        low: smallest value any entry can take (inclusive).
    """

    name: str
    shape: tuple[int, ...]
    high: int
    doc: str
    low: int = 0

    @property
    def size(self) -> int:
        """Number of entries the piece takes in the flat vector."""
        return math.prod(self.shape)


class ObsSpec:
    """An ordered list of :class:`Feature` laid out in one flat int8 vector."""

    def __init__(self, features: Sequence[Feature]):
        names = [f.name for f in features]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate feature names in {names}")
        for f in features:
            if not -128 <= f.low <= f.high <= 127:
                raise ValueError(f"feature {f.name!r} range {f.low}..{f.high} does not fit int8")
        self.features: tuple[Feature, ...] = tuple(features)
        self.slices: dict[str, slice] = {}
        start = 0
        for f in self.features:
            self.slices[f.name] = slice(start, start + f.size)
            start += f.size
        self.size = start
        self.low = np.concatenate([np.full(f.size, f.low, np.int8) for f in self.features])
        self.high = np.concatenate([np.full(f.size, f.high, np.int8) for f in self.features])

    def box(self) -> spaces.Box:
        """The ``gymnasium`` Box of the flat vector (int8, per-entry bounds)."""
        return spaces.Box(low=self.low, high=self.high, dtype=np.int8)

    def unpack(self, obs: np.ndarray) -> dict[str, np.ndarray | int]:
        """Split a flat observation (or a batch ``(..., size)``) into named pieces."""
        obs = np.asarray(obs)
        if obs.shape[-1] != self.size:
            raise ValueError(f"observation has {obs.shape[-1]} entries, spec wants {self.size}")
        lead = obs.shape[:-1]
        out: dict[str, np.ndarray | int] = {}
        for f in self.features:
            piece = obs[..., self.slices[f.name]].reshape(lead + f.shape)
            out[f.name] = int(piece) if piece.ndim == 0 else piece
        return out

    def markdown_table(self) -> str:
        """The README table: one row a feature, in order, with its slice."""
        rows = [
            "| # | feature | slice | shape | range | meaning |",
            "|---|---|---|---|---|---|",
        ]
        for i, f in enumerate(self.features):
            s = self.slices[f.name]
            shape = "scalar" if f.shape == () else "x".join(map(str, f.shape))
            rows.append(
                f"| {i} | `{f.name}` | `{s.start}:{s.stop}` | {shape} | {f.low}..{f.high} | {f.doc} |"
            )
        rows.append(f"\nTotal length: {self.size} (int8).")
        return "\n".join(rows)

    def readme_block(self, begin: str = README_BEGIN, end: str = README_END) -> str:
        """The table wrapped in the markers that :meth:`check_readme` looks for (``begin`` and
        ``end``: the observation table's unless given, e.g. :func:`mode_markers`)."""
        return f"{begin}\n{self.markdown_table()}\n{end}"

    def check_readme(self, path: str | Path, begin: str = README_BEGIN, end: str = README_END) -> None:
        """Raise ``AssertionError`` unless ``path`` holds exactly this spec's table between the
        markers ``begin`` and ``end``."""
        text = Path(path).read_text(encoding="utf-8")
        m = re.search(re.escape(begin) + r"\n(.*?)\n" + re.escape(end), text, re.S)
        if m is None:
            raise AssertionError(f"{path} has no observation table between the markers")
        if m.group(1) != self.markdown_table():
            raise AssertionError(
                f"{path}: observation table differs from the spec; regenerate it with "
                "`python -m setgames.docs`"
            )

    def write_readme(self, path: str | Path, begin: str = README_BEGIN, end: str = README_END) -> bool:
        """Replace the table between the markers ``begin`` and ``end`` in ``path``; True when it
        changed."""
        p = Path(path)
        text = p.read_text(encoding="utf-8")
        pat = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
        if not pat.search(text):
            raise ValueError(f"{path} has no {begin} ... {end} markers")
        new = pat.sub(lambda _: self.readme_block(begin, end), text)
        p.write_text(new, encoding="utf-8")
        return new != text
