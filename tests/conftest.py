"""Which tests the default run leaves to CI: the long fuzz, statistics, replay and training
runs, marked ``slow`` here by node id (the whole test, or some of its parameters), so that
``python -m pytest`` ends in a few minutes on two cores and ``python -m pytest -m slow``
(a step of ``.ci/run``; ``.ci/train-smoke`` for the training runs) runs the rest.

Each entry is a node-id prefix under ``tests/``; a test whose id starts with it is marked.
A prefix that marks nothing while its file was collected is reported at the end of the run
(a renamed test would otherwise come back into the default run unnoticed).
"""

from __future__ import annotations

import pytest

SLOW = (
    # Replays of whole batches in raw_env on two threads, and on every configuration.
    "tests/tusac/test_batch.py::test_two_threads_play_the_games_of_raw_env",
    "tests/tethsi/test_batch.py::test_two_threads_play_the_games_of_raw_env",
    "tests/bharg/test_batch.py::test_two_threads_play_the_games_of_raw_env",
    # The engines against the rules layer on every configuration (one configuration stays in the default run).
    "tests/tusac/test_engine.py::test_engine_matches_rules_on_every_config",
    "tests/bharg/test_engine.py::test_engine_matches_rules_on_every_config",
    # The command line's fuzz: thousands of mutated records and saves in capped child processes.
    "tests/setgames/test_cli_fuzz.py::test_fuzzed_records_and_saves_work_or_end_in_one_line",
    # A fork in every pool state, one child process per state and game.
    "tests/setgames/batch/test_guard.py::test_fork_in_every_pool_state_leaves_a_child_that_steps_and_exits",
    # Benchmarks timed for seconds.
    "tests/setgames/bench/test_batch_bench.py::test_batch_cases_play_games_and_pair_their_ratios",
)

_used: set[str] = set()
_files: set[str] = set()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark the :data:`SLOW` tests before ``-m`` selects (this hook runs first)."""
    for item in items:
        _files.add(item.nodeid.split("::", 1)[0])
        for prefix in SLOW:
            if item.nodeid.startswith(prefix):
                item.add_marker(pytest.mark.slow)
                _used.add(prefix)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Name the :data:`SLOW` entries that marked nothing although their file was collected."""
    stale = [p for p in SLOW if p not in _used and p.split("::", 1)[0] in _files]
    if stale:
        terminalreporter.section("slow markers that match no test")
        for prefix in stale:
            terminalreporter.line(prefix)
