"""The state fuzzer (:mod:`tests.setgames.fuzz_states`): every mutated state of every
game and config ends in a one-line ValueError that changes nothing, or in a valid
game, on the engine and on the rules layer, under glibc's malloc checker, each batch
in a child process (a crash is a signal seen by the parent, named to its case)."""

from __future__ import annotations

import json

import pytest

from tests.setgames.fuzz_states import CONFIGS, CRASH_VAR, run_in_child

CASES = [(game, cfg) for game, cfgs in CONFIGS.items() for cfg in cfgs]
DEFAULT_CASES = 500  # per config: 8 configs, 4000 cases in the default run
SLOW_BATCHES, SLOW_BATCH = 10, 1000  # per config in the slow run: 80,000 cases


def _ids(case):
    game, cfg = case
    return game + ("-" + json.dumps(cfg, sort_keys=True) if cfg else "")


def _check(result: dict, count: int) -> None:
    assert result["failures"] == [], result["failures"][:5]
    assert result["refused"] + result["accepted"] == count
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
