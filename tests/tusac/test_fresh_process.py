"""Tu Sac's compiled greedy in a process that imported nothing but the batch (or the env).

Issue #34: the compiled bot's meld values were set only by importing
:mod:`tusac_env.greedy`, so a process that imported just the batch played its
``opponents="greedy"`` and ``greedy_actions()`` with a pair worth as much as
a set. Each test runs the compiled path in a fresh child and replays it here
with the rules layer and the Python greedy bot (:mod:`tests.setgames.batch.fresh`).
"""

from __future__ import annotations

import pytest

from tests.setgames.batch.fresh import replay_greedy_batch, replay_returns, run_env_child

pytest.importorskip("tusac_env._batch", reason="tusac_env._batch is not built")


def test_batch_greedy_opponents_and_moves_in_a_fresh_process_are_the_python_bots():
    positions, loaded = replay_greedy_batch("tusac", {"num_players": 4}, num_envs=32, steps=120, master=12345)
    assert "tusac_env.greedy" not in loaded  # else the child had the values by the old side effect
    assert positions > 5000


def test_batch_greedy_returns_in_a_fresh_process_are_the_python_play_outs():
    # With re-deals too: the child's compiled ts_redeal against game.determinize here.
    compared, loaded = replay_returns("tusac", {"num_players": 3}, num_envs=8, steps=80, master=8, redeals=2)
    assert "tusac_env.greedy" not in loaded
    assert compared > 1000


def test_env_engine_path_in_a_fresh_process_plays_the_python_greedy():
    # The env builds its greedy opponents from tusac_env.greedy, so this path had the values
    # before the fix too; it holds the engine path to the Python bot all the same.
    steps, _ = run_env_child("tusac", {"num_players": 4}, episodes=150, master=3)
    assert steps > 1000
