"""Ctrl-C and SIGTERM during an arena: both stop the run the same way.

SIGTERM (what ``kill``, ``timeout`` and service managers send) would end the
interpreter at once, losing the finished games and, with a worker pool,
leaving its workers to die writing into a closed pipe. While an arena runs it
is turned into :class:`Terminated`, a ``KeyboardInterrupt``, so one code path
keeps the finished games, writes the results and ends the workers.
"""

from __future__ import annotations

import signal
import threading
from typing import Any

__all__ = ["STOP_SIGNALS", "Terminated", "signals_deferred", "sigterm_as_interrupt"]

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived during an arena; handled like Ctrl-C."""


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated("SIGTERM")


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


class sigterm_as_interrupt:
    """Within the body, SIGTERM raises :class:`Terminated` (nothing outside the main thread)."""

    def __enter__(self) -> sigterm_as_interrupt:
        self._old = signal.signal(signal.SIGTERM, _raise_terminated) if _in_main_thread() else None
        return self

    def __exit__(self, *exc: object) -> None:
        if self._old is not None:
            signal.signal(signal.SIGTERM, self._old)


class signals_deferred:
    """Hold back Ctrl-C and SIGTERM for the body and act on them once it is done.

    The Python-level handlers are swapped, not the thread's signal mask: the
    worker pool's threads would take a masked signal in the main thread's place.
    Outside the main thread (where handlers cannot be set) it does nothing.
    """

    def __enter__(self) -> None:
        self._got: list[int] = []
        self._old: dict[int, Any] = {}
        if _in_main_thread():
            for sig in STOP_SIGNALS:
                self._old[sig] = signal.signal(sig, self._note)

    def _note(self, signum: int, frame: Any) -> None:
        self._got.append(signum)

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)
        for sig in dict.fromkeys(self._got):
            old = self._old[sig]
            if callable(old):
                old(sig, None)  # default_int_handler or _raise_terminated: raises
            elif old == signal.SIG_DFL:
                signal.raise_signal(sig)
