"""The web table's server: its files only, one game per browser, 4xx for bad requests
with the game unchanged, saves only in its folder."""

from __future__ import annotations

import json

import pytest

from setgames.web.server import COOKIE
from tests.setgames.web.helpers import Client, running_server


@pytest.fixture
def server(tmp_path):
    with running_server(tmp_path / "saves") as s:
        yield s


def _fingerprint(view):
    return (view["ply"], view["svg"], [m["action"] for m in view["moves"]], view["log"])


def test_serves_its_page_and_nothing_else(server, tmp_path):
    c = Client(server)
    status, page = c.request("GET", "/")
    assert status == 200 and "/static/app.js" in page
    assert c.request("GET", "/static/app.js")[0] == 200
    assert c.request("GET", "/static/style.css")[0] == 200
    for path in ("/static/../server.py", "/static/server.py", "/etc/passwd", "/%2e%2e/setup.py", "/static/"):
        status, body = c.request("GET", path)
        assert status == 404 and "error" in body


def test_refuses_other_hosts_other_methods_and_non_json(server):
    c = Client(server)
    assert c.request("GET", "/", headers={"Host": "evil.example:80"})[0] == 403
    assert c.request("PUT", "/api/new", {})[0] == 405
    assert c.request("POST", "/api/new", raw=b"game=tethsi",
                     headers={"Content-Type": "application/x-www-form-urlencoded"})[0] == 415
    assert c.request("POST", "/api/new", raw=b"{oops")[0] == 400
    assert c.request("POST", "/api/new", raw=b"[1, 2]")[0] == 400
    assert c.request("POST", "/api/launch", {})[0] == 404
    assert c.request("POST", "/api/new", raw=b"x" * (70 * 1024))[0] == 413


def test_bad_and_illegal_requests_leave_the_game_unchanged(server):
    c = Client(server)
    status, view = c.post("new", {"game": "bharg", "players": 2, "seat": 0, "seed": 9, "opponents": "random"})
    assert status == 200 and view["your_turn"]
    before = _fingerprint(c.state())
    legal = {m["action"] for m in view["moves"]}
    illegal = next(a for a in range(47) if a not in legal)
    for op, body in [("move", {"action": illegal}), ("move", {"action": "1"}), ("move", {"action": True}),
                     ("move", {}), ("tool", {"name": "trash"}), ("redo", {}), ("load", {"name": "nope"}),
                     ("new", {"game": "chess"}), ("new", {"game": "bharg", "players": 9}),
                     ("new", {"game": "bharg", "opponents": "stockfish"}), ("save", {"name": "../x"})]:
        status, body = c.post(op, body)
        assert 400 <= status < 500 and body["error"], (op, body)
        assert _fingerprint(c.state()) == before, op


def test_each_browser_has_its_own_game(server):
    a, b = Client(server), Client(server)
    a.post("new", {"game": "tethsi", "seed": 1})
    b.post("new", {"game": "tusac", "players": 2, "seed": 2})
    assert a.cookie and b.cookie and a.cookie != b.cookie
    assert a.state()["game"] == "tethsi" and b.state()["game"] == "tusac"
    stranger = Client(server)
    assert stranger.state()["game"] is None


def test_save_and_load_stay_in_the_save_folder(server, tmp_path):
    c = Client(server)
    c.post("new", {"game": "tethsi", "seed": 4, "opponents": "random"})
    c.post("quick")
    ply = c.state()["ply"]
    for name in ("../escape", "/tmp/abs", ".hidden", "a/b", "", 7, "x" * 80):
        status, _ = c.post("save", {"name": name})
        assert status == 400
    assert not (tmp_path / "escape.json").exists()
    status, view = c.post("save", {"name": "mine"})
    assert status == 200 and view["saves"] == ["mine.json"]
    record = json.loads((server.tables.folder(c.cookie) / "mine.json").read_text())
    assert record["game"] == "tethsi" and len(record["actions"]) == ply
    c.post("new", {"game": "bharg", "seed": 1})
    status, view = c.post("load", {"name": "mine.json"})
    assert status == 200 and view["game"] == "tethsi" and view["ply"] == ply
    assert c.post("load", {"name": "../saves/mine.json"})[0] == 400


def test_a_discard_that_is_not_among_the_worst_asks_first(server):
    from setgames.game import rng_from_seed
    from tusac_env.rules import TuSacGame
    from tusac_env.table import trash_report

    c = Client(server)
    game = TuSacGame(num_players=2, first_player=0)
    # A deal where the first decision (seat 0 is dealt first) has a discard outside the worst cards.
    for seed in range(60):
        status, view = c.post("new", {"game": "tusac", "players": 2, "seat": 0, "seed": seed})
        worst = trash_report(game.new_state(rng_from_seed(seed)), 0).worst
        start = game.layout.start("discard")
        risky = [m["action"] for m in view["moves"]
                 if m["block"] == "discard" and m["action"] - start not in worst]
        if view["your_turn"] and worst and risky:
            break
    else:
        pytest.fail("no deal with a risky discard in 60 seeds")
    status, tool = c.post("tool", {"name": "trash"})
    assert [a - start for a in tool["tool"]["picks"][:len(worst)]] == list(worst)
    before = _fingerprint(c.state())
    status, body = c.post("move", {"action": risky[0]})
    assert status == 409 and body["warning"]["title"] == "Discard!!!"
    assert "not among your worst" in body["warning"]["message"]
    assert _fingerprint(c.state()) == before
    status, view = c.post("move", {"action": risky[0], "confirm": True})
    assert status == 200 and view["ply"] > before[0]
    assert view["log"][1] == f"player_0 (you): {game.action_to_str(risky[0])}"


def _socket(server, cookie, origin=None):
    from websockets.sync.client import connect

    port = server.server_address[1]
    headers = {"Cookie": f"{COOKIE}={cookie}"} if cookie else {}
    return connect(f"ws://127.0.0.1:{port}/api/ws", additional_headers=headers, origin=origin,
                   open_timeout=10, close_timeout=5)


def test_the_socket_pushes_the_bots_moves_and_the_watched_game(server, monkeypatch):
    from setgames.web import server as server_module

    monkeypatch.setattr(server_module, "WATCH_DELAY", 0.0)  # the page's pace is for people
    c = Client(server)
    view = c.post("new", {"game": "bharg", "players": 3, "seat": 0, "seed": 5, "opponents": "random",
                          "hint_bot": "random"})[1]
    with _socket(server, c.cookie, origin=f"http://127.0.0.1:{server.server_address[1]}") as ws:
        pushed = 0
        for _ in range(60):  # moves until the bots have replied twice in a row (a turn has several moves)
            ws.send(json.dumps({"op": "move", "action": view["moves"][0]["action"]}))
            answers = [json.loads(ws.recv(timeout=30))]
            while answers[-1].get("push"):
                answers.append(json.loads(ws.recv(timeout=30)))
            # Each position as it comes: the person's move, each bot's but the last, then the answer.
            plies = [a["view"]["ply"] for a in answers]
            assert plies == list(range(view["ply"] + 1, view["ply"] + 1 + len(plies)))
            view = answers[-1]["view"]
            assert view == {**c.state(), "policy": view["policy"]}
            pushed += len(answers) - 1
            if pushed >= 2 or view["over"]:
                break
        assert pushed >= 2
        ws.send(json.dumps({"op": "watch"}))
        last = None
        for _ in range(2000):
            last = json.loads(ws.recv(timeout=30))
            assert last["status"] == 200
            if last["view"]["over"]:
                break
        assert last["view"]["over"] and last["view"]["ply"] == c.state()["ply"]
        ws.send("{oops")
        assert json.loads(ws.recv(timeout=10))["status"] == 400
        ws.send(json.dumps({"op": "launch"}))
        assert json.loads(ws.recv(timeout=10))["status"] == 404


def test_the_socket_is_refused_to_other_sites(server):
    import websockets

    c = Client(server)
    c.post("new", {"game": "tethsi"})
    with pytest.raises(websockets.exceptions.WebSocketException), \
            _socket(server, c.cookie, origin="http://evil.example") as ws:
        ws.recv(timeout=10)
