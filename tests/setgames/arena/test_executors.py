"""Executors: results in game order from chunks finishing in any order, lost chunks, dead workers."""

from __future__ import annotations

import concurrent.futures as cf
import json
import multiprocessing as mp
import os
import struct
import sys

import pytest

from setgames.arena import ArenaGame, BotSpec, run_arena
from setgames.arena.executors import LocalBackend, _gather, chunk_size
from setgames.arena.runner import RESULTS_FILE
from setgames.arena.seating import derive_seed
from setgames.records import RECORDS_FILE, load_records
from tests.setgames.arena.dying_bots import dying_factory
from tests.setgames.bots.helpers import first_legal_factory
from tests.setgames.toy_game import ToyGame

TOY = ArenaGame.of(ToyGame)


class _Lost(Exception):
    pass


class _FakeBackend:
    """Chunks answered in reverse order of submission; chunks covering ``lose`` fail as lost."""

    target_seconds = 1.0

    def __init__(self, slots, lose=(), fail=()):
        self.slots = slots
        self.lose = set(lose)
        self.fail = set(fail)
        self.pending = []
        self.chunks = []
        self.cancelled = self.closed = False

    def submit(self, start, stop):
        fut = cf.Future()
        self.chunks.append((start, stop))
        self.pending.append((fut, start, stop))
        if len(self.pending) == self.slots or stop == self.total:
            for f, a, b in reversed(self.pending):  # the last sent finishes first
                if self.lose & set(range(a, b)):
                    f.set_exception(_Lost())
                elif self.fail & set(range(a, b)):
                    f.set_exception(KeyError("bug"))
                else:
                    f.set_result(([{"index": i} for i in range(a, b)], 0.3 * (b - a)))
            self.pending = []
        return fut

    def lost(self, future, exc):
        return isinstance(exc, _Lost)

    def error(self, exc):
        return RuntimeError(f"game failed: {exc}")

    def cancel(self):
        self.cancelled = True

    def close(self):
        self.closed = True


def test_results_come_in_game_order_with_lost_chunks_as_none():
    backend = _FakeBackend(slots=3, lose={4})
    backend.total = 40
    got = list(_gather(backend, 40))
    assert [i for i, _ in got] == list(range(40))
    lost = [i for i, r in got if r is None]
    assert 4 in lost and all(r == {"index": i} for i, r in got if r is not None)
    chunk = next((a, b) for a, b in backend.chunks if a <= 4 < b)
    assert lost == list(range(*chunk))
    assert backend.chunks[0] == (0, 1) and max(b - a for a, b in backend.chunks) > 1  # sized once timed
    assert [a for a, _ in backend.chunks] == [0] + [b for _, b in backend.chunks[:-1]]  # no gap, no overlap
    assert backend.closed and not backend.cancelled


def test_a_failing_game_cancels_the_rest_and_raises_its_error():
    backend = _FakeBackend(slots=2, fail={3})
    backend.total = 10
    with pytest.raises(RuntimeError, match="game failed"):
        list(_gather(backend, 10))
    assert backend.cancelled and backend.closed


@pytest.mark.parametrize("per_game, remaining, slots",
                         [(0.001, 10**6, 4), (2.0, 50, 4), (0.01, 7, 8), (1e-9, 10**9, 2)])
def test_chunk_size_is_about_the_target_and_leaves_work_for_every_slot(per_game, remaining, slots):
    size = chunk_size(per_game, remaining, slots, 0.5)
    assert 1 <= size <= max(1, -(-remaining // slots))
    assert size == 1 or size * per_game <= 0.5 + per_game


def test_serial_and_local_worker_processes_give_identical_files(tmp_path):
    runs = []
    for executor, workers in (("serial", 1), ("local", 1), ("local", 2)):
        out = tmp_path / f"{executor}{workers}"
        run_arena([TOY], ["random", "ismcts:iterations=8"], games_per_pairing=10, seed=4, workers=workers,
                  executor=executor, out=out, progress=False)
        runs.append(((out / RESULTS_FILE).read_bytes(), (out / RECORDS_FILE).read_bytes()))
    assert runs[0] == runs[1] == runs[2]


def _dying_spec(game_index: int, seed: int) -> BotSpec:
    # The toy game has 2 seats: game i is deal i // 2, seating i % 2 (AB, BA); bot B's seat is 1 - i % 2.
    d, k = divmod(game_index, 2)
    die = derive_seed(seed, "toy", 1, 0, d, k, 1 - k)
    return BotSpec("dying", "dying", (("die_seed", die),), factory=dying_factory)


def test_a_local_worker_that_dies_loses_its_games_and_the_rest_are_kept(tmp_path):
    # Same seats, same play (the dying bot plays first-legal until it dies): the reference run.
    first = BotSpec("dying", "first", factory=first_legal_factory)
    ref = run_arena([TOY], ["random", first], games_per_pairing=30, seed=2, progress=False)
    res = run_arena([TOY], ["random", _dying_spec(9, 2)], games_per_pairing=30, seed=2, workers=2,
                    executor="local", out=tmp_path, progress=False)
    lost = res["lost_games"]
    assert 9 in lost and len(lost) < 30 and not res["interrupted"]
    kept = res["arenas"][0]["games"]
    assert len(kept) + len(lost) == 30
    expected = [g for i, g in enumerate(ref["arenas"][0]["games"]) if i not in lost]
    assert kept == expected
    assert json.loads((tmp_path / RESULTS_FILE).read_text())["lost_games"] == lost
    assert len(load_records(tmp_path / RECORDS_FILE)) == len(kept)


def test_without_ray_the_ray_executor_names_the_install_command(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails as if not installed
    with pytest.raises(ImportError, match=r"pip install -e '\.\[ray\]'"):
        run_arena([TOY], ["random", "random"], executor="ray", out=tmp_path / "x", progress=False)
    assert not (tmp_path / "x").exists()


def test_a_cancelled_pool_ends_its_manager_thread_despite_half_a_result_in_the_pipe():
    """A worker killed while sending its result leaves half a message in the result pipe: the
    pool's manager thread then waits for the rest, and the interpreter's exit (joining that
    thread) hangs unless cancelling the pool lets the thread read EOF."""
    pool = cf.ProcessPoolExecutor(1, mp_context=mp.get_context("fork"))
    assert pool.submit(abs, -3).result(timeout=30) == 3  # the manager thread is running
    manager = pool._executor_manager_thread
    os.write(pool._result_queue._writer.fileno(), struct.pack("!i", 1000) + b"half")
    LocalBackend._terminate(pool)
    manager.join(timeout=20)
    assert not manager.is_alive()


def test_a_chunk_sent_after_a_worker_died_unseen_goes_to_a_new_pool(tmp_path):
    """A worker can die between the wait and the next submit: the broken pool then refuses the
    chunk (BrokenProcessPool, a RuntimeError the command line reported as a usage error)."""
    from setgames.arena.plan import Plan
    from setgames.arena.seating import seatings
    from setgames.arena.worker import Job, play_range

    plan = Plan((TOY,), ("toy",), (tuple(seatings(2)),), (3,), ((0, 1),), 5)
    job = Job(plan, (BotSpec.parse("random"), BotSpec.parse("random")))
    backend = LocalBackend(job, 1)
    try:
        first = backend.submit(0, 1)
        first.result(timeout=60)
        broken = backend._pool
        for p in list(broken._processes.values()):
            os.kill(p.pid, 9)
        with pytest.raises(cf.process.BrokenProcessPool):
            broken.submit(abs, -1).result(timeout=60)  # waits until the pool knows
        fut = backend.submit(1, 3)
        assert backend._pool is not broken
        results, _ = fut.result(timeout=60)
        reference, _ = play_range(job, 1, 3)
        played = [(r["index"], r["actions"], r["returns"]) for r in results]
        assert played == [(r["index"], r["actions"], r["returns"]) for r in reference]
    finally:
        backend.cancel()
