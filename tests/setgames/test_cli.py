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


# ------------------------------------------------ issue #20: inputs that once gave tracebacks
def _bharg_record(**config):
    from bharg_env import raw_env

    env = raw_env(**config)
    env.reset(seed=1)
    for _ in range(6):
        env.step(int(__import__("numpy").flatnonzero(env._mask)[0]))
    return env.record()


def test_arena_bots_random_seed_5_is_a_one_line_message(capsys, tmp_path):
    status, _, err = _run(["arena", "--game", "tethsi", "--bots", "random:seed=5", "greedy", "--games", "2",
                           "--workers", "1", "--out", str(tmp_path), "--no-progress"], capsys)
    _one_line_error(status, err, "bot 'random': it has no option 'seed'")


def test_arena_bot_option_the_bot_lacks_names_the_options_it_has(capsys, tmp_path):
    status, _, err = _run(["arena", "--game", "tethsi", "--bots", "greedy:depth=3", "random", "--games", "2",
                           "--workers", "1", "--out", str(tmp_path), "--no-progress"], capsys)
    _one_line_error(status, err, "bad option for bot 'greedy': it has no option 'depth'; its options: none")


def test_arena_config_max_turns_10_12_is_refused_before_any_game(capsys, tmp_path):
    status, _, err = _run(["arena", "--game", "bharg", "--config", "max_turns=1000000000000", "--games", "2",
                           "--workers", "1", "--out", str(tmp_path), "--no-progress"], capsys)
    _one_line_error(status, err, "max_turns 1000000000000 must be an integer 1..10000")


def test_replay_of_a_two_line_record_with_max_turns_10_12_is_refused(capsys, tmp_path):
    rec = _bharg_record()
    rec["config"]["max_turns"] = 10**12
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(rec) + "\n\n" + json.dumps(rec) + "\n")
    status, _, err = _run(["replay", str(path)], capsys)
    _one_line_error(status, err, "max_turns 1000000000000 must be an integer 1..10000")


def test_replay_and_play_load_of_dev_zero_are_one_line_messages(capsys):
    status, _, err = _run(["replay", "/dev/zero"], capsys)
    _one_line_error(status, err, "line longer than 8,388,608 bytes")
    status, _, err = _run(["play", "bharg", "--load", "/dev/zero"], capsys)
    assert status == 2 and err.strip() == (
        "setgames play: error: '/dev/zero' is larger than 8,388,608 bytes: not a record: not a saved game")


def _save(tmp_path, **fields):
    from setgames.play.session import Session
    from setgames.registry import make_game

    rec = Session(make_game("bharg"), "bharg", 5, 0, "random", hint_bot="greedy").record()
    rec.update(fields)
    path = tmp_path / "save.json"
    path.write_text(json.dumps(rec))
    return str(path)


@pytest.mark.parametrize(("field", "value", "message"), [
    ("hint_bot", ["greedy"], "the record's hint_bot ['greedy'] is not a bot name"),
    ("hint_bot", {"a": 1}, "the record's hint_bot {'a': 1} is not a bot name"),
    ("opponents", 7, "the record's opponents 7 is not a bot name"),
    ("human_seat", "0", "the record's human_seat '0' is not a seat number"),
    ("human_seat", 1.5, "the record's human_seat 1.5 is not a seat number"),
    ("opponents", "ismcts:iterations=1000000000000", "iterations 1000000000000 must be an integer 1..100000"),
    ("hint_bot", "random:seed=5", "bad option for bot 'random': it has no option 'seed'"),
])
def test_play_load_of_a_save_with_a_field_of_the_wrong_type_is_a_message(capsys, tmp_path, field, value,
                                                                          message):
    status, _, err = _run(["play", "bharg", "--load", _save(tmp_path, **{field: value})], capsys)
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1 and lines[0].startswith("setgames play: error: "), err
    assert message in lines[0]


@pytest.mark.parametrize(("field", "value", "message"), [
    ("seed", -1, "record 'seed' -1 must be an integer 0..2**63-1"),
    ("seed", 2**64, "record 'seed' 18446744073709551616 must be an integer 0..2**63-1"),
    ("version", -3, "record 'version' -3 must be 0.."),
    ("seats", [1, 2], "record 'seats' must be a list of names"),
    ("returns", ["a"], "record 'returns' entry 'a' must be a finite number"),
    ("returns", [10**400, 0], "record 'returns' entry <an integer of 1329 bits> must be a finite number"),
])
def test_record_fields_of_the_wrong_type_or_out_of_range_are_one_line_messages(capsys, tmp_path, field,
                                                                               value, message):
    rec = _bharg_record()
    rec[field] = value
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    status, _, err = _run(["replay", str(path)], capsys)
    _one_line_error(status, err, message)


def test_record_fields_written_as_null_count_as_absent(capsys, tmp_path):
    rec = {**_bharg_record(), "returns": None, "outcome": None, "seats": None}
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    status, out, _ = _run(["replay", str(path), "--check"], capsys)
    assert status == 0 and "every outcome matches" in out


def test_replay_seat_beyond_the_game_is_refused_without_seats_field(capsys, tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(_bharg_record()) + "\n")
    status, _, err = _run(["replay", str(path), "--seat", "2"], capsys)
    _one_line_error(status, err, "--seat 2 is not a seat of this game")


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"seed": ' + "1" * 5000 + "}",
                                  "\0\0\0", "\xff\xfe"])
def test_replay_of_deep_huge_nul_or_binary_json_is_a_one_line_message(capsys, tmp_path, text):
    path = tmp_path / "r.jsonl"
    path.write_bytes(text.encode("latin-1"))
    status, _, err = _run(["replay", str(path)], capsys)
    _one_line_error(status, err, "r.jsonl")


def test_replay_into_a_closed_pipe_ends_quietly(tmp_path):
    from tests.setgames.draw.test_replay import _record

    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(_record("tusac", 2, num_players=3)) + "\n")
    proc = subprocess.run(f"{sys.executable} -m setgames.cli replay {path} | head -n 2", shell=True,
                          capture_output=True, text=True, timeout=120, cwd=Path(__file__).parents[2])
    assert proc.stdout.count("\n") == 2 and proc.stderr == ""


@pytest.mark.parametrize("argv", [["play", "tethsi", "--delay", "nan"], ["play", "tethsi", "--delay", "inf"],
                                  ["bench", "--seconds", "nan"], ["bench", "--repeats", "0"],
                                  ["bench", "--nonsense"], ["bench", "--only", "nosuch"]])
def test_bad_numbers_and_options_are_refused_in_one_line(argv):
    proc = subprocess.run([sys.executable, "-m", "setgames.cli", *argv], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL, cwd=Path(__file__).parents[2])
    assert proc.returncode == 2 and proc.stdout.strip() == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and "error" in proc.stderr
