"""The arena on Ray: chunks of games as Ray tasks, on a local Ray or a cluster.

Without an address a private Ray instance starts on this machine with
``workers`` CPUs, bound to the loopback address, and stops at the end; with
one (``host:port`` of a head started by ``ray start --head``, ``ray://...``
for Ray Client, or ``auto``) the run joins that cluster and uses its CPUs.
A program that already called ``ray.init`` keeps its Ray as it is.

The job (plan and bot specs) goes to the object store once; each task names
a range of game indices and builds its bots from their specs in the worker.
A task whose worker dies is retried once by Ray (a node lost to the cluster
costs nothing); a second death loses that chunk's games, and the run goes on.
A Ray worker outlives the run (on a joined cluster, or a program's own Ray), so
each task ends the programs of its ``exec:`` bots before it returns; the next
task starts them again (each game begins with its own ``new_game`` message).
Needs the ``ray`` extra: ``pip install -e '.[ray]'``.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import signal
import socket
from typing import Any

from setgames.arena.backend import TARGET_SECONDS
from setgames.arena.worker import Job, close_programs, play_range

__all__ = ["INSTALL_HINT", "RayBackend", "check_address", "import_ray", "play_range_then_close"]

INSTALL_HINT = "pip install -e '.[ray]'"
CONNECT_SECONDS = 5.0  # to reach a head's port before Ray itself is asked (it retries for minutes)
TASK_RETRIES = 1  # Ray re-runs a task once after its worker died, then its games count as lost
_LOG = logging.getLogger(__name__)


def import_ray() -> Any:
    """The ``ray`` module, or an ImportError that says how to install it."""
    try:
        import ray
    except ImportError:
        raise ImportError(f"the ray executor needs Ray, which is not installed: {INSTALL_HINT}") from None
    return ray


def check_address(address: str, timeout: float = CONNECT_SECONDS) -> None:
    """Refuse, in one line, an address whose port cannot be reached.

    Ray's own connection attempts retry for minutes and print lines from its
    C++ core; a plain TCP connection answers at once. ``auto`` is left to Ray.

    >>> check_address("localhost")
    Traceback (most recent call last):
    ...
    ValueError: bad Ray address 'localhost': write HOST:PORT, ray://HOST:PORT or auto
    """
    if address == "auto":
        return
    hostport = address.removeprefix("ray://")
    host, sep, port = hostport.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"bad Ray address {address!r}: write HOST:PORT, ray://HOST:PORT or auto")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise ConnectionError(f"cannot reach a Ray cluster at {address}: {reason}") from None


def play_range_then_close(job: Job, start: int, stop: int) -> tuple[list[dict[str, Any]], float]:
    """:func:`~setgames.arena.worker.play_range`, then end the ``exec:`` programs it started:
    nothing else would, since the Ray worker that holds them stays up after the run."""
    try:
        return play_range(job, start, stop)
    finally:
        close_programs()


class RayBackend:
    """Chunks of games as Ray tasks; see the module docstring."""

    target_seconds = TARGET_SECONDS["ray"]

    def __init__(self, job: Job, workers: int, address: str | None = None):
        self.ray = ray = import_ray()
        self._owned = False
        if not ray.is_initialized():
            if address is not None:
                check_address(address)
            # ray.init installs a SIGTERM handler that exits at once; the arena's
            # own (finished games kept and saved) must stay in force.
            term = signal.getsignal(signal.SIGTERM)
            kwargs: dict[str, Any] = {"address": address} if address is not None else {
                "num_cpus": workers, "_node_ip_address": "127.0.0.1"}
            try:
                ray.init(include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False,
                         configure_logging=True, **kwargs)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = f"at {address}" if address else "on this machine"
                first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                raise ConnectionError(f"cannot start or join Ray {where}: {first}") from None
            finally:
                if term is not None:
                    signal.signal(signal.SIGTERM, term)
            self._owned = True
        self._printer = None
        if self._owned:  # a program's own Ray keeps its output as the program set it
            self._quiet_errors()
        cpus = int(ray.cluster_resources().get("CPU", 0)) or workers
        self.slots = 2 * cpus  # a task queued behind each running one keeps every CPU busy
        self._job = ray.put(job)
        self._remote = ray.remote(num_cpus=1, max_retries=TASK_RETRIES)(play_range_then_close)
        self._refs: dict[cf.Future, Any] = {}

    def _quiet_errors(self) -> None:
        # Ray's driver prints every error its cluster reports for the job (a worker that
        # died, a task retried: paragraphs, on stdout, with no option to turn them off),
        # which would break into the progress bar and the results table. The arena
        # reports lost games itself, in one line; Ray's text goes to a logger instead.
        module = getattr(getattr(self.ray, "_private", None), "worker", None)
        self._printer = getattr(module, "print_to_stdstream", None)
        if self._printer is None:
            return

        def to_log(data: dict[str, Any], ignore_prefix: bool = False) -> None:
            for line in data.get("lines", ()):
                _LOG.info("%s: %s", data.get("pid", "ray"), line)

        module.print_to_stdstream = to_log

    def _restore_errors(self) -> None:
        if self._printer is not None:
            self.ray._private.worker.print_to_stdstream = self._printer
            self._printer = None

    def submit(self, start: int, stop: int) -> cf.Future:
        """One Ray task for games ``start`` to ``stop - 1``."""
        ref = self._remote.remote(self._job, start, stop)
        fut = ref.future()
        self._refs[fut] = ref
        fut.add_done_callback(self._forget)
        return fut

    def _forget(self, fut: cf.Future) -> None:
        self._refs.pop(fut, None)

    def lost(self, future: cf.Future, exc: BaseException) -> bool:
        """Any Ray failure but the task's own exception: its worker or node died."""
        errors = self.ray.exceptions
        return isinstance(exc, errors.RayError) and not isinstance(exc, errors.RayTaskError)

    def error(self, exc: BaseException) -> BaseException:
        """The game's own exception, not Ray's wrapper (whose text holds the remote traceback)."""
        cause = getattr(exc, "cause", None)
        return cause if isinstance(cause, BaseException) else exc

    def cancel(self) -> None:
        """Cancel every task in flight on the cluster, killing those that run."""
        for ref in list(self._refs.values()):
            try:
                self.ray.cancel(ref, force=True)
            except Exception:  # a task that just finished cannot be cancelled; nothing to do
                continue

    def close(self) -> None:
        """Stop the Ray this run started (a joined cluster stays up; this driver leaves it)."""
        self._refs.clear()
        if self._owned:
            self.ray.shutdown()
        self._restore_errors()
