"""What a pool of arena workers offers (:class:`Backend`) and how long its tasks last.

Below both the executors (:mod:`setgames.arena.executors`) and the Ray
backend (:mod:`setgames.arena.ray_executor`): the executors start the Ray
backend, so the Ray backend cannot take these from them.
"""

from __future__ import annotations

import concurrent.futures as cf
from typing import Protocol

__all__ = ["TARGET_SECONDS", "Backend"]

TARGET_SECONDS = {"local": 0.05, "ray": 0.5}  # of games per task: the overhead stays well under 1%


class Backend(Protocol):
    """A pool of workers that plays chunks of games (local processes or Ray)."""

    slots: int
    target_seconds: float

    def submit(self, start: int, stop: int) -> cf.Future:
        """Play games ``start`` to ``stop - 1``; the future gives ``play_range``'s answer."""

    def lost(self, future: cf.Future, exc: BaseException) -> bool:
        """Whether ``exc`` means the chunk's worker died (its games are lost), not a bug."""

    def error(self, exc: BaseException) -> BaseException:
        """The exception to raise for a failed chunk that was not lost."""

    def cancel(self) -> None:
        """Stop every chunk in flight (Ctrl-C, or an error)."""

    def close(self) -> None:
        """Release the workers."""
