"""The state fuzzer (:mod:`tests.setgames.fuzz_states`): every mutated state of every
game and config ends in a one-line ValueError that changes nothing, or in a valid
game, on the engine and on the rules layer, under glibc's malloc checker, each batch
in a child process (a crash is a signal seen by the parent, named to its case)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.setgames.fuzz_states import CARD_EDITS, CONFIGS, CRASH_VAR, _base_states, run_in_child

CASES = [(game, cfg) for game, cfgs in CONFIGS.items() for cfg in cfgs]
DEFAULT_CASES = 500  # per config: 8 configs, 4000 cases in the default run
SLOW_BATCHES, SLOW_BATCH = 10, 1000  # per config in the slow run: 80,000 cases


def _ids(case):
    game, cfg = case
    return game + ("-" + json.dumps(cfg, sort_keys=True) if cfg else "")


def _check(result: dict, count: int) -> None:
    assert result["failures"] == [], result["failures"][:5]
    assert result["refused"] + result["accepted"] == count
    # Card cases (every one refused, or the batch fails) run for the games that have them.
    assert (result["card_cases"] > 0) == (result["game"] in CARD_EDITS), result
    # The fuzzer reaches both ends: states it breaks for real and states still valid.
    assert result["refused"] > 0 and result["accepted"] > 0, result


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_mutated_states_are_refused_cleanly_or_play_on(case):
    game, cfg = case
    _check(run_in_child(game, cfg, 0, DEFAULT_CASES), DEFAULT_CASES)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_many_more_mutated_states(case):
    game, cfg = case
    for b in range(SLOW_BATCHES):
        start = DEFAULT_CASES + b * SLOW_BATCH
        _check(run_in_child(game, cfg, start, SLOW_BATCH), SLOW_BATCH)


def test_a_child_that_dies_is_seen_and_its_case_named():
    # The harness itself: a child killed by a signal at case 7 is a failure naming case 7.
    result = run_in_child("tethsi", {}, 0, 20, extra_env={CRASH_VAR: "7"})
    assert len(result["failures"]) == 1
    failure = result["failures"][0]
    assert failure["case"] == "case 7" and "child died (exit -11" in failure["error"]


def _tusac_held(data: dict) -> list[int]:
    """Copies of each Tu Sac type over every zone of JSON state ``data``."""
    held = [sum(row[t] for row in data["private"]) + data["dead"][t] + data["draw"].count(t)
            for t in range(28)]
    for block in data["public"]:
        for _, cards in block:
            for t in cards:
                held[t] += 1
    if data["active"] >= 0:
        held[data["active"]] += 1
    return held


def test_a_tusac_card_edit_drops_a_card_or_adds_a_fifth_and_nothing_else():
    from tusac_env.rules import TuSacGame

    game = TuSacGame(num_players=3)
    rng = np.random.default_rng(0)
    kinds = set()
    for i, base in enumerate(_base_states(game, np.random.default_rng(3)) * 20):
        data = game.to_json(base)
        edit = CARD_EDITS["tusac"](data, rng)
        assert data == game.to_json(base)  # the valid state's data is left alone
        delta = [h - 4 for h in _tusac_held(edit)]
        changed = {k for k in data if edit[k] != data[k]}
        assert changed <= {"private", "public", "dead", "draw", "active"}, (i, changed)
        if sum(delta) > 0:  # one fifth copy of one type
            assert sorted(delta)[-1] == 1 and sum(map(abs, delta)) == 1, (i, delta)
        else:  # one card, or the cards of one public set (at most four)
            assert max(delta) == 0 and 1 <= -sum(delta) <= 4, (i, delta)
        kinds.add((sum(delta) > 0, tuple(sorted(changed))))
    # Both directions reach every zone: private/dead counts, public, draw, active.
    assert {k for up, k in kinds if up} >= {("private",), ("dead",), ("public",), ("draw",)}
    assert {k for up, k in kinds if not up} >= {("private",), ("dead",), ("public",), ("draw",),
                                                ("active",)}
