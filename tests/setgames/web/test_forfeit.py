"""An opponent's fault at the web table: the view says the game is over by a forfeit, with
its reason, shows nothing hidden, refuses further moves, and undo takes it back.

The lobby builds only its allow-list of built-in bots, none of which fails: these tests
give the table a session whose opponents are faulty (as the brief of the lobby allows no
other way), then drive it through its public requests."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from setgames.bots.registry import make_bot
from setgames.draw import draw_state
from setgames.play.session import Session
from setgames.registry import make_game
from setgames.web.table import TableError, WebTable
from tests.setgames.bots.faulty_bots import FirstLegalBot, RaisingBot

BOTS = Path(__file__).resolve().parents[1] / "bots" / "external_bots"


def _table(tmp_path: Path, opponent, seat: int = 0, seed: int = 5) -> WebTable:
    """A table playing tethsi against ``opponent`` (``(seed) -> Bot``), my seat ``seat``."""
    def factory(name: str, s: int | None):
        return opponent(s) if name == "faulty" else make_bot(name, "tethsi", s)

    table = WebTable(tmp_path)
    table._start(Session(make_game("tethsi"), "tethsi", seed, seat, "faulty", bot_factory=factory,
                         hint_bot="greedy"))
    return table


def _play_until_forfeit(table: WebTable) -> dict:
    view = table.view()
    while not view["over"]:
        view = table.move({"action": view["moves"][0]["action"], "confirm": True})
    return view


def test_a_raising_opponent_forfeits_and_the_view_says_so(tmp_path):
    table = _table(tmp_path, RaisingBot)
    view = _play_until_forfeit(table)
    s = table.session
    assert view["over"] and not view["your_turn"] and view["to_act"] == -1 and view["moves"] == []
    assert view["forfeit"] == {"seat": 1, "bot": "faulty", "title": "faulty", "reason": "raised"}
    assert view["returns"] == [1.0, -1.0]
    assert "player_1 (faulty) forfeits: raised" in view["log"]
    # Nothing hidden: not the seed, not the cards (drawn from my seat), not the fault's detail.
    assert view["seed"] is None and view["outcome"] is None
    assert view["svg"] == draw_state(s.game, s.state, 0, [], drawn=s.last_drawn(0)).svg
    assert view["svg"] != draw_state(s.game, s.state, None, []).svg
    assert s.forfeit.detail == "ZeroDivisionError: bug in the bot"
    assert "bug in the bot" not in json.dumps(view)
    for request in (lambda: table.move({"action": 0}), table.hint, table.quick, table.step):
        with pytest.raises(TableError, match="the game is over") as refused:
            request()
        assert refused.value.status == 409
    assert table.session.actions == s.actions and view["can_undo"] and not view["can_redo"]


def test_undo_takes_the_forfeit_back_and_redo_asks_the_bot_again(tmp_path):
    table = _table(tmp_path, RaisingBot)
    before = list(_play_until_forfeit(table)["log"])
    actions = list(table.session.actions)
    view = table.undo()
    assert not view["over"] and view["forfeit"] is None and view["your_turn"] and view["can_redo"]
    assert view["log"][len(before):] == ["Took back the forfeit of player_1", "Undone (1 move)"]
    assert table.session.actions == actions[:-1]
    view = table.redo()  # my move again: the bot is asked again, and fails again
    assert view["over"] and view["forfeit"]["reason"] == "raised" and table.session.actions == actions
    assert view["log"][-1] == "player_1 (faulty) forfeits: raised"


def test_a_forfeit_before_my_first_move_is_undone_alone_and_the_bot_asked_again(tmp_path):
    calls = []

    class OnceRaising(FirstLegalBot):
        def act(self, game, state, seat):
            calls.append(seat)
            if len(calls) == 1:
                raise RuntimeError("first call fails")
            return super().act(game, state, seat)

    table = _table(tmp_path, OnceRaising, seat=1)
    table._run_bots()  # as new_game and load do once the session is made
    assert table.view()["forfeit"]["seat"] == 0 and calls == [0]
    view = table.undo()
    assert view["forfeit"] is None and not view["over"] and len(calls) >= 2  # asked again, and it moved
    assert "Took back the forfeit of player_0" in view["log"] and "Undone" not in " ".join(view["log"])


def test_an_illegal_move_of_an_exec_opponent_is_a_forfeit_and_its_program_ends(tmp_path):
    from setgames.bots.external import ExternalBot

    bots = []

    def external(seed):
        bots.append(ExternalBot(seed, command=f"{sys.executable} {BOTS / 'illegal.py'}"))
        return bots[-1]

    table = _table(tmp_path, external)
    view = _play_until_forfeit(table)
    assert view["forfeit"]["reason"] == "illegal" and view["returns"] == [1.0, -1.0]
    assert bots[0]._proc is None  # the program was ended at its fault


def test_a_failing_hint_bot_is_a_refused_request_not_a_forfeit(tmp_path):
    table = _table(tmp_path, FirstLegalBot)
    table.session.hint_bot = RaisingBot(0)
    table.session.hint_bot_name = "raising"
    for request in (table.hint, table.quick, table.step):
        with pytest.raises(TableError, match=r"the hint bot raising failed: raised \(ZeroDivisionError"):
            request()
    view = table.view()
    assert not view["over"] and view["forfeit"] is None and view["your_turn"] and table.session.actions == []
