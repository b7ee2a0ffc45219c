"""A record as pictures: one frame per move with that move outlined, and the HTML page."""

from __future__ import annotations

import json
import random
import re

import pytest

from setgames.cli import main
from setgames.draw.replay import replay_frames, replay_html
from setgames.game import rng_from_seed
from setgames.records import make_record
from setgames.registry import make_game
from tests.setgames.draw.helpers import move_ids


def _record(name: str, seed: int, **config) -> dict:
    game = make_game(name, **config)
    state = game.new_state(rng_from_seed(seed))
    rng = random.Random(seed)
    actions = []
    while not game.is_over(state):
        a = rng.choice(game.legal_actions(state))
        actions.append(a)
        game.apply(state, a)
    return make_record(name, game.version, game.config_dict(), seed, actions)


@pytest.mark.parametrize(("name", "config"), [("tethsi", {}), ("bharg", {"num_players": 3}),
                                              ("tusac", {"num_players": 3})])
def test_one_frame_a_move_with_only_that_move_outlined(name, config):
    rec = _record(name, 4, **config)
    game = make_game(name, **config)
    frames = replay_frames(rec)
    assert len(frames) == len(rec["actions"]) + 1
    for (caption, svg), a in zip(frames, rec["actions"], strict=False):
        assert caption.endswith(f"plays {game.action_to_str(a)}")
        assert set(move_ids(svg)) <= {a}
    assert frames[-1][0].startswith("the end:") and move_ids(frames[-1][1]) == []


def test_the_page_holds_every_frame_and_nothing_from_elsewhere():
    rec = _record("tethsi", 8)
    page = replay_html(rec, seat=1)
    data = re.search(r"const FRAMES = (.*);\n", page).group(1)
    assert [tuple(f) for f in json.loads(data)] == replay_frames(rec, seat=1)
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "").replace(
        "xmlns=\\\"http://www.w3.org/2000/svg\\\"", "")
    assert "</script>" not in data


def test_cli_replay_writes_the_page(tmp_path, capsys):
    rec = _record("bharg", 3, num_players=2)
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    out = tmp_path / "g.html"
    assert main(["replay", str(path), "--html", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    assert out.read_text().count("move ") >= len(rec["actions"])


def test_a_hostile_seat_name_cannot_break_the_page_or_the_terminal(tmp_path, capsys):
    html5lib = pytest.importorskip("html5lib")
    rec = _record("tethsi", 8)
    rec["seats"] = ["<!--<script>", "</script><b>\x1b[2J\u202e"]
    page = replay_html(rec)
    tree = html5lib.parse(page, namespaceHTMLElements=False)
    scripts = tree.findall(".//script")
    # One script, ending where the page's ends, and every element after it still an element.
    assert len(scripts) == 1 and scripts[0].text.rstrip().endswith("show(0);")
    assert tree.find(".//div[@id='frame']") is not None and tree.find(".//b") is None
    frames = json.loads(re.search(r"const FRAMES = (.*);\n", scripts[0].text).group(1))
    assert "(<!--<script>)" in frames[0][0] and "\x1b" not in json.dumps(frames)
    assert "<title>Tet Hsi: " in page and "seed" not in page.split("</title>")[0]
    # The caption counts moves as the counter does: "move 1 of N" beside "move 1 / N".
    assert frames[0][0].startswith(f"move 1 of {len(rec['actions'])}:")
    assert '"move " + (at + 1) + " / " + (FRAMES.length - 1)' in page
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out and "?[2J" in out
