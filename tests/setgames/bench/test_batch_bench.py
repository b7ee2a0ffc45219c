"""The batch benchmark (``setgames bench --only batch``) runs its cases and reports paired ratios.
No speed is asserted: only that the cases play real games and the output is well formed."""

from __future__ import annotations

import pytest

from setgames import registry
from setgames.batch import batch_class
from setgames.bench import main
from setgames.bench.batch import (
    batch_cases,
    batch_table,
    batch_targets,
    slot_bytes,
    summarize_batch,
    sweep_table,
)
from setgames.bench.envs import GAME_CONFIGS, run_cases

pytest.importorskip("tethsi_env._batch", reason="tethsi_env._batch is not built")


def test_batch_cases_play_games_and_pair_their_ratios():
    names = ["tethsi", "bharg", "tusac"]
    cases, notes = batch_cases(names, quick=True, with_pgx=False)
    batched = [n for n in names if batch_class(registry.make_game(n)) is not None]
    groups = sum(len(GAME_CONFIGS[n]) for n in batched)  # one group per config of a batched game
    assert {"tethsi", "bharg"} <= set(batched)
    kinds = [c.kind for c in cases]
    assert kinds.count("raw_env") == groups and kinds.count("single_agent") == groups
    assert kinds.count("single_agent_rules") == groups
    assert kinds.count("batch") == 4 * groups  # B in {1, 64} x 1, 2 threads
    assert kinds.count("batch_greedy") == groups
    assert all(any(n in note and "no batched engine" in note for note in notes)
               for n in names if n not in batched)
    runs = run_cases(cases, repeats=2, seconds=0.01)
    rows = summarize_batch(cases, runs)
    for row in rows:
        assert row["repeats"] == 2, row
        assert all(r["games"] > 0 for r in row["runs"]), row  # whole games were played in every repeat
    batch_rows = [r for r in rows if r["kind"].startswith("batch")]
    assert all(r["x_raw_env"] > 0 for r in batch_rows)
    assert next(r for r in rows if r["kind"] == "batch_greedy")["x_single_agent"] > 0
    assert all(r["x_single_agent"] > 0 for r in rows if r["kind"] == "single_agent")  # engine / rules
    two = [r for r in rows if r["config"].get("threads") == 2]
    assert len(two) == 2 * groups and all(r["x_one_thread"] > 0 for r in two)
    one = [r for r in rows if r["kind"] == "batch" and r["config"]["threads"] == 1]
    assert all(r["x_b64"] > 0 for r in one)
    assert all(r["x_b64"] == 1.0 for r in one if r["config"]["B"] == 64)  # a B=64 row is paired with itself
    table = batch_table(rows)
    assert len(table) == 2 + len(rows) and all(line.count("|") == 12 for line in table)
    assert batch_targets(rows) == []  # B=1,024 and 8,192 were not measured in the quick run
    sweep = sweep_table(rows)  # B=64 is the only sweep size measured beside B=1: no ratio yet
    assert sweep == []


def test_sweep_table_puts_slot_sizes_beside_the_ratios_to_b64():
    rows = []
    for b, sps in ((64, 4.0e6), (1024, 4.0e6), (8192, 2.0e6)):
        rows.append({"group": "g", "kind": "batch", "label": f"B={b}",
                     "config": {"B": b, "threads": 1, "slot_bytes": {"state": 2688, "rows": 581}},
                     "steps_per_s": {"median": sps}, "x_b64": sps / 4.0e6})
    table = sweep_table(rows)
    assert table[0].startswith("| group | slot state, bytes | output rows, bytes | B=64 | B=1,024 |")
    assert table[2] == "| g | 2,688 | 581 | 4.00M | 4.00M | 2.00M | 1.00 | 0.50 |"
    met = {t["name"]: t["met"] for t in batch_targets(rows)}
    assert met == {"g batch B=8,192 / B=64, 1 thread": False}


@pytest.mark.parametrize("name", ["tethsi", "bharg", "tusac"])
def test_slot_bytes_is_the_c_state_and_the_output_rows(name):
    game = registry.make_game(name)
    if batch_class(game) is None:
        pytest.skip(f"{name} has no batched engine here")
    size_of = slot_bytes(game)
    assert size_of["state"] > 0 and size_of["state"] % 64 == 0  # whole cache lines (checked in C too)
    # the rows: at least obs and final_obs (int8), the mask (int8) and the rewards (float32) of one slot
    assert size_of["rows"] >= 2 * game.obs_spec.size + game.num_actions + 4 * game.num_players


def test_bench_only_batch_prints_the_batch_table(capsys):
    assert main(["--only", "batch", "--quick", "--no-write", "-q", "--games", "tethsi"]) == 0
    out = capsys.readouterr().out
    assert "## Batched engines" in out and "batch B=64, 2 threads, self-play" in out
