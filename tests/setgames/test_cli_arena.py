"""The arena's command line: executors, bounds, SIGTERM, lost games, a missing Ray."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from setgames.arena import BotSpec
from setgames.cli import main
from tests.setgames.arena.dying_bots import dying_factory

ROOT = Path(__file__).resolve().parents[2]


def _run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def _one_line(err, match):
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("setgames: error: "), err
    assert match in lines[0], lines[0]


@pytest.mark.parametrize("argv, match", [
    (["--games", "1000000000"], "--games 1000000000 must be from 1 to 1,000,000"),
    (["--workers", "100000"], "--workers 100000 must be from 1 to"),
    (["--address", "127.0.0.1:6379"], "--address is for --executor ray"),
    (["--executor", "spark"], "invalid choice: 'spark'"),
])
def test_bad_executor_arguments_end_in_one_line(argv, match, capsys, tmp_path):
    status, _, err = _run(["arena", "--game", "tethsi", "--bots", "random", "random", *argv,
                           "--out", str(tmp_path / "out")], capsys)
    assert status == 2
    _one_line(err, match)
    assert not (tmp_path / "out").exists()


def test_without_ray_the_message_names_the_install_command(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails as if not installed
    status, _, err = _run(["arena", "--game", "tethsi", "--bots", "random", "random", "--executor", "ray",
                           "--out", str(tmp_path)], capsys)
    assert status == 2
    _one_line(err, "pip install -e '.[ray]'")


def test_lost_games_are_named_in_one_line_and_the_rest_kept(monkeypatch, capsys, tmp_path):
    from setgames.arena.seating import derive_seed

    # tethsi, one pairing: game 3 is deal 1 in seating BA, where bot B ("dying") holds seat 0.
    die = derive_seed(0, "tethsi", 1, 0, 1, 1, 0)
    dying = BotSpec("dying", "dying", (("die_seed", die),), factory=dying_factory)
    parse = BotSpec.parse.__func__
    monkeypatch.setattr(BotSpec, "parse", classmethod(
        lambda cls, text, label=None: dying if text == "dying" else parse(cls, text, label)))
    argv = ["arena", "--game", "tethsi", "--bots", "random", "dying", "--games", "12", "--workers", "2",
            "--executor", "local", "--out", str(tmp_path), "--no-progress"]
    status, out, err = _run(argv, capsys)
    assert status == 1
    _one_line(err, "a worker died: lost ")
    saved = json.loads((tmp_path / "results.json").read_text())
    lost = saved["lost_games"]
    assert 3 in lost and len(saved["arenas"][0]["games"]) == 12 - len(lost)
    assert f"the other {12 - len(lost)} are kept" in err and "Lost: " in out


@pytest.mark.parametrize("group", [False, True], ids=["parent", "process-group"])
def test_sigterm_keeps_and_saves_the_finished_games(group, tmp_path):
    cmd = [sys.executable, "-m", "setgames.cli", "arena", "--game", "tethsi", "--bots", "random", "greedy",
           "--games", "100000", "--workers", "2", "--out", str(tmp_path), "--no-progress"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    records = tmp_path / "records.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not records.exists() or records.stat().st_size < 2000):
        time.sleep(0.2)
    if group:  # what a service manager or `timeout` does: every process of the group gets it
        os.killpg(proc.pid, signal.SIGTERM)
    else:
        proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and "Traceback" not in err and "Error" not in err, err
    saved = json.loads((tmp_path / "results.json").read_text())
    played = len(saved["arenas"][0]["games"])
    assert saved["interrupted"] and 0 < played < 100000
    assert sum(1 for _ in records.open()) == played
    assert "finished before SIGTERM" in out
