"""The web table as an attacker meets it: nothing hidden leaks to a seat, no page can
create or wipe a table, saves belong to their browser and load only the lobby's bots,
every malformed request gets a 4xx JSON answer, half-sent requests time out."""

from __future__ import annotations

import copy
import http.client
import json
import socket
import time

import numpy as np
import pytest

from setgames.web import server as server_module
from setgames.web.server import Tables
from setgames.web.table import TableError, WebTable
from tests.setgames.web.helpers import Client, running_server


@pytest.fixture
def server(tmp_path):
    with running_server(tmp_path / "saves") as s:
        yield s


# ---------------------------------------------------------------------------- leaks
def _twin(table: WebTable, rng: np.random.Generator | None = None) -> WebTable:
    """A copy of the table to play on; with ``rng``, every card its person cannot see is
    dealt again and the seed is another."""
    twin = WebTable(table.save_dir)
    s = copy.copy(table.session)
    s.actions, s.actors, s._redo = list(s.actions), list(s.actors), [list(g) for g in s._redo]
    s.draws = list(s.draws)
    s._states = list(s._states)
    if rng is not None:
        s._states[-1] = s.game.determinize(s.state, s.human_seat, rng)
        s.seed = int(rng.integers(2**62))
        if table.session.hint_key == table.session.seed:  # hints keyed by the seed: that is the seed too
            s.hint_key = s.seed
    twin.session, twin.log = s, list(table.log)
    return twin


def _answers(table: WebTable) -> list:
    """Every answer the table gives the person now without playing: the view, the hint, the
    game's tools, and each legal move's warning or refusal (a move that is played is answered
    by the next position, which may show a card just drawn: it is only marked as played; it
    is played on a copy, so ``table`` itself is unchanged)."""
    out: list = [table.view()]
    for request in (table.hint, *[lambda c=c: table.tool({"name": c.name}) for c in table.tools.commands]):
        try:
            out.append(request())
        except TableError as e:
            out.append((e.status, str(e), e.extra))
    for move in [m["action"] for m in table.view()["moves"]]:
        try:
            _twin(table).move({"action": move})
        except TableError as e:
            out.append((e.status, str(e), e.extra))
        else:
            out.append("played")
    return out


@pytest.mark.parametrize(("name", "players", "hint_bot"), [("tethsi", 2, "ismcts:iterations=50"),
                                                          ("bharg", 3, "greedy"), ("tusac", 3, "greedy")])
def test_every_answer_is_the_same_for_any_deal_of_the_cards_the_seat_cannot_see(tmp_path, name, players,
                                                                               hint_bot):
    rng = np.random.default_rng(29)
    positions = 0
    for seed in (3, 11):
        table = WebTable(tmp_path)
        view = table.new_game({"game": name, "players": players, "seat": seed % players, "seed": seed,
                               "opponents": "random", "hint_bot": hint_bot})
        while not view["over"] and positions < 12 * (1 + (seed == 11)):
            assert view["seed"] is None and str(seed) not in json.dumps(view["log"])
            mine = _answers(table)
            for _ in range(2):
                assert _answers(_twin(table, rng)) == mine
            positions += 1
            moves = view["moves"]
            view = table.move({"action": moves[int(rng.integers(len(moves)))]["action"], "confirm": True})
    assert positions >= 16


def test_the_seed_is_sent_only_once_the_game_is_over(server):
    c = Client(server)
    seed = 8_765_432_109_876
    status, view = c.post("new", {"game": "bharg", "players": 2, "seed": seed, "opponents": "random",
                                  "hint_bot": "random"})
    bodies = [json.dumps(view)]
    while not view["over"]:
        bodies.append(json.dumps(c.post("hint")[1]))
        status, view = c.post("quick")
        assert status == 200
        bodies.append(json.dumps(view) if not view["over"] else "")
    assert all(str(seed) not in b for b in bodies)
    assert view["seed"] == seed and c.state()["seed"] == seed


# ---------------------------------------------------------------------------- making tables
def test_no_table_is_made_by_a_get_or_by_another_site(server):
    stranger = Client(server)
    for _ in range(100):  # an <img> loop: cookieless GETs
        assert stranger.request("GET", "/api/state")[0] == 200
        assert stranger.request("GET", "/api/new")[0] == 405
    assert len(server.tables) == 0 and stranger.cookie is None
    new = {"game": "tethsi"}
    for headers in ({"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"},
                    {"Origin": "null"}, {"Sec-Fetch-Site": "same-site"}):
        status, body = stranger.request("POST", "/api/new", new, headers=headers)
        assert status == 403 and body["error"], headers
    status, _ = stranger.request("OPTIONS", "/api/new", headers={"Origin": "http://evil.example",
                                                                 "Access-Control-Request-Method": "POST"})
    assert status in (403, 405)
    assert len(server.tables) == 0
    port = server.server_address[1]
    status, view = stranger.request("POST", "/api/new", new, headers={"Origin": f"http://127.0.0.1:{port}",
                                                                      "Sec-Fetch-Site": "same-origin"})
    assert status == 200 and view["game"] == "tethsi" and len(server.tables) == 1
    assert "idle" in view["policy"]


def test_a_game_in_progress_is_not_pushed_out_by_others(tmp_path):
    now = [0.0]
    tables = Tables(tmp_path, max_total=4, max_per_client=3, idle_limit=3600, evict_idle=600,
                    clock=lambda: now[0])
    mine = tables.create("me" * 12, "10.0.0.1")
    for k in range(3):
        tables.create(f"attacker{k:02d}" * 3, "10.0.0.66")
    with pytest.raises(TableError) as e:  # this address has its share
        tables.create("attacker99" * 3, "10.0.0.66")
    assert e.value.status == 429
    with pytest.raises(TableError) as e:  # full, and every table was used within evict_idle
        tables.create("other" * 6, "10.0.0.7")
    assert e.value.status == 503 and tables.get("me" * 12) is mine
    now[0] = 500.0
    tables.get("me" * 12)  # the player keeps playing; the others go idle
    now[0] = 700.0
    tables.create("other" * 6, "10.0.0.7")  # the longest idle made room, not the player's
    assert tables.get("me" * 12) is mine and len(tables) == 4
    now[0] = 700.0 + 3601
    assert tables.get("me" * 12) is None and len(tables) == 0  # idle past the limit: cleared


def test_the_server_refuses_a_table_past_its_bounds(tmp_path):
    with running_server(tmp_path / "saves", max_tables=3, max_tables_per_client=2) as s:
        first = Client(s)
        assert first.post("new", {"game": "tethsi"})[0] == 200
        assert Client(s).post("new", {"game": "tethsi"})[0] == 200
        status, body = Client(s).post("new", {"game": "tethsi"})
        assert status == 429 and "tables" in body["error"]
        assert first.post("quick")[0] == 200 and len(s.tables) == 2


# ---------------------------------------------------------------------------- saves
def test_saves_belong_to_the_browser_that_made_them(server):
    a, b = Client(server), Client(server)
    a.post("new", {"game": "tethsi", "seed": 4, "opponents": "random"})
    assert a.post("save", {"name": "mine"})[1]["saves"] == ["mine.json"]
    b.post("new", {"game": "bharg", "seed": 1})
    assert b.state()["saves"] == []
    assert b.post("load", {"name": "mine.json"})[0] == 404 and b.state()["game"] == "bharg"
    assert b.post("save", {"name": "mine"})[0] == 200  # b's own file: a's is untouched
    assert a.post("load", {"name": "mine"})[1]["game"] == "tethsi"
    assert Client(server).state()["saves"] == []  # a stranger sees none


@pytest.mark.parametrize("change", [
    {"opponents": "ismcts:iterations=100000"}, {"hint_bot": "ismcts:iterations=100000"},
    {"opponents": "ppo:weights=/etc/shadow"}, {"hint_bot": "ppo:weights=/dev/zero"},
    {"seats": ["human", "ppo:weights=/etc/shadow"], "opponents": None},
    {"opponents": "exec:/bin/sh -c 'touch /tmp/pwned'"}, {"hint_bot": "os:system"},
    {"opponents": "tests.setgames.bots.faulty_bots:FirstLegalBot"},
    {"config": {"num_players": 2, "first_player": 0, "max_turns": 10**9}},
    {"game": "chess"}])
def test_a_save_loads_only_the_lobby_s_bots_and_options(server, change):
    c = Client(server)
    c.post("new", {"game": "tethsi", "seed": 4, "opponents": "random"})
    c.post("quick")
    c.post("save", {"name": "mine"})
    path = server.tables.folder(c.cookie) / "mine.json"
    record = json.loads(path.read_text())
    record.update(change)
    record = {k: v for k, v in record.items() if v is not None}
    path.write_text(json.dumps(record))
    before = c.state()
    t0 = time.monotonic()
    status, body = c.post("load", {"name": "mine"})
    assert status == 400 and body["error"] and time.monotonic() - t0 < 5
    assert c.state()["ply"] == before["ply"] and c.state()["game"] == "tethsi"


# ---------------------------------------------------------------------------- malformed
@pytest.mark.parametrize("raw", [
    b'{"action": ' + b"9" * 5000 + b"}", b"[" * 100_000, b'{"a":' * 50_000, b"\xff\xfe{}",
    b'{"game": "bharg", "seed": ' + b"9" * 4000 + b"}", b'{"game": "bharg", "players": 1e308}',
    b'{"game": "bharg", "players": ' + b"9" * 300 + b"}", b'{"game": "bharg", "seat": -1}',
    b'{"game": {"x": [1]}}', b"NaN", b'"text"', b"{}" * 10])
def test_every_malformed_body_gets_a_4xx_json_answer(server, raw):
    c = Client(server)
    c.post("new", {"game": "bharg", "players": 2, "seed": 1})
    before = c.state()
    for op in ("new", "move"):
        status, body = c.request("POST", f"/api/{op}", raw=raw)
        assert 400 <= status < 500 and isinstance(body, dict) and body["error"], (op, status)
        assert len(body["error"]) < 400
    assert c.state()["ply"] == before["ply"] and c.state()["game"] == "bharg"


def test_half_sent_requests_and_idle_connections_are_closed(tmp_path, monkeypatch):
    monkeypatch.setattr(server_module, "REQUEST_TIMEOUT", 1)
    with running_server(tmp_path / "saves") as s:
        port = s.server_address[1]
        idle = socket.create_connection(("127.0.0.1", port), timeout=10)
        half = socket.create_connection(("127.0.0.1", port), timeout=10)
        half.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port)  # no blank line
        t0 = time.monotonic()
        assert idle.recv(100) == b"" and half.recv(100) == b""
        assert time.monotonic() - t0 < 5
        # A body that never comes: 408, in JSON.
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.putrequest("POST", "/api/new")
        conn.putheader("Content-Type", "application/json")
        conn.putheader("Content-Length", "50")
        conn.endheaders(b'{"game": ')
        res = conn.getresponse()
        assert res.status == 408 and "error" in json.loads(res.read())
        idle.close(), half.close(), conn.close()
        assert Client(s).state()["game"] is None  # and the server still answers
