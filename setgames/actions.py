"""Action layouts: one ``Discrete(n)`` made of documented, contiguous blocks.

Each game declares its blocks once; offsets, labels, the parser and the
README table all come from that declaration, never from magic numbers.

>>> layout = ActionLayout([ActionBlock("take", 1, lambda i: "take"),
...                        ActionBlock("play", 3, lambda i: f"play {i}")])
>>> layout.n, layout.start("play"), layout.label(2), layout.parse("PLAY 1")
(4, 1, 'play 1', 2)
>>> layout.decode(3)
('play', 2)
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["ActionBlock", "ActionLayout"]


@dataclass(frozen=True)
class ActionBlock:
    """A run of ``size`` consecutive action ids of one kind.

    Attributes:
        name: block name (e.g. ``"discard"``).
        size: number of ids in the block.
        label: index within the block -> unique readable label.
        doc: what the block's ids mean, for the README table.
    """

    name: str
    size: int
    label: Callable[[int], str]
    doc: str = ""


class ActionLayout:
    """Ordered action blocks with precomputed labels and a parser."""

    def __init__(self, blocks: Sequence[ActionBlock]):
        self.blocks = tuple(blocks)
        self._start: dict[str, int] = {}
        kinds: list[str] = []
        index: list[int] = []
        labels: list[str] = []
        for b in self.blocks:
            self._start[b.name] = len(labels)
            for i in range(b.size):
                kinds.append(b.name)
                index.append(i)
                labels.append(b.label(i))
        self.n = len(labels)
        self.labels: tuple[str, ...] = tuple(labels)
        self._kind = tuple(kinds)
        self._index = tuple(index)
        self._parse = {lab.lower(): a for a, lab in enumerate(labels)}
        if len(self._parse) != self.n:
            dup = sorted({x for x in labels if labels.count(x) > 1})
            raise ValueError(f"action labels are not unique: {dup[:5]}")

    def start(self, block: str) -> int:
        """First action id of ``block``."""
        return self._start[block]

    def block_range(self, block: str) -> range:
        """All action ids of ``block``."""
        s = self._start[block]
        size = next(b.size for b in self.blocks if b.name == block)
        return range(s, s + size)

    def decode(self, action: int) -> tuple[str, int]:
        """``(block name, index within block)`` of ``action``."""
        self.check(action)
        return self._kind[action], self._index[action]

    def check(self, action: int) -> None:
        """Raise ``ValueError`` unless ``action`` is an id of this layout."""
        if not isinstance(action, int) or not 0 <= action < self.n:
            raise ValueError(f"action {action!r} is not an action id 0..{self.n - 1}")

    def label(self, action: int) -> str:
        """Readable label of ``action``."""
        self.check(action)
        return self.labels[action]

    def parse(self, text: str) -> int:
        """Action id of a label (case and surrounding space ignored), or a decimal id."""
        key = " ".join(str(text).split()).lower()
        if key in self._parse:
            return self._parse[key]
        if key.isdigit() and int(key) < self.n:
            return int(key)
        close = difflib.get_close_matches(key, self._parse, n=3)
        hint = f"; did you mean {', '.join(repr(self.labels[self._parse[c]]) for c in close)}?"
        raise ValueError(f"unknown action {text!r}" + (hint if close else ""))

    def markdown_table(self) -> str:
        """README table of the blocks: ids, name, meaning, first and last labels."""
        rows = ["| ids | block | meaning | labels |", "|---|---|---|---|"]
        for b in self.blocks:
            s = self._start[b.name]
            ids = f"{s}" if b.size == 1 else f"{s}-{s + b.size - 1}"
            labs = f"`{b.label(0)}`" if b.size == 1 else f"`{b.label(0)}` .. `{b.label(b.size - 1)}`"
            rows.append(f"| {ids} | {b.name} | {b.doc} | {labs} |")
        rows.append(f"\nTotal: Discrete({self.n}).")
        return "\n".join(rows)
