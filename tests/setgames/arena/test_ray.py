"""The arena on Ray (the ``ray`` extra): same files as the local executors, a joined cluster,
dead workers, Ctrl-C, bad addresses, exec: bots (their games and forfeits as serially, in the
launching directory, no program left). Skipped when Ray is not installed.

One Ray (2 CPUs, loopback) is started for the module; runs in this process use it as a
program that called ``ray.init`` would, and command-line runs in child processes join it
by its address, or start a Ray of their own.
"""

from __future__ import annotations

import json
import logging
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from setgames.arena import ArenaGame, BotSpec, run_arena  # noqa: E402
from setgames.arena.runner import RESULTS_FILE  # noqa: E402
from setgames.arena.seating import derive_seed  # noqa: E402
from setgames.cli import main  # noqa: E402
from setgames.records import RECORDS_FILE, load_records  # noqa: E402
from tests.setgames.bots.helpers import first_legal_factory  # noqa: E402
from tests.setgames.toy_game import ToyGame  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
ARENA = ["arena", "--game", "tethsi,bharg", "--bots", "random", "greedy", "ismcts:iterations=2",
         "--games", "4", "--seed", "9", "--no-progress"]
ARENA_GAMES = 2 * 3 * 4  # two games, three pairings, four games each


@pytest.fixture(scope="module")
def cluster():
    """A Ray of 2 CPUs on the loopback address; yields its address."""
    term = signal.getsignal(signal.SIGTERM)
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False,
             _node_ip_address="127.0.0.1")
    signal.signal(signal.SIGTERM, term)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def _cli(args, timeout=300):
    return subprocess.run([sys.executable, "-m", "setgames.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def _files(out: Path) -> tuple[bytes, bytes]:
    return (out / RESULTS_FILE).read_bytes(), (out / RECORDS_FILE).read_bytes()


def test_ray_gives_the_same_files_as_serial_and_local_processes(cluster, tmp_path, capsys):
    runs = {}
    here = {"serial": ["--executor", "serial"], "local1": ["--executor", "local", "--workers", "1"],
            "local2": ["--executor", "local", "--workers", "2"], "ray-here": ["--executor", "ray"]}
    for name, extra in here.items():
        assert main([*ARENA, *extra, "--out", str(tmp_path / name)]) == 0
        runs[name] = _files(tmp_path / name)
    # A Ray of its own (a child process: this one's Ray would be reused) and the running cluster, joined.
    for name, extra in {"ray-own": ["--workers", "2"], "ray-joined": ["--address", cluster]}.items():
        proc = _cli([*ARENA, "--executor", "ray", *extra, "--out", str(tmp_path / name)])
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
        runs[name] = _files(tmp_path / name)
    capsys.readouterr()
    first = runs["serial"]
    assert all(v == first for v in runs.values()), [k for k, v in runs.items() if v != first]
    results = json.loads(first[0])
    assert [len(a["games"]) for a in results["arenas"]] == [ARENA_GAMES // 2] * 2
    assert len(load_records(tmp_path / "serial" / RECORDS_FILE)) == ARENA_GAMES


_DYING_RUN = """
import json, sys
from setgames.arena import ArenaGame, BotSpec, run_arena
from tests.setgames.arena.dying_bots import dying_factory
from tests.setgames.toy_game import ToyGame
dying = BotSpec("dying", "dying", (("die_seed", int(sys.argv[2])),), factory=dying_factory)
res = run_arena([ArenaGame.of(ToyGame)], ["random", dying], games_per_pairing=24, seed=5, executor="ray",
                address=sys.argv[1], out=sys.argv[3], progress=False)
print(json.dumps(res["lost_games"]))
"""


def test_a_ray_worker_that_dies_loses_only_its_games(cluster, tmp_path):
    # The toy game has 2 seats: game 2 is deal 1 in seating AB, where bot B ("dying") holds seat 1.
    die = derive_seed(5, "toy", 1, 0, 1, 0, 1)
    first = BotSpec("dying", "first", factory=first_legal_factory)
    ref = run_arena([ArenaGame.of(ToyGame)], ["random", first], games_per_pairing=24, seed=5, progress=False)
    proc = subprocess.run([sys.executable, "-c", _DYING_RUN, cluster, str(die), str(tmp_path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    # The first tasks hold one game each (nothing timed yet), so the dead worker's task is game 2 alone.
    assert json.loads(proc.stdout) == [2]
    # Ray's own paragraphs about the dead worker and the retry go to a logger, not to the terminal.
    assert not proc.stderr.strip() and "worker died" not in proc.stdout
    saved = json.loads((tmp_path / RESULTS_FILE).read_text())
    assert saved["lost_games"] == [2] and not saved["interrupted"]
    assert saved["arenas"][0]["games"] == [g for i, g in enumerate(ref["arenas"][0]["games"]) if i != 2]
    assert len(load_records(tmp_path / RECORDS_FILE)) == 23


def test_a_program_that_started_ray_keeps_it(cluster, tmp_path):
    res = run_arena([ArenaGame.of(ToyGame)], ["random", "random"], games_per_pairing=6, seed=1,
                    executor="ray", out=tmp_path, progress=False)
    assert len(res["arenas"][0]["games"]) == 6
    assert ray.is_initialized() and ray.get_runtime_context().gcs_address == cluster


@pytest.mark.parametrize("sig, status, by",
                         [(signal.SIGINT, 130, "Ctrl-C"), (signal.SIGTERM, 143, "SIGTERM")])
def test_a_stop_on_a_joined_cluster_keeps_the_games_and_frees_the_cluster(cluster, tmp_path, sig, status, by):
    # SIGTERM too: ray.init installs a handler of its own that would exit at once.
    cmd = [sys.executable, "-m", "setgames.cli", "arena", "--game", "tethsi", "--bots", "random", "greedy",
           "--games", "100000", "--executor", "ray", "--address", cluster, "--out", str(tmp_path),
           "--no-progress"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    records = tmp_path / RECORDS_FILE
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not records.exists() or records.stat().st_size < 20_000):
        time.sleep(0.2)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == status and "Traceback" not in err, err
    assert f"finished before {by}" in out
    saved = json.loads((tmp_path / RESULTS_FILE).read_text())
    played = len(saved["arenas"][0]["games"])
    assert saved["interrupted"] and 0 < played < 100000
    assert sum(1 for _ in records.open()) == played
    # Its tasks were cancelled: the cluster's CPUs come back.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and ray.available_resources().get("CPU", 0) < 2:
        time.sleep(0.2)
    assert ray.available_resources().get("CPU", 0) == 2


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("address, match", [
    (None, "cannot reach a Ray cluster at 127.0.0.1:"),
    ("nowhere", "bad Ray address 'nowhere'"),
])
def test_an_unreachable_address_ends_in_one_line(address, match, tmp_path):
    address = address or f"127.0.0.1:{_closed_port()}"
    proc = _cli(["arena", "--game", "tethsi", "--bots", "random", "random", "--executor", "ray",
                 "--address", address, "--out", str(tmp_path)], timeout=60)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and lines[0].startswith("setgames: error: "), proc.stderr
    assert match in lines[0]


def test_the_gauntlet_on_ray_writes_the_files_of_a_serial_run(cluster, tmp_path):
    from setgames.arena.gauntlet import GAUNTLET_FILE, run_gauntlet

    files = []
    for executor, workers in (("serial", 1), ("ray", 2)):
        out = tmp_path / executor
        run_gauntlet("greedy:epsilon=0.3", games_per_config=2, workers=workers, executor=executor, out=out,
                     progress=False, references=["level:1", "level:5", "ppo"], configs=["tethsi", "bharg-3p"])
        files.append([(out / name).read_bytes() for name in (GAUNTLET_FILE, RESULTS_FILE, RECORDS_FILE)])
    assert files[0] == files[1]


# ---------------------------------------------------------------------- exec: bots on Ray

BOTS = ROOT / "tests" / "setgames" / "bots" / "external_bots"


def _running_with(marker: str) -> list[int]:
    """Processes (not zombies) whose command line names ``marker``."""
    alive = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().decode(errors="replace")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue  # gone meanwhile
        if marker in cmdline and state != "Z":
            alive.append(int(proc.name))
    return alive


def _none_left(marker: str, within: float = 5.0) -> list[int]:
    """The processes naming ``marker`` still running after ``within`` seconds (a killed one
    needs a moment to be reaped)."""
    deadline = time.monotonic() + within
    while (alive := _running_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def _example_copy(folder: Path) -> Path:
    """The example external bot, copied where its path marks its processes as this test's."""
    folder.mkdir(parents=True, exist_ok=True)
    bot = folder / "external_bot.py"
    bot.write_text((ROOT / "examples" / "external_bot.py").read_text())
    return bot


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the bot's processes in /proc")
def test_an_exec_bot_on_ray_gives_the_files_of_a_serial_run_and_leaves_no_process(cluster, tmp_path):
    bot = _example_copy(tmp_path / "bot")
    bots = ["greedy", f"exec:{sys.executable} {bot}"]
    files = {}
    for executor in ("serial", "ray"):
        res = run_arena(["tethsi", "bharg"], bots, games_per_pairing=4, seed=3, executor=executor, workers=2,
                        out=tmp_path / executor, progress=False)
        assert [a["forfeits"] for a in res["arenas"]] == [{}, {}]  # whole games, not forfeits
        files[executor] = _files(tmp_path / executor)
        # This run's Ray is the test's, whose workers outlive the run: the programs must not.
        assert _none_left(str(bot)) == [], executor
    assert files["ray"] == files["serial"]
    assert len(load_records(tmp_path / "serial" / RECORDS_FILE)) == 8


def test_exec_bot_forfeits_on_ray_are_the_serial_runs(cluster, tmp_path):
    from tests.setgames.arena.test_no_leftovers import _all_gone, _pids

    piddir = tmp_path / "pids"
    piddir.mkdir()

    def bad(script: str, label: str) -> BotSpec:
        # The bots leave their pid in SETGAMES_TEST_PIDDIR; the cluster's workers were started
        # before this test, with an environment of their own: the command sets it (env runs python).
        return BotSpec.parse(f"exec:env SETGAMES_TEST_PIDDIR={piddir} {sys.executable} {BOTS / script}",
                             label=label)

    files = {}
    for executor in ("serial", "ray"):
        res = run_arena(["tethsi"], ["random", bad("crash.py", "crash"), bad("illegal.py", "illegal")],
                        games_per_pairing=2, seed=4, executor=executor, workers=2, out=tmp_path / executor,
                        progress=False)
        # crash against illegal: whichever acts first forfeits, once in each seating
        assert res["arenas"][0]["forfeits"] == {"crash": {"crashed": 3}, "illegal": {"illegal": 3}}, executor
        files[executor] = _files(tmp_path / executor)
    assert files["ray"] == files["serial"]
    records = load_records(tmp_path / "ray" / RECORDS_FILE)
    assert sorted(r["forfeit"]["reason"] for r in records) == ["crashed"] * 3 + ["illegal"] * 3
    crashes = [r["forfeit"]["detail"] for r in records if r["forfeit"]["reason"] == "crashed"]
    assert len(crashes) == 3 and all("exit status 3" in detail for detail in crashes)
    assert len(_pids(piddir)) >= 4 and _all_gone(piddir) == []


_LAUNCHED_ELSEWHERE = """
import logging, os, sys
import ray
from setgames.arena import run_arena
# Joined from the checkout, whose modules the cluster's workers then import (Ray gives them
# the driver's directory at ray.init); the run is launched from another directory, where
# the program's relative path is.
ray.init(address=sys.argv[1], logging_level=logging.ERROR, log_to_driver=False)
os.chdir(sys.argv[2])
for executor in ("serial", "ray"):
    run_arena(["tethsi"], ["greedy", "exec:" + sys.executable + " external_bot.py"], games_per_pairing=4,
              seed=2, executor=executor, out=os.path.join(sys.argv[3], executor), progress=False)
"""


def test_a_relative_exec_path_resolves_against_the_launching_directory_on_a_joined_cluster(cluster, tmp_path):
    # The cluster's workers run where it was started (this test's directory), not in the
    # directory the run was launched from.
    launch = tmp_path / "launch"
    _example_copy(launch)
    proc = subprocess.run([sys.executable, "-c", _LAUNCHED_ELSEWHERE, cluster, str(launch), str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    serial, on_ray = _files(tmp_path / "serial"), _files(tmp_path / "ray")
    assert json.loads(serial[0])["arenas"][0]["forfeits"] == {}  # the program was found and played
    assert on_ray == serial
    assert _none_left(str(launch)) == []
