"""Time controls: per decision and per game, enforced on exec: bots, checked on every bot,
forfeiting or (--flag-only) flagging; each bot's median and p99 time per decision."""

from __future__ import annotations

import time

import pytest

from setgames.arena import BotSpec, format_results, run_arena
from setgames.arena.worker import TimeControl
from setgames.cli import main
from tests.setgames.arena.test_forfeits import FAULTY, external


def test_a_slow_external_bot_is_cut_off_at_its_move_limit(tmp_path):
    started = time.perf_counter()
    res = run_arena(["tethsi"], ["random", external("slow.py", "5000", "1")], games_per_pairing=2,
                    out=tmp_path, move_ms=150)
    assert res["arenas"][0]["forfeits"] == {"bad": {"timeout": 2}}
    assert "150 ms" in res["arenas"][0]["games"][0]["forfeit"]["detail"]
    assert time.perf_counter() - started < 4  # not the 5 s the bot would take


def test_a_slow_python_bot_is_measured_and_forfeits(tmp_path):
    slow = BotSpec.parse(f"{FAULTY}:SlowBot:ms=60,moves=1", label="bad")
    res = run_arena(["tethsi"], ["random", slow], games_per_pairing=2, out=tmp_path, move_ms=30)
    assert res["arenas"][0]["forfeits"] == {"bad": {"timeout": 2}}


def test_the_game_budget_is_the_sum_of_a_seats_decisions(tmp_path):
    # 40 ms on each of 3 decisions: under a 100 ms move limit, over a 100 ms game budget.
    slow = BotSpec.parse(f"{FAULTY}:SlowBot:ms=40,moves=3", label="bad")
    res = run_arena(["tethsi"], ["random", slow], games_per_pairing=2, out=tmp_path, move_ms=100)
    assert res["arenas"][0]["forfeits"] == {}
    res = run_arena(["tethsi"], ["random", slow], games_per_pairing=2, out=tmp_path, game_ms=100)
    assert res["arenas"][0]["forfeits"] == {"bad": {"timeout": 2}}
    assert "in the game (limit 100 ms)" in res["arenas"][0]["games"][0]["forfeit"]["detail"]
    ext = run_arena(["tethsi"], ["random", external("slow.py", "40", "3")], games_per_pairing=2,
                    out=tmp_path, game_ms=100)
    assert ext["arenas"][0]["forfeits"] == {"bad": {"timeout": 2}}


def test_flag_only_counts_instead_of_forfeiting(tmp_path):
    res = run_arena(["tethsi"], ["random", external("slow.py", "60", "1")], games_per_pairing=2,
                    out=tmp_path, move_ms=20, flag_only=True)
    arena = res["arenas"][0]
    assert arena["forfeits"] == {} and arena["flagged"] == {"bad": 2}
    assert "bad went over its time 2 time(s) (flagged only)" in format_results(res)


def test_median_and_p99_per_decision_in_the_table(tmp_path):
    res = run_arena(["tethsi"], ["random", external("slow.py", "20", "1000")], games_per_pairing=2,
                    out=tmp_path)
    per = res["timing"]["per_game"]["tethsi"]
    assert 19 <= per["bad"]["median_ms"] <= 150 and per["bad"]["p99_ms"] >= per["bad"]["median_ms"]
    assert per["random"]["median_ms"] < 5
    line = next(x for x in format_results(res).splitlines() if x.lstrip().startswith(("1. bad", "2. bad")))
    assert f"{per['bad']['median_ms']:8.2f}" in line and f"{per['bad']['p99_ms']:8.2f}" in line


def test_flag_only_still_cuts_a_hung_program_off():
    tc = TimeControl(move_ms=2000, flag_only=True)
    assert tc.cutoff_ms(2000, None) == 20_000 and TimeControl(move_ms=5).cutoff_ms(5, 3) == 3


@pytest.mark.parametrize("argv, match", [
    (["--move-ms", "0"], "--move-ms 0 must be a positive number"),
    (["--game-ms", "-5"], "--game-ms -5 must be a positive number"),
    (["--flag-only"], "--flag-only needs a time limit"),
])
def test_bad_time_controls_are_one_line(argv, match, capsys, tmp_path):
    status = main(["arena", "--game", "tethsi", "--bots", "random", "greedy", "--out", str(tmp_path), *argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and match in err[0], err
