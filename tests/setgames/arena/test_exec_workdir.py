"""Where an exec: bot's program runs: the directory the arena was launched from, in every
worker (a Ray worker's own directory is the cluster's: tests/setgames/arena/test_ray.py);
and a worker can end its programs while keeping its other bots."""

from __future__ import annotations

import dataclasses
import json
import os
import stat
import sys
from pathlib import Path

import pytest

from setgames.arena import ArenaGame, BotSpec, run_arena
from setgames.arena import worker as arena_worker
from setgames.arena.plan import Plan
from setgames.arena.runner import RESULTS_FILE
from setgames.arena.seating import seatings
from setgames.bots.external import ExternalBot, check_command

ROOT = Path(__file__).resolve().parents[3]


def _example_in(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    bot = folder / "bot.py"
    bot.write_text((ROOT / "examples" / "external_bot.py").read_text())
    return bot


@pytest.mark.parametrize("executor, workers", [("serial", 1), ("local", 2)])
def test_a_relative_exec_path_means_the_launching_directory(executor, workers, tmp_path, monkeypatch):
    launch = tmp_path / "launch"
    _example_in(launch)
    monkeypatch.chdir(launch)
    spec = BotSpec.parse(f"exec:{sys.executable} bot.py")
    assert spec.workdir == str(launch) and BotSpec.parse("greedy").workdir is None
    monkeypatch.chdir(tmp_path)  # elsewhere by the time the games are played: bot.py is not here
    res = run_arena(["tethsi"], ["greedy", spec], games_per_pairing=2, executor=executor, workers=workers,
                    out=tmp_path / "out", progress=False)
    assert res["arenas"][0]["forfeits"] == {} and res["arenas"][0]["pairings"][0]["games"] == 2
    # Where a run was launched from is no part of its results.
    saved = json.loads((tmp_path / "out" / RESULTS_FILE).read_text())
    command = f"exec:{sys.executable} bot.py"
    assert saved["bots"][1] == {"label": command, "name": command, "options": {}}


def test_a_workdir_missing_on_the_worker_leaves_the_program_in_the_workers_own(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = dataclasses.replace(BotSpec.parse(f"exec:{sys.executable} bot.py"), workdir=str(tmp_path / "gone"))
    bot = spec.build("tethsi")
    assert isinstance(bot, ExternalBot) and bot.cwd is None
    assert BotSpec.parse("exec:true").build("tethsi").cwd == str(tmp_path)  # where it exists, it is used


def test_check_command_finds_a_relative_program_where_it_will_run(tmp_path, monkeypatch):
    folder = tmp_path / "bots"
    folder.mkdir()
    program = folder / "bot.sh"
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    monkeypatch.chdir(tmp_path)
    assert check_command("./bot.sh --fast", str(folder)) == ["./bot.sh", "--fast"]
    with pytest.raises(ValueError, match=r"exec: command './bot.sh' not found"):
        check_command("./bot.sh")
    assert check_command("bots/bot.sh") == ["bots/bot.sh"]  # no cwd: this process's directory


def test_close_programs_ends_the_exec_bots_and_keeps_the_others(tmp_path):
    bot = _example_in(tmp_path)
    specs = (BotSpec.parse("greedy"), BotSpec.parse(f"exec:{sys.executable} {bot}"))
    job = arena_worker.Job(_two_tethsi_games(), specs)
    try:
        results, _ = arena_worker.play_range(job, 0, 2)
        assert [r["forfeit"] for r in results] == [None, None]
        external = [b for b in arena_worker._CACHE.bots.values() if isinstance(b, ExternalBot)]
        others = [b for b in arena_worker._CACHE.bots.values() if not isinstance(b, ExternalBot)]
        assert external and others and all(b._proc is not None for b in external)
        pids = [b._proc.pid for b in external]
        arena_worker.close_programs()
        assert all(b._proc is None for b in external)
        assert list(arena_worker._CACHE.bots.values()) == others  # greedy stays built
        for pid in pids:  # reaped by close(): no such process any more
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)
    finally:
        arena_worker.close_bots()


def _two_tethsi_games() -> Plan:
    """The plan of one tethsi deal between bots 0 and 1, in both seatings (as run_arena makes it)."""
    seats = (tuple(seatings(2)),)
    return Plan((ArenaGame.of("tethsi"),), ("tethsi",), seats, (1,), ((0, 1),), 0)
