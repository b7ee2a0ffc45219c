"""Bharg's compiled greedy paths in a process that imported nothing but the batch (or the env).

Issue #34 found Tu Sac's compiled bot reading values only a Python module's
import set; these tests hold Bharg's compiled paths (the batch's
``opponents="greedy"``, ``greedy_actions()``, ``greedy_features()``,
``greedy_returns()`` with and without re-deals, the env's engine path) to
the rules layer and the Python greedy bot from a fresh child process
(:mod:`tests.setgames.batch.fresh`). The compiled bot imports
:mod:`bharg_env.greedy` itself, for its constants, so that module may be
loaded in the child; nothing else is.
"""

from __future__ import annotations

import pytest

from tests.setgames.batch.fresh import replay_greedy_batch, replay_returns, run_env_child

pytest.importorskip("bharg_env._batch", reason="bharg_env._batch is not built")


def test_batch_greedy_opponents_and_moves_in_a_fresh_process_are_the_python_bots():
    positions, loaded = replay_greedy_batch("bharg", {"num_players": 3}, num_envs=32, steps=120, master=12345)
    assert loaded <= {"bharg_env.greedy"}
    assert positions > 5000


def test_batch_greedy_features_and_returns_in_a_fresh_process_are_the_python_ones():
    compared, loaded = replay_returns("bharg", {"num_players": 3}, num_envs=6, steps=30, master=8,
                                      redeals=2, features=True)
    assert loaded <= {"bharg_env.greedy"}
    assert compared > 1000


def test_env_engine_path_in_a_fresh_process_plays_the_python_greedy():
    steps, _ = run_env_child("bharg", {"num_players": 3}, episodes=150, master=3)
    assert steps > 1000
