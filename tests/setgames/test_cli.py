"""The ``setgames`` command line: arena and replay runs, and every error path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from setgames.cli import COMMANDS, main, split_bot_specs
from setgames.records import make_record
from tests.setgames.bots.helpers import available_games

ROOT = Path(__file__).resolve().parents[2]


def _run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def _one_line_error(status, err, match):
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("setgames: error: "), err
    assert match in lines[0], lines[0]
    assert "Traceback" not in err


def _need(game):
    if game not in available_games():
        pytest.skip(f"{game} rules not on disk yet")


def test_subcommands_are_registered():
    assert {"arena", "replay", "bench"} <= set(COMMANDS)


def test_split_bot_specs():
    assert split_bot_specs(["random,greedy"]) == ["random", "greedy"]
    assert split_bot_specs(["ismcts:iterations=5,c=1", "random"]) == ["ismcts:iterations=5,c=1", "random"]


@pytest.mark.parametrize("argv, match", [
    (["arena", "--game", "chess"], "unknown game 'chess'"),
    (["arena", "--game", "tethsi", "--bots", "random", "alpha"], "unknown bot 'alpha'"),
    (["arena", "--game", "tethsi", "--bots", "random", "ismcts:depth=3"], "bad option for bot 'ismcts'"),
    (["arena", "--game", "tethsi", "--bots", "random", "ismcts:iterations"], "bad bot option"),
    (["arena", "--game", "tethsi", "--players", "3"], "tethsi is played by 2 players, not 3"),
    (["arena", "--game", "tethsi", "--games", "0"], "--games 0"),
    (["arena", "--game", "tethsi", "--workers", "0"], "--workers 0"),
    (["arena", "--game", "tethsi", "--seed", "-4"], "--seed -4"),
    (["arena", "--game", "tethsi", "--games", "many"], "invalid int value: 'many'"),
    (["arena", "--game", "tethsi", "--config", "oops"], "bad --config 'oops'"),
    (["arena", "--game", "tethsi", "--config", "colour=red"], "colour"),
    (["arena", "--bogus"], "unrecognized arguments: --bogus"),
    (["dance"], "invalid choice: 'dance'"),
])
def test_bad_arena_arguments_end_in_one_line(argv, match, capsys, tmp_path):
    if "--game" in argv and argv[argv.index("--game") + 1] == "tethsi":
        _need("tethsi")
    status, _, err = _run([*argv, "--out", str(tmp_path)] if argv[0] == "arena" else argv, capsys)
    _one_line_error(status, err, match)


def test_player_count_a_game_does_not_allow(capsys, tmp_path):
    _need("tusac")
    status, _, err = _run(["arena", "--game", "tusac", "--players", "5", "--out", str(tmp_path)], capsys)
    _one_line_error(status, err, "tusac does not allow 5 players")


def test_arena_then_replay_end_to_end(capsys, tmp_path):
    _need("tethsi")
    status, out, err = _run(["arena", "--game", "tethsi", "--bots", "random,random", "--games", "4",
                             "--workers", "1", "--seed", "3", "--out", str(tmp_path), "--no-progress"],
                            capsys)
    assert status == 0, err
    assert "random vs random#2" in out and "How to read this" in out
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["seed"] == 3 and results["arenas"][0]["pairings"][0]["games"] == 4
    status, out, err = _run(["replay", str(tmp_path / "records.jsonl"), "--index", "1"], capsys)
    assert status == 0, err
    assert "step 1: seat" in out and "replayed 4 record(s)" in out and "final: returns" in out


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_replay_errors_end_in_one_line(capsys, tmp_path):
    _need("tethsi")
    from setgames.registry import game_class

    version = game_class("tethsi").version
    cases = [
        (_write(tmp_path / "corrupt.jsonl", ["{oops"]), "not valid JSON"),
        (_write(tmp_path / "shape.jsonl", ['{"game": "tethsi"}']), "no 'version' field"),
        (_write(tmp_path / "version.jsonl", [json.dumps(make_record("tethsi", version + 7, {}, 1, []))]),
         f"version {version + 7}"),
        (_write(tmp_path / "game.jsonl", [json.dumps(make_record("chess", 0, {}, 1, []))]),
         "unknown game 'chess'"),
        (_write(tmp_path / "illegal.jsonl", [json.dumps(make_record("tethsi", version, {}, 1, [10**6]))]),
         "illegal"),
        (tmp_path / "missing.jsonl", "No such file"),
        (_write(tmp_path / "empty.jsonl", []), "no records"),
    ]
    for path, match in cases:
        status, _, err = _run(["replay", str(path)], capsys)
        _one_line_error(status, err, match)


def test_replay_index_out_of_range(capsys, tmp_path):
    _need("tethsi")
    _run(["arena", "--game", "tethsi", "--bots", "random", "random", "--games", "2", "--workers", "1",
          "--out", str(tmp_path), "--no-progress"], capsys)
    status, _, err = _run(["replay", str(tmp_path / "records.jsonl"), "--index", "9"], capsys)
    _one_line_error(status, err, "--index 9 is out of range")


def test_bench_runs_or_says_why_not(capsys, monkeypatch):
    import setgames.cli as cli

    def missing(name):
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    monkeypatch.setattr(cli.importlib, "import_module", missing)
    status, _, err = _run(["bench"], capsys)
    _one_line_error(status, err, "benchmarks are not installed")


def test_command_line_errors_through_a_real_process(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "setgames.cli", "arena", "--game", "nope",
                           "--out", str(tmp_path)], capture_output=True, text=True, cwd=ROOT, timeout=60)
    _one_line_error(proc.returncode, proc.stderr, "unknown game 'nope'")
    proc = subprocess.run([sys.executable, "-m", "setgames.cli", "replay", str(tmp_path / "none.jsonl")],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    _one_line_error(proc.returncode, proc.stderr, "none.jsonl")


def test_plot_is_saved_or_the_missing_extra_is_named(capsys, tmp_path):
    _need("tethsi")
    status, _, err = _run(["arena", "--game", "tethsi", "--bots", "random", "random", "--games", "2",
                             "--workers", "1", "--out", str(tmp_path), "--no-progress", "--plot"], capsys)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        _one_line_error(status, err, "pip install 'setgames[plot]'")
        return
    assert status == 0 and (tmp_path / "ratings.png").stat().st_size > 0


def test_ctrl_c_keeps_and_saves_the_finished_games(tmp_path):
    _need("tethsi")
    import signal
    import time

    cmd = [sys.executable, "-m", "setgames.cli", "arena", "--game", "tethsi", "--bots", "random", "greedy",
           "--games", "100000", "--workers", "2", "--out", str(tmp_path), "--no-progress"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    records = tmp_path / "records.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not records.exists() or records.stat().st_size < 2000):
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)  # what Ctrl-C sends to the parent (workers ignore it)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err, err
    saved = json.loads((tmp_path / "results.json").read_text())
    played = len(saved["arenas"][0]["games"])
    assert saved["interrupted"] and 0 < played < 100000
    assert sum(1 for _ in records.open()) == played
    assert "Interrupted" in out
