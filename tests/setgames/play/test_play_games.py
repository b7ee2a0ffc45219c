"""``setgames play`` on the real games, driven as a user would: scripts
through ``run()`` with text streams, the installed command line through
pipes, and one game through a pseudo-terminal.

Every game a script plays is saved and then re-simulated by
:func:`setgames.records.replay`, which knows nothing of the play package:
the moves were legal, the game really ended, the outcome is the one shown.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from setgames.game import rng_from_seed
from setgames.play import add_arguments, run
from setgames.play.repl import Repl
from setgames.play.session import Session, load_record
from setgames.records import replay
from setgames.registry import make_game

ROOT = Path(__file__).resolve().parents[3]
FAST = ["--opponents", "random", "--hint-bot", "random", "--delay", "0"]
ANSI = re.compile(r"\033\[[0-9;]*m")

GAMES = [
    pytest.param("tethsi", None, id="tethsi"),
    pytest.param("bharg", 2, id="bharg-2"),
    pytest.param("bharg", 3, id="bharg-3"),
    pytest.param("tusac", 2, id="tusac-2"),
    pytest.param("tusac", 3, id="tusac-3"),
    pytest.param("tusac", 4, id="tusac-4"),
]


def _need(game: str) -> None:
    pytest.importorskip(f"{game}_env.rules", reason=f"{game} rules not written yet")


def play(argv: list[str], script: str) -> tuple[int, str, str]:
    """``setgames play ARGV`` reading ``script``; returns (status, stdout, stderr)."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    out, err = io.StringIO(), io.StringIO()
    status = run(parser.parse_args(argv), io.StringIO(script), out, err)
    return status, out.getvalue(), err.getvalue()


def _players(players: int | None) -> list[str]:
    return [] if players is None else ["--players", str(players)]


def _human_seat_of_each_action(rec: dict) -> list[int]:
    game = make_game(rec["game"], **rec["config"])
    state = game.new_state(rng_from_seed(rec["seed"]))
    seats = []
    for a in rec["actions"]:
        seats.append(game.current_seat(state))
        game.apply(state, a)
    return seats


@pytest.mark.parametrize("game, players", GAMES)
def test_a_full_game_against_random_bots(game, players, tmp_path):
    _need(game)
    path = tmp_path / "end.json"
    status, out, err = play([game, "--seed", "5", *_players(players), *FAST],
                            "quick\n" * 400 + f"save {path}\nquit\n")
    assert status == 0 and err == ""
    assert "Game over." in out and "Traceback" not in out
    rec = load_record(path)
    result = replay(rec)  # raises unless every action is legal and the game ends with the last one
    verdict = re.search(r"Game over\. (.*?) Returns: (.*?)\.", out)
    shown = [float(x.split()[1]) for x in verdict.group(2).split(", ")]
    assert shown == pytest.approx(list(result.returns))
    assert rec["seats"][0] == "human" and set(rec["seats"][1:]) == {"random"}


@pytest.mark.parametrize("game, players", [GAMES[0], GAMES[1], GAMES[4]])
def test_hint_undo_redo(game, players, tmp_path):
    _need(game)
    a, b, c = (tmp_path / f"{x}.json" for x in "abc")
    script = f"hint\nquick\nquick\nsave {a}\nundo\nsave {b}\nredo\nsave {c}\nundo 99\nquit\n"
    status, out, _ = play([game, "--seed", "9", *_players(players), *FAST], script)
    assert status == 0
    hint = re.search(r"Hint \(random\): (\d+)\. (.+)", out)
    first_list = out.split("Your decision", 1)[1].split(">", 1)[0]
    assert f"{hint.group(1)}. {hint.group(2)}" in first_list  # the hint names a listed move
    ra, rb, rc = load_record(a), load_record(b), load_record(c)
    seats = _human_seat_of_each_action(ra)
    last_mine = max(i for i, s in enumerate(seats) if s == 0)
    assert rb["actions"] == ra["actions"][:last_mine]  # back to my previous decision point
    assert rc["actions"] == ra["actions"]
    assert "Undone" in out.rsplit("undo 99", 1)[1]
    assert "move 0 ·" in out.rsplit("undo 99", 1)[1] or seats[0] != 0


@pytest.mark.parametrize("game, players", [GAMES[0], GAMES[2], GAMES[5]])
def test_save_then_load_continues_to_the_same_end(game, players, tmp_path):
    _need(game)
    mid, end1, end2 = tmp_path / "mid.json", tmp_path / "end1.json", tmp_path / "end2.json"
    rest = "quick\n" * 400
    play([game, "--seed", "21", *_players(players), *FAST], f"quick\nquick\nsave {mid}\n{rest}save {end1}\n")
    status, out, _ = play([game, "--load", str(mid), *FAST], f"{rest}save {end2}\n")
    assert status == 0 and f"· move {len(load_record(mid)['actions'])} ·" in out
    r1, r2 = load_record(end1), load_record(end2)
    assert r1["actions"] == r2["actions"] and r1["actions"][:len(load_record(mid)["actions"])] == \
        load_record(mid)["actions"]
    assert replay(r1).returns == replay(r2).returns


@pytest.mark.parametrize("game, players", [GAMES[0], GAMES[3]])
def test_watch_lets_the_bots_finish(game, players, tmp_path):
    _need(game)
    path = tmp_path / "w.json"
    status, out, _ = play([game, "--seed", "2", *_players(players), *FAST], f"watch\nsave {path}\n")
    assert status == 0 and "Watching: random plays for you" in out and "Game over." in out
    replay(load_record(path))


def _tusac_repl(seed: int, players: int = 2) -> tuple[Repl, io.StringIO]:
    game = make_game("tusac", num_players=players)
    out = io.StringIO()
    return Repl(Session(game, "tusac", seed, 0, "random", hint_bot="random"), io.StringIO(), out,
                color=False, delay=0), out


def _outs_oracle(counts: list[int], unseen: list[int]) -> list[int]:
    """Outs from the rule text alone (``tusac_env/README.md``, rules choice 25): unseen copies of
    every card that, as the active card, makes a valid set with this card and
    other private non-Khap cards."""
    held = [c > 0 and c != 3 for c in counts]
    out = [0] * 28
    for t in range(28):
        if not held[t]:
            continue
        col, piece = divmod(t, 7)
        total = unseen[t]  # pair (and triple) with its own copies
        for trio in ((0, 1, 2), (3, 4, 5)):
            if piece in trio:
                for u in trio:
                    third = [q for q in trio if q not in (u, piece)]
                    if u != piece and held[col * 7 + third[0]]:
                        total += unseen[col * 7 + u]
        if piece == 6:
            for uc in range(4):
                if uc != col and any(held[c3 * 7 + 6] for c3 in range(4) if c3 not in (col, uc)):
                    total += unseen[uc * 7 + 6]
        out[t] = total
    return out


def _unseen_oracle(state, seat: int) -> list[int]:
    """4 minus what ``seat`` has seen: own private cards, public blocks, dead pile, active card."""
    seen = list(state.private[seat])
    for block in state.public:
        for _, cards in block:
            for t in cards:
                seen[t] += 1
    for t in range(28):
        seen[t] += state.dead[t]
    if state.active >= 0:
        seen[state.active] += 1
    return [4 - x for x in seen]


def test_tusac_trash_lists_my_trash_cards_their_outs_and_the_worst():
    repl, out = _tusac_repl(seed=4)
    s = repl.session
    for _ in range(6):  # check at several discard decisions of a game
        repl.run_bots()
        if s.is_over():
            break
        out.seek(0), out.truncate()
        repl.handle("trash")
        text = out.getvalue()
        legal_discards = [s.label(a)[len("discard "):] for a in s.legal() if s.label(a).startswith("discard")]
        if not legal_discards:
            assert text.startswith("Trash") or "No trash" in text
            repl.handle("quick")
            continue
        listed = dict(re.findall(r"(\w+ \w+) \((\d+) outs?\)", text))
        assert sorted(listed) == sorted(legal_discards)  # trash cards = the discards the rules allow
        counts = s.state.private[0]
        oracle = _outs_oracle(counts, _unseen_oracle(s.state, 0))
        names = {s.game.action_to_str(a)[len("discard "):]: a - s.game.layout.start("discard")
                 for a in s.game.layout.block_range("discard")}
        assert {n: int(v) for n, v in listed.items()} == {n: oracle[names[n]] for n in listed}
        low = min(int(v) for v in listed.values())
        worst = re.search(r"Worst \(safest to discard\): (.*)\.", text).group(1).split(", ")
        assert sorted(worst) == sorted(n for n, v in listed.items() if int(v) == low)
        assert sorted(names[w] for w in worst) == sorted(s.game.worst_cards(s.state))  # the penalty's test
        repl.handle("quick")


def test_tusac_asks_before_a_non_worst_discard_and_not_before_a_worst_one():
    for seed in range(20):
        repl, out = _tusac_repl(seed=seed)
        s = repl.session
        worst = set(s.game.worst_cards(s.state))
        discards = [a for a in s.legal() if s.label(a).startswith("discard")]
        others = [a for a in discards if a - s.game.layout.start("discard") not in worst]
        if discards and others:
            break
    else:
        pytest.fail("no deal with a non-worst discard in 20 seeds")
    before = list(s.actions)
    bad = others[0]
    repl.inp = io.StringIO("n\n")
    repl.handle(s.label(bad))
    text = out.getvalue()
    assert "is not among your worst cards" in text and "Discard it anyway? [y/N]" in text
    assert "you alone pay" in text  # the penalty rule is on by default
    assert text.rstrip().endswith("Not discarded.") and s.actions == before
    repl.inp = io.StringIO("")  # end of input during the question: nothing is played
    repl.handle(s.label(bad))
    assert s.actions == before
    repl.inp = io.StringIO("y\n")
    repl.handle(str(s.legal().index(bad) + 1))  # by number too
    assert s.actions[len(before)] == bad
    # a worst discard is played without a question
    repl2, out2 = _tusac_repl(seed=seed)
    good = next(a for a in discards if a not in others)
    repl2.handle(repl2.session.label(good))
    assert "Discard it anyway" not in out2.getvalue() and repl2.session.actions[0] == good


def test_tusac_shows_claims_and_hit_cards():
    _, out, _ = play(["tusac", "--seed", "1", *FAST], "quick\n" * 200)
    assert re.search(r"player_\d turns up \w+ \w+", out)
    assert re.search(r"player_\d claims the \w+ \w+ \((pair|khui|win)\)", out)


@pytest.mark.parametrize("argv, message", [
    (["chess"], "unknown game 'chess'"),
    (["tethsi", "--players", "3"], "tethsi is played by 2 players, not 3"),
    (["tusac", "--players", "5"], "num_players 5"),
    (["tusac", "--seat", "4"], "seat 4"),
    (["tusac", "--seed", "-3"], "seed -3"),
    (["tusac", "--opponents", "wizard"], "unknown bot 'wizard'"),
    (["tusac", "--delay", "-1"], "--delay -1.0 must be a number of seconds in 0..60"),
    (["tusac", "--load", "/nonexistent/save.json"], "cannot read '/nonexistent/save.json'"),
])
def test_bad_arguments_end_with_one_line_and_status_2(argv, message):
    _need(argv[0]) if argv[0] != "chess" else None
    status, out, err = play(argv, "")
    assert status == 2 and out == "" and err.count("\n") == 1 and message in err, err


def test_a_corrupt_or_foreign_save_file_given_to_load_is_refused(tmp_path):
    _need("tusac")
    corrupt = tmp_path / "c.json"
    corrupt.write_text('{"game": "tusac", "actions": [1, 2')
    status, _, err = play(["tusac", "--load", str(corrupt)], "")
    assert status == 2 and "not a saved game" in err
    other = tmp_path / "o.json"
    status, _, _ = play(["tusac", "--seed", "3", *FAST], f"save {other}\n")
    rec = json.loads(other.read_text())
    rec["actions"] = [45] * 3 + rec["actions"]
    other.write_text(json.dumps(rec))
    status, _, err = play(["tusac", "--load", str(other)], "")
    assert status == 2 and "does not replay" in err


def _cli(*args: str, script: str = "", env: dict | None = None) -> subprocess.CompletedProcess:
    cli = "setgames.cli" if (ROOT / "setgames" / "cli.py").exists() else "setgames.play"
    prefix = ["play"] if cli == "setgames.cli" else []
    return subprocess.run([sys.executable, "-m", cli, *prefix, *args], input=script, capture_output=True,
                          text=True, cwd=ROOT, timeout=120, env=env)


def test_the_command_line_through_a_pipe_is_plain_and_scriptable(tmp_path):
    _need("tusac")
    path = tmp_path / "p.json"
    proc = _cli("tusac", "--players", "2", "--seed", "7", *FAST, script=f"bogus\n1000\nquick\nsave {path}\n")
    assert proc.returncode == 0, proc.stderr
    assert not ANSI.search(proc.stdout)  # no colour over a pipe
    assert "! 'bogus' is not a command or a move" in proc.stdout
    assert "! move 1000 is out of range" in proc.stdout
    assert len(load_record(path)["actions"]) >= 1
    bad = _cli("chess")
    assert bad.returncode == 2 and "unknown game 'chess'" in bad.stderr and "Traceback" not in bad.stderr


def test_a_game_on_a_pseudo_terminal_is_in_colour_and_plays_to_the_end():
    _need("tusac")
    import pty
    import select
    import time

    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["COLUMNS"] = "100"
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "setgames.play", "tusac", "--players", "2", "--seed", "11",
                             *FAST], stdin=slave, stdout=slave, stderr=slave, cwd=ROOT, env=env)
    os.close(slave)
    seen = b""

    def read_some(timeout: float) -> bool:
        """Append what the program wrote within ``timeout`` s; False once it closed."""
        nonlocal seen
        ready, _, _ = select.select([master], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(master, 65536)
        except OSError:
            return False
        seen += chunk
        return bool(chunk)

    def prompts() -> int:
        return seen.count(b"\n> ")

    def wait_for(done, timeout: float = 60.0) -> None:
        end = time.monotonic() + timeout
        while not done() and time.monotonic() < end and read_some(0.5):
            pass

    try:
        wait_for(lambda: prompts() >= 1)
        for _ in range(200):
            if b"Game over." in seen:
                break
            before = prompts()
            os.write(master, b"quick\n")
            wait_for(lambda before=before: prompts() > before)
        assert b"Game over." in seen
        os.write(master, b"quit\n")
        wait_for(lambda: b"Bye." in seen)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    text = seen.decode("utf-8", "replace")
    assert ANSI.search(text)  # colour on a terminal
    assert "\033[1m" in text and re.search(r"\033\[(31|32|33|1;37)m", text)  # bold and card colours


def test_the_warning_without_the_penalty_rule_does_not_threaten_a_penalty():
    _need("tusac")
    for seed in range(20):
        game = make_game("tusac", num_players=2, penalty_rule=False)
        s = Session(game, "tusac", seed, 0, "random", hint_bot="random")
        worst = set(game.worst_cards(s.state))
        others = [a for a in s.legal() if s.label(a).startswith("discard")
                  and a - game.layout.start("discard") not in worst]
        if others:
            break
    out = io.StringIO()
    repl = Repl(s, io.StringIO("no\n"), out, color=False, delay=0)
    repl.handle(s.label(others[0]))
    assert "is not among your worst cards" in out.getvalue() and "pay" not in out.getvalue()
    assert s.actions == []


def test_hint_from_the_search_bot_gives_its_one_line_reason():
    _need("tethsi")
    status, out, _ = play(["tethsi", "--seed", "3", "--opponents", "random", "--hint-bot",
                           "ismcts:iterations=30", "--delay", "0"], "hint\n")
    line = next(x for x in out.splitlines() if x.startswith("Hint"))
    assert status == 0 and re.fullmatch(r"Hint \(ismcts:iterations=30\): \d+\. .+ \(.+\)", line), line


def test_tusac_help_lists_its_trash_command_and_other_games_name_it():
    repl, out = _tusac_repl(seed=4)
    repl.handle("help")
    assert "trash         my trash cards and the worst ones to discard" in out.getvalue()
    session = Session(make_game("bharg"), "bharg", 1, 0, "random")
    other = io.StringIO()
    Repl(session, inp=io.StringIO(""), out=other, color=False).handle("trash")
    assert "trash is a Tu Sac command" in other.getvalue() and session.actions == []


def test_a_level_opponent_is_shown_with_its_name():
    status, out, _ = play(["tethsi", "--seed", "4", "--opponents", "level:2", "--hint-bot", "random",
                           "--delay", "0"], "watch\nquit\n")
    assert status == 0
    assert "player_1=level:2 Novice" in out and "player_1 (level:2 Novice):" in ANSI.sub("", out)
