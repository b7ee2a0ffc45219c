"""Game records: round trip, exact replay, and every way a record can be wrong."""

from __future__ import annotations

import json

import pytest

from setgames.aec import make_env
from setgames.game import rng_from_seed
from setgames.records import (
    RecordError,
    load_records,
    make_record,
    record_from_env,
    records_writer,
    render_replay,
    replay,
    validate_record,
)
from tests.setgames.toy_game import ToyGame, make_toy_env_class

ToyEnv = make_toy_env_class()


def _played_record(seed: int) -> dict:
    env = make_env(ToyEnv)
    env.reset(seed=seed)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(obs["action_mask"].nonzero()[0][-1]))
    return record_from_env(env, seats=["p0", "p1"])


def test_record_round_trips_through_a_file_and_replays(tmp_path):
    recs = [_played_record(s) for s in range(5)]
    writer = records_writer(tmp_path / "r.jsonl")
    for r in recs:
        writer.write(r)
    writer.close()
    loaded = load_records(tmp_path / "r.jsonl")
    assert loaded == json.loads(json.dumps(recs))
    for r in loaded:
        result = replay(r, game_factory=ToyGame)
        assert list(result.returns) == r["returns"] and result.outcome == r["outcome"]
        # Independent check: the toy game's winner took the last token; the tokens taken sum to the pile.
        pile = ToyGame().new_state(rng_from_seed(r["seed"])).pile
        assert sum(a + 1 for a in r["actions"]) == pile
        assert r["outcome"]["winner"] == (len(r["actions"]) - 1) % 2


def test_record_of_env_has_the_required_fields():
    rec = _played_record(3)
    assert set(rec) == {"game", "version", "config", "seed", "actions", "seats", "outcome", "returns"}
    assert rec["game"] == "toy" and rec["config"] == {"max_pile": 9}


def test_render_replay_shows_every_step_and_the_result():
    rec = _played_record(1)
    blocks = list(render_replay(rec, game_factory=ToyGame))
    assert len(blocks) == len(rec["actions"]) + 2
    assert "step 1: seat 0 (p0) plays" in blocks[1]
    assert blocks[-1].startswith("pile 0") and "final: returns" in blocks[-1]


@pytest.mark.parametrize("mutate, match", [
    (lambda r: r.update(actions=r["actions"] + [0]), "game ended after"),
    (lambda r: r.update(actions=r["actions"][:-1]), "not over"),
    (lambda r: r.update(outcome={"winner": 9, "reason": "x"}), "replayed outcome"),
    (lambda r: r.update(returns=[5.0, -5.0]), "replayed returns"),
    (lambda r: r.update(version=1), "version 1"),
    (lambda r: r.update(config={"max_pile": 99}), "config does not fit"),
    (lambda r: r.update(config={"colour": 1}), "config does not fit"),
])
def test_wrong_records_are_refused(mutate, match):
    rec = _played_record(2)
    mutate(rec)
    with pytest.raises(RecordError, match=match):
        replay(rec, game_factory=ToyGame)


def test_an_illegal_action_in_a_record_is_refused():
    rec = _played_record(4)
    rec["actions"] = [0, 7]  # the toy game has actions 0 and 1 only
    with pytest.raises(RecordError, match="illegal"):
        replay(rec, game_factory=ToyGame)


@pytest.mark.parametrize("rec, match", [
    ([], "JSON object"),
    ({"game": "toy"}, "no 'version' field"),
    ({"game": "toy", "version": "0", "config": {}, "seed": 1, "actions": []}, "'version' must be int"),
    ({"game": "toy", "version": True, "config": {}, "seed": 1, "actions": []}, "'version' must be int"),
    ({"game": "toy", "version": 0, "config": {}, "seed": 1, "actions": [1.5]}, "integer action ids"),
    ({"game": "toy", "version": 0, "config": {}, "seed": 1, "actions": [], "seats": "ab"}, "'seats'"),
])
def test_validate_record_names_the_problem(rec, match):
    with pytest.raises(RecordError, match=match):
        validate_record(rec)


def test_load_records_reports_the_bad_line(tmp_path):
    good = json.dumps(make_record("toy", 0, {"max_pile": 9}, 1, [0]))
    path = tmp_path / "bad.jsonl"
    path.write_text(good + "\n\n{not json\n")
    with pytest.raises(RecordError, match=r"bad.jsonl:3: not valid JSON"):
        load_records(path)
    path.write_text("")
    with pytest.raises(RecordError, match="no records"):
        load_records(path)
    with pytest.raises(OSError):
        load_records(tmp_path / "missing.jsonl")


def test_unknown_game_in_a_record_is_a_value_error():
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        replay(make_record("chess", 0, {}, 1, []))
