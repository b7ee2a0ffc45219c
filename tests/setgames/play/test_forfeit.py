"""An opponent's fault forfeits the game, it does not end the session: Python bots that
raise or answer an illegal move, exec: programs that crash, hang or talk garbage, at
the session, the prompt loop and the command line; the hint bot failing is not a forfeit."""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from setgames.bots.base import Bot
from setgames.bots.external import ExternalBot
from setgames.play.repl import add_arguments, run
from setgames.play.session import MAX_DETAIL, Session, SessionError
from setgames.registry import make_game
from tests.setgames.arena.test_no_leftovers import _all_gone, _pids
from tests.setgames.play.helpers import TakeOneBot, toy_factory, toy_game_factory, toy_repl
from tests.setgames.toy_game import ToyGame

ROOT = Path(__file__).resolve().parents[3]
BOTS = ROOT / "tests" / "setgames" / "bots" / "external_bots"


class Flaky(Bot):
    """Takes one token, or fails as ``mode`` says: ``"raise"``, an illegal id, a float, None."""

    name = "flaky"

    def __init__(self, seed=None, mode="raise"):
        super().__init__(seed)
        self.mode = mode
        self.asked = 0

    def act(self, game, state, seat):
        self.asked += 1
        if self.mode == "raise":
            raise ZeroDivisionError("bug in the bot\nsecond line")
        return {"ok": game.legal_actions(state)[0], "illegal": 99, "float": 0.0, "none": None}[self.mode]


def _flaky_session(mode: str, seat: int = 0, seed: int = 3) -> tuple[Session, Flaky]:
    bot = Flaky(0, mode)

    def factory(name: str, s: int | None) -> Bot:
        return bot if name == "flaky" else toy_factory(name, s)

    return Session(ToyGame(), "toy", seed, seat, "flaky", bot_factory=factory, hint_bot="takeone"), bot


@pytest.mark.parametrize("mode, reason, detail", [
    ("raise", "raised", "ZeroDivisionError: bug in the bot"),
    ("illegal", "illegal", "action 99 is not legal at move 1"),
    ("float", "illegal", "0.0 is not an action id (move 1)"),
    ("none", "illegal", "None is not an action id (move 1)"),
])
def test_a_failing_python_bot_forfeits_and_the_game_is_over(mode, reason, detail):
    s, _ = _flaky_session(mode)
    s.play(0)
    seat, action = s.bot_move()
    assert (seat, action) == (1, None) and s.actions == [0]  # the failed move is not played
    f = s.forfeit
    assert (f.seat, f.bot, f.reason, f.detail) == (1, "flaky", reason, detail)  # one line only
    assert s.is_over() and not s.is_played_out() and s.to_act() == -1 and s.legal() == []
    assert not s.bot_to_act() and not s.human_to_act()
    assert s.returns() == [1.0, -1.0]
    for refused, match in ((lambda: s.play(0), "the game is over"), (s.bot_move, "no bot is to move"),
                           (s.auto_move, "the game is over"), (s.hint, "the game is over"),
                           (s.quick, "the game is over"), (lambda: s.parse_move("1"), "the game is over")):
        with pytest.raises(SessionError, match=match):
            refused()
    assert s.actions == [0] and s.forfeit == f


def test_undo_takes_back_the_forfeit_and_my_move_and_the_bot_is_asked_again():
    s, bot = _flaky_session("raise")
    s.play(1)
    s.bot_move()
    assert s.forfeit is not None and s.can_undo() and not s.can_redo()
    assert s.undo() == 1
    assert s.forfeit is None and s.actions == [] and s.human_to_act() and s.can_redo()
    bot.mode = "ok"  # a bot that failed once (a timeout, say) may answer when asked again
    s.redo()
    assert s.bot_to_act() and s.forfeit is None
    assert s.bot_move() == (1, 0) and s.human_to_act() and s.actions == [1, 0]
    # and another move of mine this time: the same bot fails again, forfeits again
    bot.mode = "illegal"
    s.play(0)
    assert s.bot_move() == (1, None) and s.forfeit.reason == "illegal"


def test_a_forfeit_before_my_first_move_is_taken_back_alone():
    s, bot = _flaky_session("raise", seat=1)
    assert s.bot_move() == (0, None) and s.forfeit.seat == 0
    assert s.can_undo() and s.undo() == 0  # no move of mine to take back: the forfeit alone
    assert s.forfeit is None and s.bot_to_act() and not s.can_undo() and not s.can_redo()
    with pytest.raises(SessionError, match="nothing to undo"):
        s.undo()
    bot.mode = "ok"
    assert s.bot_move() == (0, 0)


def test_a_forfeited_game_saves_its_moves_and_loading_asks_the_bot_again(tmp_path):
    s, _ = _flaky_session("raise")
    s.play(1)
    s.bot_move()
    s.save(tmp_path / "g.json")
    saved = json.loads((tmp_path / "g.json").read_text())
    unforfeited, _ = _flaky_session("raise")
    unforfeited.play(1)
    assert saved == unforfeited.record()  # the save format is unchanged: no forfeit in it
    bot = Flaky(0, "ok")
    loaded = Session.from_record(saved, toy_game_factory,
                                 bot_factory=lambda n, seed: bot if n == "flaky" else toy_factory(n, seed))
    assert loaded.actions == [1] and loaded.forfeit is None and loaded.bot_to_act()
    assert loaded.bot_move() == (1, 0) and bot.asked == 1


def test_a_failing_hint_bot_is_an_error_not_a_forfeit():
    class Broken(TakeOneBot):
        def act(self, game, state, seat):
            return 7

        def explain(self, game, state, seat):
            raise RuntimeError("boom")

    s = Session(ToyGame(), "toy", 3, 0, "takeone",
                bot_factory=lambda n, seed: Broken(seed) if n == "broken" else toy_factory(n, seed),
                hint_bot="broken")
    with pytest.raises(SessionError, match=r"^the hint bot broken failed: raised \(RuntimeError: boom\)$"):
        s.hint()
    with pytest.raises(SessionError, match="the hint bot broken failed: illegal"):
        s.auto_move()  # watch mode asks the hint bot's act for my seat
    assert s.forfeit is None and s.actions == [] and s.human_to_act()


def test_a_long_fault_detail_is_kept_to_one_short_line():
    s, _ = _flaky_session("raise")
    s.bots[1].act = lambda game, state, seat: (_ for _ in ()).throw(ValueError("x" * 5000 + "\nmore"))
    s.play(0)
    s.bot_move()
    assert s.forfeit.detail == ("ValueError: " + "x" * 5000)[:MAX_DETAIL]


def test_the_prompt_loop_prints_the_forfeit_and_goes_on():
    s, _ = _flaky_session("raise")
    repl, out = toy_repl(s, "1\nhint\n2\nundo\nboard\n")
    assert repl.run() == 0
    text = out.getvalue()
    assert "player_1 (flaky) forfeits: raised\n" in text
    assert ("Game over. player_1 (flaky) forfeits: raised (ZeroDivisionError: bug in the bot); you win! "
            "Returns: player_0 1, player_1 -1.") in text
    assert "! the game is over\n" in text  # hint
    assert "! the game is over: undo, save, load or quit" in text  # a move
    # undo took the forfeit back with my move; the bot fails again only once I move again
    assert "Took back the forfeit of player_1.\nUndone 1 move of yours." in text
    assert s.forfeit is None and s.actions == [] and text.rstrip().endswith("2. take 2\n>")


def test_watch_ends_at_an_opponents_forfeit():
    s, _ = _flaky_session("raise")
    repl, out = toy_repl(s, "watch\n")
    assert repl.run() == 0
    assert s.forfeit.reason == "raised" and "player_1 (flaky) forfeits: raised" in out.getvalue()
    assert "Game over. player_1 (flaky) forfeits" in out.getvalue()


def test_a_forfeit_shows_no_hidden_card():
    game = make_game("tethsi")
    s = Session(game, "tethsi", 5, 1, "flaky", bot_factory=lambda n, seed: Flaky(seed) if n == "flaky"
                else toy_factory(n, seed), hint_bot="random")
    repl, out = toy_repl(s, "")
    assert repl.run() == 0 and s.forfeit is not None
    # Every card shows only at the end of the deal, and a forfeit can be undone: my seat's view.
    mine, everything = game.render(s.state, 1), game.render(s.state, None)
    assert mine != everything and mine in out.getvalue() and everything not in out.getvalue()


# ---------------------------------------------------------------------- exec: opponents


def _exec_factory(game_name: str, move_ms: float = 300):
    """Bots of any spec; exec: ones cut off after ``move_ms`` (play sets no clock: 10 s)."""
    from setgames.bots.specs import make_any_bot, parse_any_spec

    def build(spec: str, seed: int | None) -> Any:
        target, options = parse_any_spec(spec)
        bot = make_any_bot(target, game_name, seed, **options)
        if isinstance(bot, ExternalBot):
            bot.set_clock(None, None, move_ms)
        return bot

    return build


def _exec(script: str) -> str:
    return f"exec:{sys.executable} {BOTS / script}"


@pytest.mark.parametrize("script, reason", [
    ("crash.py", "crashed"),
    ("exits.py", "exited"),
    ("hang.py", "timeout"),
    ("illegal.py", "illegal"),
    ("garbage.py", "garbage"),
    ("not_utf8.py", "not_utf8"),
    ("bad_handshake.py", "handshake"),
    ("long_line.py", "line_too_long"),
])
def test_each_fault_of_an_exec_opponent_forfeits_and_leaves_no_process(script, reason, tmp_path,
                                                                        monkeypatch):
    piddir = tmp_path / "pids"
    piddir.mkdir()
    monkeypatch.setenv("SETGAMES_TEST_PIDDIR", str(piddir))
    s = Session(make_game("tethsi"), "tethsi", 5, 1, _exec(script), bot_factory=_exec_factory("tethsi"),
                hint_bot="greedy")
    repl, out = toy_repl(s, "")
    try:
        assert repl.run() == 0
        # The faulty program is ended at its fault, not only when the session closes its bots.
        assert len(_pids(piddir)) == 1 and _all_gone(piddir) == []
    finally:
        for bot in s.bots.values():
            bot.close()
    assert s.forfeit is not None and (s.forfeit.seat, s.forfeit.reason) == (0, reason)
    text = out.getvalue()
    assert f"Game over. player_0 (exec:{sys.executable}" in text
    assert f"forfeits: {reason} (" in text and "you win! Returns: player_0 -1, player_1 1." in text


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_setgames_play_against_a_crashing_program_ends_in_a_forfeit(tmp_path, monkeypatch):
    piddir = tmp_path / "pids"
    piddir.mkdir()
    monkeypatch.setenv("SETGAMES_TEST_PIDDIR", str(piddir))
    out, err = io.StringIO(), io.StringIO()
    args = _args("tethsi", "--seat", "1", "--seed", "5", "--opponents", _exec("crash.py"))
    assert run(args, io.StringIO("1\nsave " + str(tmp_path / "g.json") + "\n"), out, err) == 0
    assert err.getvalue() == ""
    text = out.getvalue()
    assert "player_0 (exec:" in text and "forfeits: crashed (the program crashed (exit status 3); stderr: " \
        "Traceback: something broke); you win!" in text
    assert "! the game is over: undo, save, load or quit" in text and "Saved to " in text
    assert json.loads((tmp_path / "g.json").read_text())["actions"] == []
    assert _all_gone(piddir) == []


def test_a_crashing_exec_hint_bot_is_one_error_line():
    out = io.StringIO()
    args = _args("bharg", "--seed", "2", "--opponents", "random", "--hint-bot", _exec("crash.py"))
    assert run(args, io.StringIO("hint\n1\n"), out, io.StringIO()) == 0
    text = out.getvalue()
    assert "! the hint bot exec:" in text and "failed: crashed (the program crashed (exit status 3)" in text
    assert "forfeits" not in text and "player_0 (you): " in text  # the game went on with my move


def test_the_command_line_exits_0_at_end_of_input_after_a_forfeit(tmp_path):
    piddir = tmp_path / "pids"
    piddir.mkdir()
    argv = [sys.executable, "-m", "setgames.cli", "play", "tethsi", "--seat", "1", "--seed", "5",
            "--opponents", _exec("garbage.py")]
    proc = subprocess.run(argv, cwd=ROOT, input="", capture_output=True, text=True, timeout=120,
                          env={**os.environ, "SETGAMES_TEST_PIDDIR": str(piddir)})
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert "forfeits: garbage (the act reply is not JSON: 'e2e4 is my move'); you win!" in proc.stdout
    assert len(_pids(piddir)) == 1 and _all_gone(piddir) == []
