"""The SVG toolkit: well-formed markup, escaping, clickable moves, pictures and frames."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from setgames.draw import Picture, draw_state, rasterize
from setgames.draw.decks import card_back, chess_card, decktet_card
from setgames.draw.svg import Canvas, esc
from setgames.registry import make_game

NS = "{http://www.w3.org/2000/svg}"


def test_text_is_escaped_and_the_document_parses():
    c = Canvas(100, 50)
    c.text(1, 10, '<script>alert("x")</script> & co')
    root = ET.fromstring(c.to_svg())
    texts = [t.text for t in root.iter(f"{NS}text")]
    assert texts == ['<script>alert("x")</script> & co']
    assert root.get("viewBox") == "0 0 100 50"
    assert esc("a<b") == "a&lt;b"


def test_move_groups_carry_their_action_and_cards_their_id():
    c = Canvas(300, 120)
    decktet_card(c, 0, 0, 21, action=7, label="play Chance Meeting")
    chess_card(c, 80, 0, 25)
    card_back(c, 150, 0, 40, 80, count=9)
    root = ET.fromstring(c.to_svg())
    cards = [(g.get("data-card"), g.get("class")) for g in root.iter(f"{NS}g") if g.get("class") == "card"]
    assert cards == [("21", "card"), ("25", "card")]
    moves = [g for g in root.iter(f"{NS}g") if g.get("class") == "move"]
    assert [m.get("data-action") for m in moves] == ["7"]
    assert moves[0].find(f"{NS}title").text == "play Chance Meeting"
    assert sum(1 for g in root.iter(f"{NS}g") if g.get("class") == "back") == 1


def test_every_decktet_card_and_chess_type_draws():
    c = Canvas(100, 100)
    for card in range(45):
        decktet_card(c, 0, 0, card)
    for t in range(28):
        chess_card(c, 0, 0, t, count=4)
    root = ET.fromstring(c.to_svg())
    ids = [g.get("data-card") for g in root.iter(f"{NS}g") if g.get("class") == "card"]
    assert ids == [str(i) for i in range(45)] + [str(t) for t in range(28)]


def test_picture_shows_itself_and_saves(tmp_path):
    svg = Canvas(10, 10).to_svg()
    p = Picture(svg)
    assert p._repr_svg_() == svg
    p.save_svg(tmp_path / "a.svg")
    assert (tmp_path / "a.svg").read_text() == svg


def test_draw_state_refuses_a_bad_seat():
    game = make_game("tethsi")
    state = game.new_state(np.random.default_rng(0))
    with pytest.raises(ValueError, match="seat 2"):
        draw_state(game, state, seat=2)


def test_rasterize_gives_the_drawn_colours_at_the_drawn_places():
    pytest.importorskip("resvg_py")
    pytest.importorskip("PIL")
    c = Canvas(40, 20, background="")
    c.rect(0, 0, 20, 20, fill="#ff0000")
    c.rect(20, 0, 20, 20, fill="#0000ff")
    frame = rasterize(c.to_svg())
    assert frame.shape == (20, 40, 3) and frame.dtype == np.uint8
    assert frame[10, 5].tolist() == [255, 0, 0] and frame[10, 35].tolist() == [0, 0, 255]
    assert rasterize(c.to_svg(), scale=2).shape == (40, 80, 3)
