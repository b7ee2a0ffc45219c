"""The web table is the play session: same games as the session driven directly,
the game's tools as the terminal has them, the view's parts."""

from __future__ import annotations

import pytest

from setgames.cli import build_parser
from setgames.play.session import Session
from setgames.registry import make_game
from setgames.web.server import make_server
from setgames.web.table import TableError, WebTable, game_choices
from tusac_env.table import trash_report


@pytest.mark.parametrize(("name", "players", "seat"), [("tethsi", 2, 1), ("bharg", 3, 2), ("tusac", 3, 0)])
def test_a_game_at_the_web_table_is_the_session_s_game(tmp_path, name, players, seat):
    table = WebTable(tmp_path)
    view = table.new_game({"game": name, "players": players, "seat": seat, "seed": 77, "opponents": "greedy"})
    direct = Session(make_game(name, num_players=players) if name != "tethsi" else make_game(name), name, 77,
                     seat, "greedy")
    while direct.bot_to_act():
        direct.bot_move()
    k = 0
    while not view["over"]:
        assert view["your_turn"] and [m["action"] for m in view["moves"]] == direct.legal()
        assert [m["label"] for m in view["moves"]] == [direct.label(a) for a in direct.legal()]
        move = view["moves"][k % len(view["moves"])]["action"]  # not always the first: vary the play
        view = table.move({"action": move, "confirm": True})
        direct.play(move)
        while direct.bot_to_act():
            direct.bot_move()
        k += 1
    assert direct.is_over() and table.session.actions == direct.actions
    assert view["returns"] == list(direct.game.returns(direct.state))
    assert "spectator: all cards" in view["svg"]  # at the end every card is shown


def test_find_trash_picks_the_worst_then_the_other_trash(tmp_path):
    table = WebTable(tmp_path)
    checked = 0
    for seed in range(12):
        view = table.new_game({"game": "tusac", "players": 2, "seat": 0, "seed": seed, "opponents": "random"})
        while not view["over"] and checked < 30:
            picks = table.tool({"name": "trash"})["tool"]["picks"]
            discards = {m["action"] for m in view["moves"] if m["block"] == "discard"}
            report = trash_report(table.session.state, 0)
            start = table.session.game.layout.start("discard")
            if discards:
                assert set(picks) == {start + t for t in report.discards} & discards
                assert [a - start for a in picks[:len(report.worst)]] == list(report.worst)
                checked += 1
            else:
                assert picks == []
            view = table.quick()
    assert checked == 30


def test_watch_steps_one_move_at_a_time_to_the_end(tmp_path):
    table = WebTable(tmp_path)
    view = table.new_game({"game": "bharg", "players": 2, "seat": 0, "seed": 3, "opponents": "random",
                           "hint_bot": "random"})
    while not view["over"]:
        ply = view["ply"]
        view = table.step()
        assert view["ply"] == ply + 1
    with pytest.raises(TableError, match="over"):
        table.step()


def test_undo_redo_hint_and_requests_before_a_game(tmp_path):
    table = WebTable(tmp_path)
    assert table.view()["game"] is None
    for request in (table.hint, table.undo, table.quick, table.step):
        with pytest.raises(TableError, match="no game yet"):
            request()
    view = table.new_game({"game": "tethsi", "seed": 5, "opponents": "random"})
    hint = table.hint()["hint"]
    assert hint["action"] in [m["action"] for m in view["moves"]]
    assert view["moves"][hint["number"] - 1]["action"] == hint["action"]
    before = table.session.actions[:]
    table.move({"action": hint["action"]})
    after = table.session.actions[:]
    assert table.undo()["ply"] == len(before) and table.session.actions == before
    assert table.redo()["can_redo"] is False and table.session.actions == after


def test_game_choices_name_the_player_counts():
    assert {g["name"]: g["players"] for g in game_choices()} == {"tethsi": [2], "bharg": [2, 3],
                                                                  "tusac": [2, 3, 4]}


def test_serve_is_a_command_and_binds_this_machine_only(tmp_path):
    args = build_parser().parse_args(["serve", "--port", "0", "--save-dir", str(tmp_path)])
    assert args.host == "127.0.0.1" and args.port == 0
    server = make_server(save_dir=tmp_path)
    try:
        assert server.server_address[0] == "127.0.0.1"
    finally:
        server.server_close()


@pytest.mark.parametrize("spec", ["exec:/bin/sh -c 'touch /tmp/pwned'", "os:system",
                                  "tests.setgames.bots.faulty_bots:FirstLegalBot", "some_plugin"])
def test_the_lobby_names_its_allow_list_only(tmp_path, spec):
    table = WebTable(tmp_path)
    for key in ("opponents", "hint_bot"):
        with pytest.raises(TableError, match="is not one of"):
            table.new_game({"game": "tethsi", key: spec})


def test_the_lobby_offers_the_levels_by_name_and_a_level_game_saves_and_loads(tmp_path):
    table = WebTable(tmp_path)
    lobby = table.view()
    levels = [b for b in lobby["bots"] if b.startswith("level:")]
    assert levels == [f"level:{n}" for n in range(1, 7)]
    assert lobby["bot_titles"]["level:1"] == "level:1 Beginner"
    view = table.new_game({"game": "bharg", "players": 2, "seed": 5, "opponents": "level:3",
                           "hint_bot": "level:2"})
    assert view["opponents"] == "level:3"
    while not any("(level:3 Intermediate)" in line for line in view["log"]):  # until a bot has moved
        view = table.move({"action": view["moves"][0]["action"], "confirm": True})
    table.save({"name": "lv"})
    again = WebTable(tmp_path).load({"name": "lv"})
    assert again["opponents"] == "level:3" and again["hint_bot"] == "level:2"


def test_tet_hsi_s_lobby_adds_the_inferring_search_and_the_others_refuse_it(tmp_path):
    pytest.importorskip("tethsi_env._search")
    from setgames.bots.search import SearchBot
    from setgames.play.session import make_named_bot

    table = WebTable(tmp_path)
    lobby = table.view()
    common = lobby["bots"]
    extra = [b for b in lobby["game_bots"]["tethsi"] if b not in common]
    assert lobby["game_bots"]["tethsi"][:len(common)] == common and len(extra) == 1
    bot = make_named_bot(extra[0], "tethsi", 1)
    assert isinstance(bot, SearchBot) and bot.infer == 1.0 and bot.iters == 2048  # the strength table's
    assert lobby["game_bots"]["bharg"] == lobby["game_bots"]["tusac"] == common
    assert lobby["bot_titles"][extra[0]] == extra[0]
    view = table.new_game({"game": "tethsi", "seed": 8, "opponents": extra[0], "hint_bot": extra[0]})
    while not any(f"({extra[0]})" in line for line in view["log"]):  # until the bot has moved
        view = table.move({"action": view["moves"][0]["action"], "confirm": True})
    table.save({"name": "inferring"})
    again = WebTable(tmp_path).load({"name": "inferring"})
    assert again["opponents"] == again["hint_bot"] == extra[0]
    for key in ("opponents", "hint_bot"):
        with pytest.raises(TableError, match="is not one of"):
            table.new_game({"game": "bharg", "players": 2, key: extra[0]})
