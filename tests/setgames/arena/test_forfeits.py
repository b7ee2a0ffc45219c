"""Faults are the bot's, never the run's: each misbehaving bot forfeits its games, with the reason
in results.json, the records and the table, and the arena goes on."""

from __future__ import annotations

import json
import sys
import tracemalloc
from pathlib import Path

import pytest

from setgames.arena import BotSpec, format_results, run_arena
from setgames.records import load_records, render_replay, replay

BOTS = Path(__file__).resolve().parents[1] / "bots" / "external_bots"
FAULTY = "tests.setgames.bots.faulty_bots"


def external(script: str, *args: str, label: str = "bad") -> BotSpec:
    """An exec: bot running one of the test scripts with this interpreter."""
    command = " ".join([sys.executable, str(BOTS / script), *args])
    return BotSpec.parse(f"exec:{command}", label=label)


def _run(bad: BotSpec, out: Path, **kwargs) -> dict:
    kwargs.setdefault("games_per_pairing", 2)
    return run_arena(["tethsi"], ["random", bad], out=out, **kwargs)


def _check_forfeits(res: dict, out: Path, reason: str, games: int = 2) -> None:
    arena = res["arenas"][0]
    assert arena["forfeits"] == {"bad": {reason: games}}
    pair = arena["pairings"][0]
    assert pair["games"] == games and pair["wins_a"] == games  # each forfeit is a loss, nothing is lost
    saved = json.loads((out / "results.json").read_text())
    assert saved["arenas"][0]["forfeits"] == {"bad": {reason: games}}
    for g in saved["arenas"][0]["games"]:
        f = g["forfeit"]
        assert f["bot"] == "bad" and f["reason"] == reason and g["seats"][f["seat"]] == "bad"
        assert g["score_a"] == 1.0
    records = load_records(out / "records.jsonl")
    assert [r["forfeit"]["reason"] for r in records] == [reason] * games
    for r in records:  # the moves before the forfeit replay, and the record keeps its returns
        assert list(replay(r).returns) == r["returns"]
    last = list(render_replay(records[0]))[-1].splitlines()[-1]
    assert last.startswith(f"== forfeited by seat {records[0]['forfeit']['seat']} (bad): {reason}: ")
    assert f"bad forfeited {games} game(s): {reason} {games}" in format_results(res)


@pytest.mark.parametrize("script, args, reason", [
    ("crash.py", (), "crashed"),
    ("exits.py", (), "exited"),
    ("hang.py", (), "timeout"),
    ("illegal.py", (), "illegal"),
    ("garbage.py", (), "garbage"),
    ("not_utf8.py", (), "not_utf8"),
    ("bad_handshake.py", (), "handshake"),
])
def test_each_fault_of_an_external_bot_forfeits(script, args, reason, tmp_path):
    res = _run(external(script, *args), tmp_path, move_ms=300)
    _check_forfeits(res, tmp_path, reason)


def test_crash_detail_keeps_the_bots_last_stderr_line(tmp_path):
    res = _run(external("crash.py"), tmp_path)
    detail = res["arenas"][0]["games"][0]["forfeit"]["detail"]
    assert "exit status 3" in detail and "Traceback: something broke" in detail


@pytest.mark.parametrize("script, reason", [("long_line.py", "line_too_long"),
                                            ("flood_stderr.py", "output_flood")])
def test_a_flood_is_cut_off_without_memory_growing(script, reason, tmp_path):
    tracemalloc.start()
    try:
        res = _run(external(script), tmp_path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    _check_forfeits(res, tmp_path, reason)
    assert peak < 2_000_000  # the bot wrote 5-10 MB per game


def test_a_python_bot_that_raises_forfeits(tmp_path):
    res = _run(BotSpec.parse(f"{FAULTY}:RaisingBot", label="bad"), tmp_path)
    _check_forfeits(res, tmp_path, "raised")
    assert "ZeroDivisionError: bug in the bot" in res["arenas"][0]["games"][0]["forfeit"]["detail"]


def test_forfeits_on_worker_processes_match_the_serial_run(tmp_path):
    serial = _run(BotSpec.parse(f"{FAULTY}:RaisingBot", label="bad"), tmp_path / "s", games_per_pairing=4)
    local = _run(BotSpec.parse(f"{FAULTY}:RaisingBot", label="bad"), tmp_path / "l", games_per_pairing=4,
                 workers=2, executor="local")
    assert ((tmp_path / "s" / "results.json").read_bytes() == (tmp_path / "l" / "results.json").read_bytes())
    assert serial["arenas"][0]["forfeits"] == local["arenas"][0]["forfeits"] == {"bad": {"raised": 4}}


def test_a_good_external_bot_plays_whole_games(tmp_path):
    example = Path(__file__).resolve().parents[3] / "examples" / "external_bot.py"
    res = run_arena(["tethsi", "bharg"], ["greedy", BotSpec.parse(f"exec:{sys.executable} {example}")],
                    games_per_pairing=2, out=tmp_path, move_ms=5000)
    for arena in res["arenas"]:
        assert arena["forfeits"] == {} and arena["pairings"][0]["games"] == 2
    for rec in load_records(tmp_path / "records.jsonl"):
        replay(rec)  # whole games: outcome and returns check
