"""No external bot outlives its arena: not after a run, a Ctrl-C, a SIGTERM or a SIGKILL.

Each test bot leaves a file named after its pid in SETGAMES_TEST_PIDDIR (see
``tests/setgames/bots/external_bots/_proto.py``); every such process must be gone
(or at least no longer running: a zombie waits only for init to reap it).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from setgames.arena import run_arena
from tests.setgames.arena.test_forfeits import BOTS, external

ROOT = Path(__file__).resolve().parents[3]


def _running(pid: int) -> bool:
    try:
        import psutil
    except ImportError:  # /proc where psutil is not installed
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        return state != "Z"
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _pids(piddir: Path) -> list[int]:
    return [int(p.name) for p in piddir.iterdir()]


def _all_gone(piddir: Path, within: float = 3.0) -> list[int]:
    """The bots still running after ``within`` seconds (killed bots need a moment to be reaped)."""
    deadline = time.monotonic() + within
    while True:
        alive = [pid for pid in _pids(piddir) if _running(pid)]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


@pytest.mark.parametrize("executor, workers", [("serial", 1), ("local", 2)])
def test_no_bot_left_after_a_run(executor, workers, tmp_path, monkeypatch):
    piddir = tmp_path / "pids"
    piddir.mkdir()
    monkeypatch.setenv("SETGAMES_TEST_PIDDIR", str(piddir))
    bots = [external("slow.py", "0", label="good"), external("hang.py", label="hung"),
            external("crash.py", label="crash")]
    res = run_arena(["tethsi"], bots, games_per_pairing=2, out=tmp_path / "out", executor=executor,
                    workers=workers, move_ms=200)
    # crash against hung: whichever acts first forfeits, once in each seating
    assert res["arenas"][0]["forfeits"] == {"crash": {"crashed": 3}, "hung": {"timeout": 3}}
    assert len(_pids(piddir)) >= 4
    assert _all_gone(piddir, within=0.5) == []


def _start_cli(tmp_path: Path, executor: str) -> tuple[subprocess.Popen, Path]:
    piddir = tmp_path / "pids"
    piddir.mkdir()
    env = dict(os.environ, SETGAMES_TEST_PIDDIR=str(piddir), PYTHONPATH=str(ROOT))
    slow = f"exec:{sys.executable} {BOTS / 'slow.py'} 100"
    argv = [sys.executable, "-m", "setgames.cli", "arena", "--game", "tethsi", "--bots", "random", slow,
            "--games", "40", "--executor", executor, "--workers", "1" if executor == "serial" else "2",
            "--out", str(tmp_path / "out"), "--no-progress"]
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)  # its own group, as a terminal's job would be
    deadline = time.monotonic() + 30
    while len(_pids(piddir)) < (1 if executor == "serial" else 2):
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline, "the bots never started"
        time.sleep(0.05)
    time.sleep(0.3)  # mid-game
    return proc, piddir


@pytest.mark.parametrize("sig, to_group, status, executor", [
    (signal.SIGINT, True, 130, "local"),  # Ctrl-C: the terminal signals the whole group
    (signal.SIGINT, True, 130, "serial"),
    (signal.SIGTERM, False, 143, "local"),  # kill PID
    (signal.SIGKILL, False, -9, "serial"),  # nothing runs in the arena: the kernel ends the bots
])
def test_no_bot_left_after_a_killed_run(sig, to_group, status, executor, tmp_path):
    proc, piddir = _start_cli(tmp_path, executor)
    try:
        if to_group:
            os.killpg(proc.pid, sig)
        else:
            os.kill(proc.pid, sig)
        assert proc.wait(30) == status, proc.stderr.read().decode()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        proc.stderr.close()
    assert _all_gone(piddir) == []
