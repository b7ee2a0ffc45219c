"""The prompt loop on the toy game, driven through text streams as a user
would: every command, every wrong-input path, colour on and off."""

from __future__ import annotations

import io
import re

import pytest

from setgames.play.repl import Repl
from setgames.play.screen import Colorizer, format_moves, use_color
from setgames.play.session import Session, load_record
from tests.setgames.play.helpers import (
    TakeOneBot,
    snapshot,
    toy_factory,
    toy_game_factory,
    toy_repl,
    toy_session,
)
from tests.setgames.toy_game import ToyGame

ANSI = re.compile(r"\033\[[0-9;]*m")


def _loader(path: str) -> Session:
    return Session.from_record(load_record(path), toy_game_factory, bot_factory=toy_factory,
                               expect_game="toy")


def _to_pile_one(s: Session) -> None:
    """Play (against the take-one bot) until I face a pile of 1: only "take 1" is legal."""
    while s.state.pile > 1:
        # Piles that can still reach 1 in steps of 2 (take 1 + reply) and 3 (take 2 + reply).
        s.play(1 if s.state.pile - 3 >= 1 and s.state.pile - 3 != 2 else 0)
        while s.bot_to_act():
            s.bot_move()
    assert s.legal() == [0] and s.human_to_act()


def test_end_of_input_ends_cleanly_with_status_zero():
    repl, out = toy_repl(toy_session(), "")
    assert repl.run() == 0
    assert "Your decision (player_0): take" in out.getvalue()


def test_a_piped_game_plays_to_the_end_by_number_and_label():
    s = toy_session(seed=3)
    repl, out = toy_repl(s, "take 2\n" + "1\n" * 10)
    assert repl.run() == 0
    text = out.getvalue()
    assert s.is_over() and "Game over." in text
    assert s.actions[0] == 1 and "player_0 (you): take 2" in text
    assert "player_1 (takeone): take 1" in text
    assert "! the game is over" in text  # the extra lines after the end are refused, one by one


@pytest.mark.parametrize("line, message", [
    ("frobnicate", "'frobnicate' is not a command or a move"),
    ("0", "move 0 is out of range: choose 1..2"),
    ("3", "move 3 is out of range: choose 1..2"),
    ("tak 1", "did you mean"),
    ("undo", "nothing to undo"),
    ("redo", "nothing to redo"),
    ("undo x", "undo takes an optional count"),
    ("redo 0", "redo takes an optional count"),
    ("save", "usage: save FILE"),
    ("save a b", "usage: save FILE"),
    ("save /nonexistent-dir/x.json", "cannot save to '/nonexistent-dir/x.json'"),
    ("load", "usage: load FILE"),
    ("load /nonexistent-dir/x.json", "cannot read '/nonexistent-dir/x.json'"),
    ("trash", "trash is a Tu Sac command"),
    ("hint now", "hint takes no argument"),
    ("quick 2", "quick takes no argument"),
    ("watch me", "watch takes no argument"),
    ('save "unclosed', "No closing quotation"),
])
def test_wrong_input_prints_one_line_and_changes_nothing(line, message):
    s = toy_session(seed=3)
    repl, out = toy_repl(s, loader=_loader)
    before = snapshot(s)
    assert repl.handle(line) is False
    text = out.getvalue()
    assert text.count("\n") == 1 and text.startswith("! ") and message in text, text
    assert snapshot(s) == before


def test_an_illegal_move_by_label_is_refused():
    s = toy_session(seed=3)
    _to_pile_one(s)
    repl, out = toy_repl(s)
    before = snapshot(s)
    repl.handle("take 2")
    assert out.getvalue() == "! 'take 2' is not legal now (type help for commands)\n"
    assert snapshot(s) == before


def test_a_corrupt_or_foreign_save_file_is_refused_and_the_game_goes_on(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{\"game\": \"toy\", \"version\"")
    foreign = tmp_path / "foreign.json"
    foreign.write_text('{"game": "tusac", "version": 0, "config": {}, "seed": 1, "actions": []}')
    s = toy_session(seed=3)
    repl, out = toy_repl(s, f"load {bad}\nload {foreign}\n2\n", loader=_loader)
    repl.run()
    lines = out.getvalue().splitlines()
    errors = [x for x in lines if x.startswith("! ")]
    assert len(errors) == 2 and "not a saved game" in errors[0] and "not 'toy'" in errors[1]
    assert s.actions[0] == 1  # the move after the errors was played


def test_undo_redo_and_the_screen_after_each():
    s = toy_session(seed=3)
    repl, out = toy_repl(s, "1\n1\nundo 2\nredo\nredo\nundo 5\n")
    repl.run()
    text = out.getvalue()
    assert "Undone 2 moves of yours." in text and "Redone 1 move of yours." in text
    assert "Undone 2 moves of yours." in text.split("Redone")[-1]  # undo 5 stops at the start
    assert s.actions == [] and s.can_redo()


def test_hint_shows_the_move_number_label_and_reason():
    s = toy_session(seed=3)
    repl, out = toy_repl(s)
    repl.handle("hint")
    assert out.getvalue() == "Hint (takeone): 1. take 1 (one token at a time)\n"
    assert s.actions == []


def test_quick_plays_a_legal_move_and_the_bots_reply():
    s = toy_session(seed=3)
    repl, out = toy_repl(s)
    repl.handle("quick")
    assert s.actions == [0, 0]
    assert "player_0 (you): take 1\nplayer_1 (takeone): take 1\n" in out.getvalue()


def test_watch_finishes_the_game_at_the_given_pace():
    s = toy_session(seed=3, opponents="random", hint="random")
    pauses: list[float] = []
    repl, out = toy_repl(s, delay=0.25, sleep=pauses.append)
    repl.handle("watch")
    assert s.is_over() and "Game over." in out.getvalue()
    assert pauses == [0.25] * (len(s.actions) - 1)  # between moves, not after the last
    repl.handle("watch")
    assert out.getvalue().splitlines()[-1] == "! the game is over"


def test_save_and_load_commands_round_trip(tmp_path):
    path = tmp_path / "g.json"
    s = toy_session(seed=17, opponents="random")
    repl, out = toy_repl(s, f"1\nsave {path}\n1\nload {path}\n", loader=_loader)
    repl.run()
    assert f"Saved to {path}" in out.getvalue() and "Loaded" in out.getvalue()
    assert repl.session.actions == load_record(path)["actions"]


def test_help_lists_every_command_and_quit_stops():
    s = toy_session()
    repl, out = toy_repl(s, "help\nquit\n1\n")
    assert repl.run() == 0
    text = out.getvalue()
    for word in ("hint", "quick", "undo", "redo", "save FILE", "load FILE", "watch", "help", "quit"):
        assert word in text
    assert s.actions == []  # nothing read after quit


def test_piped_input_is_echoed_after_the_prompt():
    repl, out = toy_repl(toy_session(), "hint\n")
    repl.run()
    assert "> hint\nHint" in out.getvalue()


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal_without_no_color():
    assert use_color(_Tty(), {}) is True
    assert use_color(_Tty(), {"NO_COLOR": "1"}) is False
    assert use_color(_Tty(), {"NO_COLOR": ""}) is True  # no-color.org: only a non-empty value counts
    assert use_color(io.StringIO(), {}) is False
    plain = toy_repl(toy_session(), "hint\n", color=False)
    plain[0].run()
    assert not ANSI.search(plain[1].getvalue())
    colour = toy_repl(toy_session(), "hint\n", color=True)
    colour[0].run()
    assert ANSI.search(colour[1].getvalue())
    assert ANSI.sub("", colour[1].getvalue()) == plain[1].getvalue()


def test_card_names_are_coloured_by_colour_and_suit():
    c = Colorizer(True)
    assert c.cards("discard green pawn", "tusac") == "discard \033[32mgreen pawn\033[0m"
    assert c.cards("Ace of Moons", "tethsi") == "\033[34mAce of Moons\033[0m"
    assert c.cards("Chance Meeting", "bharg") == "\033[34mChance Meeting\033[0m"  # first suit: Moons
    assert Colorizer(False).cards("green pawn", "tusac") == "green pawn"


def test_the_move_list_is_numbered_in_columns_that_fit():
    labels = [f"move {i}" for i in range(12)]
    lines = format_moves(labels, 40, Colorizer(False), "toy")
    assert all(len(x) <= 40 for x in lines)
    numbers = [int(n) for x in lines for n in re.findall(r"(\d+)\. move", x)]
    assert sorted(numbers) == list(range(1, 13))
    assert [int(n) for n in re.findall(r"(\d+)\. move", lines[0])][:2] == [1, 1 + len(lines)]


def test_keyboard_interrupt_ends_with_130():
    class Interrupting(io.StringIO):
        def readline(self, *a):
            raise KeyboardInterrupt

    out = io.StringIO()
    repl = Repl(toy_session(), Interrupting(), out, color=False, delay=0)
    assert repl.run() == 130


def test_a_crashing_bot_costs_one_line_not_the_game():
    class Broken(TakeOneBot):
        def explain(self, game, state, seat):
            raise RuntimeError("boom")

    s = Session(ToyGame(), "toy", 3, 0, "takeone", bot_factory=lambda n, seed: Broken(seed)
                if n == "broken" else toy_factory(n, seed), hint_bot="broken")
    repl, out = toy_repl(s, "hint\n1\n")
    assert repl.run() == 0
    # The hint bot is the human's helper: its failure is one line naming it, and the game goes on.
    assert "! the hint bot broken failed: raised (RuntimeError: boom)" in out.getvalue()
    assert s.actions[0] == 0 and s.forfeit is None
