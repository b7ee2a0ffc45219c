"""Where the games of an arena run: this process, local worker processes, or Ray.

Every executor yields ``(index, result)`` in game order, ``result`` being
``None`` for a game lost to a worker that died. Local processes and Ray get
the games in *chunks* of consecutive indices, one task each: a task costs a
fixed overhead to schedule (measured on 2 busy cores: 0.12-0.30 ms in a local
pool, 1.2-3.3 ms under Ray; ``benchmarks/arena_overhead.py``), so chunks are
sized from the measured cost of the games already played to last about
:data:`~setgames.arena.backend.TARGET_SECONDS` of the backend, and the first
tasks hold one game each. Chunking never changes a result: a game's seeds come from its index.
At most ``slots`` tasks are in flight, so the games are produced lazily and
memory stays flat however long the run.
"""

from __future__ import annotations

import concurrent.futures as cf
import math
import multiprocessing as mp
from collections.abc import Iterator
from typing import Any

from setgames.arena.backend import TARGET_SECONDS, Backend
from setgames.arena.worker import Job, init_worker, play_game, play_range

__all__ = ["EXECUTORS", "LocalBackend", "chunk_size", "execute"]

EXECUTORS = ("serial", "local", "ray")
MAX_CHUNK = 10_000  # games in one task, so a chunk's results stay small in flight
POLL_SECONDS = 0.5  # waits are cut in pieces so that Ctrl-C is seen at once


def chunk_size(per_game: float | None, remaining: int, slots: int, target: float) -> int:
    """Games in the next task: about ``target`` seconds of them, spread over every slot.

    >>> chunk_size(None, 1000, 4, 0.5), chunk_size(0.01, 1000, 4, 0.5), chunk_size(0.01, 60, 4, 0.5)
    (1, 50, 15)
    """
    if per_game is None:
        return 1
    size = math.ceil(target / max(per_game, 1e-7))
    return max(1, min(size, math.ceil(remaining / slots), MAX_CHUNK))


def execute(job: Job, executor: str, workers: int,
            address: str | None = None) -> Iterator[tuple[int, dict[str, Any] | None]]:
    """Play every game of ``job`` on ``executor``; ``(index, result or None if lost)`` in game order."""
    total = len(job.plan)
    if executor == "serial":
        init_worker(job)
        for task in job.plan.tasks(0, total):
            yield task.index, play_game(job, task)
        return
    if executor == "local":
        backend: Backend = LocalBackend(job, workers)
    elif executor == "ray":
        from setgames.arena.ray_executor import RayBackend

        backend = RayBackend(job, workers, address)
    else:
        raise ValueError(f"unknown executor {executor!r}; choose from {', '.join(EXECUTORS)}")
    yield from _gather(backend, total)


def _gather(backend: Backend, total: int) -> Iterator[tuple[int, dict[str, Any] | None]]:
    inflight: dict[cf.Future, tuple[int, int]] = {}
    ready: dict[int, tuple[int, list | None]] = {}
    next_start = emitted = 0
    seconds = 0.0
    played = 0
    try:
        while emitted < total:
            while next_start < total and len(inflight) < backend.slots:
                size = chunk_size(seconds / played if played else None, total - next_start,
                                  backend.slots, backend.target_seconds)
                stop = min(total, next_start + size)
                inflight[backend.submit(next_start, stop)] = (next_start, stop)
                next_start = stop
            finished, _ = cf.wait(inflight, timeout=POLL_SECONDS, return_when=cf.FIRST_COMPLETED)
            for fut in finished:
                start, stop = inflight.pop(fut)
                try:
                    results, took = fut.result()
                except Exception as exc:
                    if not backend.lost(fut, exc):
                        raise backend.error(exc) from None
                    ready[start] = (stop, None)
                else:
                    ready[start] = (stop, results)
                    seconds += took
                    played += stop - start
            while emitted in ready:
                stop, results = ready.pop(emitted)
                if results is None:
                    for i in range(emitted, stop):
                        yield i, None
                else:
                    for res in results:
                        yield res["index"], res
                emitted = stop
    except BaseException:
        backend.cancel()
        raise
    finally:
        backend.close()


class LocalBackend:
    """Worker processes on this machine (``concurrent.futures``, forked where the OS can).

    A worker that dies breaks its pool: the chunks in flight in it are lost,
    and a new pool plays the rest.
    """

    target_seconds = TARGET_SECONDS["local"]

    def __init__(self, job: Job, workers: int):
        self.job = job
        self.workers = workers
        self.slots = 2 * workers
        methods = mp.get_all_start_methods()
        self._ctx = mp.get_context("fork" if "fork" in methods else "spawn")
        self._pool = self._new_pool()

    def _new_pool(self) -> cf.ProcessPoolExecutor:
        return cf.ProcessPoolExecutor(self.workers, mp_context=self._ctx, initializer=init_worker,
                                      initargs=(self.job, True))

    def submit(self, start: int, stop: int) -> cf.Future:
        """Send one chunk to the pool (a new pool if a worker died since the last chunk)."""
        try:
            fut = self._pool.submit(play_range, self.job, start, stop)
        except cf.process.BrokenProcessPool:
            # A worker died after the last wait: the pool refuses chunks before its own futures,
            # lost, are seen. Those stay tied to the old pool; this chunk goes to a new one.
            self._terminate(self._pool)
            self._pool = self._new_pool()
            fut = self._pool.submit(play_range, self.job, start, stop)
        fut.setgames_pool = self._pool  # which pool broke, when it breaks
        return fut

    def lost(self, future: cf.Future, exc: BaseException) -> bool:
        """A broken pool (a worker died) loses its chunks; the next chunks go to a new pool."""
        if not isinstance(exc, cf.process.BrokenProcessPool):
            return False
        if getattr(future, "setgames_pool", None) is self._pool:
            self._terminate(self._pool)
            self._pool = self._new_pool()
        return True

    def error(self, exc: BaseException) -> BaseException:
        """A game's own error (an illegal move, a bug) is raised as it is."""
        return exc

    def cancel(self) -> None:
        """End the workers now: a game in progress is not waited for."""
        self._terminate(self._pool)

    @staticmethod
    def _terminate(pool: cf.ProcessPoolExecutor) -> None:
        # (taken before shutdown(), which drops the pool's references to them)
        processes = list((getattr(pool, "_processes", None) or {}).values())
        writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
        call_queue = getattr(pool, "_call_queue", None)
        if call_queue is not None:
            # Chunks still buffered for killed workers are dropped: else the queue's feeder thread,
            # blocked on a pipe no worker reads, is joined at interpreter exit and the process
            # hangs after it has saved everything (seen once in CI after SIGTERM).
            call_queue.cancel_join_thread()
        pool.shutdown(wait=False, cancel_futures=True)
        for p in processes:  # shutdown() alone would let each worker finish its chunk
            if p.is_alive():
                p.terminate()
        for p in processes:
            p.join()
        if writer is not None:
            # A worker killed while sending a result (SIGTERM to the whole process group) leaves
            # half a message in the result pipe, and the pool's manager thread waits for the
            # rest; the exit, joining that thread, hung (1 run in 45 here). With this process's
            # unused write end closed and the workers gone, the thread reads EOF and ends.
            writer.close()

    def close(self) -> None:
        """Wait for the (idle) workers to exit."""
        self._pool.shutdown(wait=True, cancel_futures=True)
