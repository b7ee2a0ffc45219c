"""The game-session model on the toy game: undo/redo, bots, hint, save/load."""

from __future__ import annotations

import json

import pytest

from setgames.play.session import (
    HUMAN,
    LoadError,
    Session,
    SessionError,
    bot_seed,
    load_record,
)
from tests.setgames.play.helpers import (
    replay,
    snapshot,
    toy_factory,
    toy_game_factory,
    toy_session,
)
from tests.setgames.toy_game import ToyGame, make_toy_env_class


def _play_to_human(s: Session) -> None:
    while s.bot_to_act():
        s.bot_move()


def test_undo_goes_back_to_the_humans_previous_decision_point():
    s = toy_session(seed=3)
    start = s.game.to_json(s.state)
    s.play(s.legal()[0])
    _play_to_human(s)
    assert len(s.actions) == 2 and s.actors == [0, 1]  # my move and the bot's reply
    assert s.undo() == 2
    assert s.actions == [] and s.game.to_json(s.state) == start
    assert s.human_to_act()


def test_undo_any_number_of_steps_back_to_the_start_then_redo_all():
    s = toy_session(seed=11, opponents="random")
    history = []
    while not s.is_over():
        history.append(snapshot(s))
        s.play(s.legal()[-1])
        _play_to_human(s)
    final = snapshot(s)
    for expected in reversed(history):
        s.undo()
        assert snapshot(s) == expected
        assert s.game.to_json(replay(s.game, s.seed, s.actions)) == expected[1]
    with pytest.raises(SessionError, match="nothing to undo"):
        s.undo()
    while s.can_redo():
        s.redo()
    assert snapshot(s) == final
    with pytest.raises(SessionError, match="nothing to redo"):
        s.redo()


def test_undo_never_takes_back_opponent_moves_made_before_my_first_move():
    s = toy_session(seed=5, seat=1)
    _play_to_human(s)
    assert s.actions == [0] and not s.can_undo()
    with pytest.raises(SessionError):
        s.undo()
    s.play(s.legal()[0])
    _play_to_human(s)
    s.undo()
    assert s.actions == [0] and s.human_to_act()


def test_a_new_move_forgets_the_redo_stack():
    s = toy_session(seed=9)
    s.play(0)
    _play_to_human(s)
    s.undo()
    assert s.can_redo()
    s.play(1)
    assert not s.can_redo()


def test_bot_replies_depend_only_on_the_position_and_the_move_number():
    s = toy_session(seed=21, opponents="random")
    s.play(0)
    _play_to_human(s)
    first = list(s.actions)
    s.undo()
    s.play(0)
    _play_to_human(s)
    assert s.actions == first
    assert bot_seed(21, 1, 1) != bot_seed(21, 1, 2) != bot_seed(22, 1, 1)


def test_play_refuses_illegal_moves_and_moves_out_of_turn_without_change():
    s = toy_session(seed=5, seat=1)
    before = snapshot(s)
    with pytest.raises(SessionError, match="not your turn"):
        s.play(0)
    assert snapshot(s) == before
    _play_to_human(s)
    before = snapshot(s)
    with pytest.raises(SessionError):
        s.play(7)
    assert snapshot(s) == before


def test_parse_move_by_number_and_by_label():
    s = toy_session(seed=3)
    assert s.legal() == [0, 1]
    assert s.parse_move("1") == 0 and s.parse_move(" 2 ") == 1
    assert s.parse_move("take 2") == 1 and s.parse_move("TAKE 1") == 0
    for bad, msg in (("0", "out of range"), ("3", "out of range"), ("grab", "not a command or a move")):
        with pytest.raises(SessionError, match=msg):
            s.parse_move(bad)


def test_hint_names_a_legal_move_with_its_reason_and_changes_nothing():
    s = toy_session(seed=3)
    before = snapshot(s)
    h = s.hint()
    assert h.action in s.legal() and h.reason == "one token at a time" and h.bot == "takeone"
    assert h.label == s.game.action_to_str(h.action)
    assert snapshot(s) == before


def test_quick_plays_the_hint():
    s = toy_session(seed=3)
    expected = s.hint().action
    assert s.quick() == expected and s.actions == [expected]


def test_watch_moves_finish_the_game_with_legal_moves():
    s = toy_session(seed=8, opponents="random", hint="random")
    while not s.is_over():
        s.auto_move()
    assert s.game.to_json(replay(s.game, s.seed, s.actions)) == s.game.to_json(s.state)
    with pytest.raises(SessionError):
        s.auto_move()


def test_record_has_the_env_record_keys_and_values_plus_seats():
    s = toy_session(seed=13, opponents="random")
    s.play(1)
    _play_to_human(s)
    env = make_toy_env_class()()
    env.reset(seed=13)
    for a in s.actions:
        env.step(a)
    rec = s.record()
    assert {k: rec[k] for k in env.record()} == env.record()
    assert rec["seats"] == [HUMAN, "random"] and rec["human_seat"] == 0 and rec["opponents"] == "random"


def test_save_then_load_continues_to_the_same_end(tmp_path):
    path = tmp_path / "g.json"

    def finish(sess: Session) -> tuple[list[int], dict]:
        while not sess.is_over():
            sess.play(sess.legal()[0])
            _play_to_human(sess)
        return snapshot(sess)

    s = toy_session(seed=17, opponents="random")
    s.play(0)
    _play_to_human(s)
    s.save(path)
    assert json.loads(path.read_text())["actions"] == s.actions
    end = finish(s)
    loaded = Session.from_record(load_record(path), toy_game_factory, bot_factory=toy_factory)
    assert loaded.human_seat == 0 and loaded.opponents == "random" and loaded.seed == 17
    assert finish(loaded) == end


def test_save_to_an_unwritable_path_raises_one_line_and_changes_nothing(tmp_path):
    s = toy_session()
    before = snapshot(s)
    with pytest.raises(SessionError, match="cannot save") as e:
        s.save(tmp_path / "missing-dir" / "g.json")
    assert "\n" not in str(e.value) and snapshot(s) == before


def _good_record() -> dict:
    s = toy_session(seed=4)
    s.play(0)
    return s.record()


@pytest.mark.parametrize("mutate, message", [
    (lambda r: r.pop("seed"), "no 'seed' field"),
    (lambda r: r.update(game="chess"), "not 'toy'"),
    (lambda r: r.update(version=99), "version 99"),
    (lambda r: r.update(config={"max_pile": 99}), "not valid"),
    (lambda r: r.update(config=[1]), "'config' must be dict"),
    (lambda r: r.update(seed="x"), "'seed' must be int"),
    (lambda r: r.update(actions=[0, "take"]), "list of integer action ids"),
    (lambda r: r.update(actions=[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), "does not replay"),
    (lambda r: r.update(actions=[5]), "does not replay"),
    (lambda r: r.update(human_seat=4), "cannot be played"),
])
def test_a_bad_record_is_refused_with_one_line(mutate, message):
    rec = _good_record()
    mutate(rec)
    with pytest.raises(LoadError, match=message) as e:
        Session.from_record(rec, toy_game_factory, bot_factory=toy_factory, expect_game="toy")
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("content, message", [
    (None, "cannot read"),
    (b"{not json", "not JSON"),
    (b"[1, 2]", "expected a JSON object"),
    (b"\xff\xfe\x00garbage", "not a text file"),
])
def test_a_missing_or_corrupt_file_is_refused_with_one_line(tmp_path, content, message):
    path = tmp_path / "save.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(LoadError, match=message) as e:
        load_record(path)
    assert "\n" not in str(e.value)


def test_a_json_lines_file_loads_its_first_record(tmp_path):
    rec = _good_record()
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(rec) + "\n" + json.dumps(rec) + "\n")
    assert load_record(path) == rec


def test_bad_seat_and_seed_raise_at_construction():
    with pytest.raises(ValueError, match="seat 2"):
        Session(ToyGame(), "toy", 1, 2, "takeone", bot_factory=toy_factory)
    with pytest.raises(ValueError, match="seed -1"):
        Session(ToyGame(), "toy", -1, 0, "takeone", bot_factory=toy_factory)
    with pytest.raises(ValueError, match="unknown bot"):
        Session(ToyGame(), "toy", 1, 0, "nobody", bot_factory=toy_factory)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"seed": 1.5}, "seed 1.5 must be in"), ({"seed": "3"}, "seed '3' must be in"),
    ({"seed": -1}, "seed -1 must be in"), ({"human_seat": True}, "seat True is not a seat"),
    ({"human_seat": 0.0}, "seat 0.0 is not a seat"), ({"opponents": ["random"]}, "opponents"),
    ({"hint_bot": 3}, "hint_bot 3 is not a bot name"),
])
def test_session_arguments_of_the_wrong_type_are_refused(kwargs, message):
    from setgames.registry import make_game

    args = {"seed": 1, "human_seat": 0, "opponents": "random", "hint_bot": "random", **kwargs}
    with pytest.raises(ValueError, match=message):
        Session(make_game("tethsi"), "tethsi", args.pop("seed"), **args)
