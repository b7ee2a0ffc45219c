"""Which tests the default run leaves to CI: the long replay, fuzz, statistics and training
runs, marked ``long`` here by node id (the whole test, or some of its parameters), so that
``python -m pytest -n auto`` ends in about three minutes on two cores; ``python -m pytest -m long``
(a step of ``.ci/run``; ``.ci/train-smoke`` for the training runs) runs them. (The ``slow``
marker, set in the test files, holds the much longer runs: see the testing guide.)

Each entry is a node-id prefix under ``tests/``; a test whose id starts with it is marked.
A prefix that marks nothing while its file was collected whole is named at the end of the run
and fails it (a renamed test would otherwise come back into the default run unnoticed).
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

LONG = (
    # Replays of whole batches in raw_env on two threads.
    "tests/tusac/test_batch.py::test_two_threads_play_the_games_of_raw_env",
    "tests/tethsi/test_batch.py::test_two_threads_play_the_games_of_raw_env",
    "tests/bharg/test_batch.py::test_two_threads_play_the_games_of_raw_env",
    # Batches replayed step by step in raw_env: one or two configurations of each stay in the
    # default run, the others are here (in every observation mode: an id ends "-cards]", ...).
    "tests/tethsi/test_batch.py::test_self_play_batches_replay_in_raw_env_step_by_step[0-",
    "tests/tethsi/test_batch.py::test_self_play_batches_replay_in_raw_env_step_by_step[1-",
    "tests/tethsi/test_batch.py::test_learner_vs_opponents_replays_with_the_python_bots[greedy-0-",
    "tests/tethsi/test_batch.py::test_learner_vs_opponents_replays_with_the_python_bots[greedy-random-",
    "tests/tethsi/test_batch.py::test_learner_vs_opponents_replays_with_the_python_bots[random-1-",
    "tests/tethsi/test_batch.py::test_learner_vs_opponents_replays_with_the_python_bots[random-random-",
    "tests/bharg/test_batch.py::test_learner_vs_opponents_replays_with_the_python_bots[random-random-config2]",
    "tests/bharg/test_batch.py::test_learner_vs_opponents_replays_with_the_python_bots[random-1-config3]",
    "tests/bharg/test_batch.py::test_learner_vs_opponents_replays_with_the_python_bots[greedy-random-config4]",
    "tests/tusac/test_batch.py::test_learner_vs_opponents_replays_with_the_python_bots[random-1-config2-",
    "tests/tusac/test_batch.py::test_learner_vs_opponents_replays_with_the_python_bots[random-random-config3-",
    "tests/tusac/test_batch.py::test_learner_vs_opponents_replays_with_the_python_bots[greedy-random-config4-",
    # The compiled greedy bots against the Python ones in every position of many games.
    "tests/tethsi/test_greedy.py::test_compiled_greedy_plays_the_python_bots_move_in_every_position[0]",
    "tests/tethsi/test_greedy.py::test_compiled_greedy_plays_the_python_bots_move_in_every_position[1]",
    "tests/bharg/test_greedy_c.py::test_compiled_greedy_makes_the_python_bots_move_everywhere[config3]",
    "tests/bharg/test_greedy_c.py::test_compiled_greedy_makes_the_python_bots_move_everywhere[config4]",
    # Reward sums over many match-play games (two pairings of each stay in the default run).
    "tests/setgames/wrappers/test_single_agent_rewards.py::test_match_play_rewards_sum_to_the_learners_returns[2-greedy-random]",
    "tests/setgames/wrappers/test_single_agent_rewards.py::test_match_play_rewards_sum_to_the_learners_returns[2-random-rotate]",
    "tests/setgames/wrappers/test_single_agent_rewards.py::test_match_play_rewards_sum_to_the_learners_returns[2-random-random]",
    "tests/setgames/wrappers/test_single_agent_rewards.py::test_match_play_rewards_sum_to_the_learners_returns[3-greedy-rotate]",
    "tests/setgames/wrappers/test_single_agent_rewards.py::test_match_play_rewards_sum_to_the_learners_returns[3-greedy-random]",
    "tests/setgames/wrappers/test_single_agent_rewards.py::test_match_play_rewards_sum_to_the_learners_returns[3-random-rotate]",
    "tests/setgames/batch/test_view_rewards.py::test_views_pay_every_reward_of_the_learners_seat[2-random-rotate]",
    "tests/setgames/batch/test_view_rewards.py::test_views_pay_every_reward_of_the_learners_seat[2-random-random]",
    # The engines against the rules layer on every configuration, every rule path reached
    # (Tet Hsi's stays in the default run), and the single-agent view on the engine against the
    # rules layer at every step (Tet Hsi's and Tu Sac's stay).
    "tests/bharg/test_engine.py::test_engine_matches_rules_on_every_config",
    "tests/tusac/test_engine.py::test_engine_matches_rules_on_every_config",
    "tests/setgames/wrappers/test_single_agent_engine.py::test_engine_path_shows_what_the_rules_layer_shows_at_every_step[bharg-2p-policy]",
    "tests/setgames/wrappers/test_single_agent_engine.py::test_engine_path_shows_what_the_rules_layer_shows_at_every_step[bharg-2p-mix]",
    "tests/setgames/wrappers/test_single_agent_engine.py::test_engine_path_shows_what_the_rules_layer_shows_at_every_step[bharg-2p-random]",
    "tests/setgames/wrappers/test_single_agent_engine.py::test_engine_path_shows_what_the_rules_layer_shows_at_every_step[bharg-3p-policy]",
    "tests/setgames/wrappers/test_single_agent_engine.py::test_engine_path_shows_what_the_rules_layer_shows_at_every_step[bharg-3p-random]",
    # Mutated Tu Sac states loaded in child processes (Tet Hsi's and Bharg's stay).
    "tests/setgames/test_fuzz_states.py::test_mutated_states_are_refused_cleanly_or_play_on[tusac",
    # Bots over long random runs, and the web table's hidden-information check with a search bot.
    "tests/setgames/bots/test_bots.py::test_bots_only_choose_legal_actions_over_long_runs",
    "tests/setgames/web/test_security.py::test_every_answer_is_the_same_for_any_deal_of_the_cards_the_seat_cannot_see[tethsi-2-ismcts",
    # The command line's fuzz: thousands of mutated records and saves in capped child processes.
    "tests/setgames/test_cli_fuzz.py::test_fuzzed_records_and_saves_work_or_end_in_one_line",
    # A fork in every pool state, one child process per state and game.
    "tests/setgames/batch/test_guard.py::test_fork_in_every_pool_state_leaves_a_child_that_steps_and_exits",
    # The gauntlet's rating on two seed sets, and the ladder's order measured step by step.
    "tests/setgames/arena/test_gauntlet.py::test_a_rating_holds_within_its_interval_on_other_deals",
    "tests/setgames/bots/test_ladder_order.py",
    # Benchmarks timed for seconds.
    "tests/setgames/bench/test_batch_bench.py::test_batch_cases_play_games_and_pair_their_ratios",
    # Training runs: the examples in smoke mode and the trainers' clients (with the [train] extra).
    "tests/examples/test_examples.py",
    "tests/setgames/wrappers/clients/test_tianshou.py",
    "tests/setgames/wrappers/clients/test_sb3.py",
    "tests/setgames/batch/test_sb3_vec.py::test_maskable_ppo_trains_on_the_view_unchanged",
)

def _picked_files(config) -> set[str]:
    """The test files the command line named by node id (``file::test``): collected in part,
    so that their other :data:`LONG` entries rightly mark nothing."""
    root = config.rootpath
    out = set()
    for arg in config.args:
        if "::" in arg:
            path = Path(arg.split("::", 1)[0])
            path = path if path.is_absolute() else Path(config.invocation_params.dir) / path
            with contextlib.suppress(ValueError):  # (a file outside the root: no entry names it)
                out.add(path.resolve().relative_to(root).as_posix())
    return out


def _stale(config, ids: list[str]) -> list[str]:
    """The :data:`LONG` entries that mark none of ``ids`` although their file was collected whole."""
    files = {i.split("::", 1)[0] for i in ids} - _picked_files(config)
    return [p for p in LONG if p.split("::", 1)[0] in files and not any(i.startswith(p) for i in ids)]


_found: list[str] = []  # stale entries, for the end of the run


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark the :data:`LONG` tests before ``-m`` selects (this hook runs first); note the entries
    that mark nothing although their file was collected whole (a test renamed or parametrized
    anew would otherwise come back into the default run unnoticed): they fail the run."""
    for item in items:
        if any(item.nodeid.startswith(prefix) for prefix in LONG):
            item.add_marker(pytest.mark.long)
    stale = _stale(config, [item.nodeid for item in items])
    if hasattr(config, "workeroutput"):  # a pytest-xdist worker: the controller ends the run
        config.workeroutput["stale_long"] = stale
    else:
        _found.extend(stale)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """Under pytest-xdist, in the controller: the stale entries a worker found at its collection."""
    for prefix in getattr(node, "workeroutput", {}).get("stale_long", []):
        if prefix not in _found:
            _found.append(prefix)


def pytest_sessionfinish(session, exitstatus):
    """A run with stale entries fails, however its tests went."""
    if _found and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Name the stale :data:`LONG` entries (tests/conftest.py: rename them with their tests)."""
    if _found:
        terminalreporter.section("long markers that match no test (tests/conftest.py LONG)")
        for prefix in _found:
            terminalreporter.line(prefix)
