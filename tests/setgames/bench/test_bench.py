"""The benchmark harness: it runs in a tiny mode and writes well-formed JSON
and Markdown. No speed is ever asserted: only behaviour and output shape."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pettingzoo.test import api_test

from setgames.aec import make_env
from setgames.bench import check_targets, main
from setgames.bench.envs import aec_play, game_cases, rules_play, run_cases, summarize
from setgames.bench.null_env import NullEnv, null_env_like
from setgames.bench.report import machine_info, to_markdown, write_outputs
from setgames.bench.sampler import LegalSampler
from setgames.testing import global_rng_untouched
from tests.setgames.toy_game import ToyGame, make_toy_env_class

ToyEnv = make_toy_env_class()


def test_sampler_only_draws_legal_actions_and_covers_them_evenly():
    s = LegalSampler(seed=1)
    mask = np.zeros(50, np.int8)
    mask[[3, 17, 18, 49]] = 1
    draws = [s.from_mask(mask) for _ in range(4000)]
    counts = {a: draws.count(a) for a in set(draws)}
    assert set(counts) == {3, 17, 18, 49}
    assert all(800 < c < 1200 for c in counts.values())  # 1000 expected each
    assert {s.from_list([5, 9]) for _ in range(200)} == {5, 9}


def test_sampler_refuses_an_empty_mask():
    with pytest.raises(ValueError, match="no action"):
        LegalSampler(0).from_mask(np.zeros(4, np.int8))


def test_sampler_leaves_the_global_rng_alone():
    with global_rng_untouched():
        s = LegalSampler(3)
        for _ in range(100):
            s.from_list([1, 2, 3])
            s.from_mask(np.ones(3, np.int8))


def test_null_env_passes_api_test_and_copies_the_spaces():
    raw = ToyEnv()
    null = null_env_like(raw, steps_per_game=7)
    agent = raw.possible_agents[0]
    assert null.observation_space(agent) is raw.observation_space(agent)
    assert null.action_space(agent) is raw.action_space(agent)
    assert null.possible_agents == raw.possible_agents
    api_test(null_env_like(raw, steps_per_game=7), num_cycles=50)


def test_null_env_game_length_rewards_and_illegal_action():
    from gymnasium import spaces

    obs = spaces.Dict({"observation": spaces.Box(0, 1, (3,), dtype=np.int8),
                       "action_mask": spaces.Box(0, 1, (10,), dtype=np.int8)})
    env = NullEnv(obs, spaces.Discrete(10), num_agents=3, steps_per_game=5, legal_actions=2)
    env.reset()
    assert env.observe("player_0")["action_mask"].nonzero()[0].tolist() == [0, 9]
    with pytest.raises(ValueError, match="illegal action 4"):
        env.step(4)
    s = LegalSampler(0)
    for i in range(5):
        assert env.agent_selection == f"player_{i % 3}"
        assert not any(env.terminations.values())
        env.step(s.from_mask(env.observe(env.agent_selection)["action_mask"]))
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}
    assert aec_play(env, LegalSampler(0))(1) == (5, 1)
    assert env.agents == []
    with pytest.raises(ValueError, match="steps_per_game 0"):
        NullEnv(obs, spaces.Discrete(10), steps_per_game=0)


def test_rules_layer_and_env_play_the_same_games():
    game = ToyGame()
    rules = rules_play(game, LegalSampler(7))
    raw = aec_play(ToyEnv(), LegalSampler(7))
    wrapped = aec_play(make_env(ToyEnv), LegalSampler(7))
    for seed in range(20):
        n = rules(seed)
        assert n == raw(seed) == wrapped(seed)


def _toy_rows(repeats: int = 2):
    cases = game_cases("toy", ToyGame, ToyEnv, lambda **kw: make_env(ToyEnv, **kw), {},
                       with_pz_wrappers=True)
    runs = run_cases(cases, repeats=repeats, seconds=0.01)
    return cases, runs, summarize(cases, runs)


def test_cases_run_round_robin_and_summarize_with_ratios():
    cases, runs, rows = _toy_rows()
    assert [c.kind for c in cases] == ["rules", "rules+obs", "raw_env", "env", "null", "null+pz_wrappers"]
    assert all(len(r) == 2 for r in runs)
    by_kind = {r["kind"]: r for r in rows}
    for r in rows:
        assert r["repeats"] == 2
        med = r["steps_per_s"]["median"]
        assert r["steps_per_s"]["min"] <= med <= r["steps_per_s"]["max"]
        assert 2 <= r["steps_per_game"] <= 9  # a toy pile of 5..9 tokens, 1 or 2 taken a step
    assert "x_null" not in by_kind["null"] and by_kind["raw_env"]["x_null"] > 0
    assert by_kind["env"]["x_raw_env"] > 0
    pair = [a["steps_per_s"] / b["steps_per_s"] for a, b in zip(runs[3], runs[2], strict=True)]
    assert by_kind["env"]["x_raw_env"] == pytest.approx(float(np.median(pair)))


def test_a_failing_case_is_reported_not_raised():
    from setgames.bench.envs import Case

    def broken(seed):
        def run(s):
            raise RuntimeError("peer exploded")
        return run

    rows = summarize([Case("peers", "bad peer", "peer", broken)],
                     run_cases([Case("peers", "bad peer", "peer", broken)], 2, 0.01))
    assert rows[0]["error"] == "RuntimeError: peer exploded"
    assert rows[0]["repeats"] == 0


def test_targets_compare_each_measure_to_its_goal():
    envs = [
        {"group": "tusac 2p", "game": "tusac", "kind": "raw_env", "x_null": 0.3, "x_openspiel": 0.9},
        {"group": "tethsi", "game": "tethsi", "kind": "raw_env", "x_null": 0.3},
        {"group": "tethsi", "game": "tethsi", "kind": "env", "x_raw_env": 0.75},
    ]
    kernels = [
        {"kernel": "tusac.min_trash", "path": "scalar", "batch": None, "rate": {"median": 400_000.0},
         "x_oracle": 150.0},
        {"kernel": "tusac.min_trash", "path": "batch", "batch": 100_000, "rate": {"median": 25e6},
         "x_oracle": 90.0},
    ]
    met = {t["name"]: t["met"] for t in check_targets(envs, kernels)}
    assert met == {
        "tusac 2p raw_env / null env": True,  # 0.3 >= 0.25
        "tusac 2p raw_env / OpenSpiel gin_rummy (obs)": False,
        "tethsi raw_env / null env": False,  # 0.3 < 0.4
        "tethsi env() / raw_env": True,
        "tusac.min_trash scalar, 20-card hand (us)": False,  # 2.5 us > 2 us
        "tusac.min_trash scalar / oracle": True,
        "tusac.min_trash batch, B=100,000": True,
        "tusac.min_trash batch B=100,000 / oracle": False,
    }


def test_outputs_are_well_formed(tmp_path):
    _, _, rows = _toy_rows(repeats=1)
    result = {"machine": machine_info(),
              "settings": {"command": "test", "repeats": 1, "seconds": 0.01, "quick": True},
              "envs": rows, "kernels": [], "targets": check_targets(rows, []), "notes": ["a note"]}
    written = write_outputs(result, tmp_path)
    data = json.loads((tmp_path / "bench.json").read_text())
    assert data["envs"] == json.loads(json.dumps(rows))
    assert data["machine"]["python"] and data["machine"]["cores"] >= 1
    md = (tmp_path / "bench.md").read_text()
    assert md == to_markdown(result, "bench.png" if "png" in written else None)
    assert result["machine"]["date"] in md and result["machine"]["cpu"] in md
    table = [line for line in md.splitlines() if line.startswith("| toy |")]
    assert len(table) == len(rows)
    assert all(line.count("|") == 11 for line in table)  # 10 columns
    assert "- a note" in md


@pytest.mark.parametrize("part", ["games", "kernels"])
def test_main_quick_writes_json_and_markdown(tmp_path, capsys, part):
    extra = ["--games", "tethsi"] if part == "games" else ["--clock", "cpu"]
    assert main(["--quick", "--only", part, "--seconds", "0.01", "-q", "--out", str(tmp_path), *extra]) == 0
    data = json.loads((tmp_path / "bench.json").read_text())
    assert data["settings"]["parts"] == [part]
    assert data["settings"]["clock"] == ("wall" if part == "games" else "cpu")
    rows = data["envs"] if part == "games" else data["kernels"]
    assert rows and all("error" not in r for r in rows)
    if part == "games":
        assert {r["kind"] for r in rows} >= {"rules", "raw_env", "env", "null"}
    else:
        assert {r["batch"] for r in rows} == {None, 1, 1000}
    assert "# setgames throughput" in capsys.readouterr().out


@pytest.mark.parametrize("sep", [[], ["--"]])  # `setgames bench -- ...` passes the separator on
def test_main_refuses_an_unknown_game(sep):
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        main([*sep, "--quick", "--only", "games", "--games", "chess", "--no-write", "-q"])


def test_tusac_max_value_is_timed_on_trash_free_hands_with_the_dealt_ones_as_reference():
    from setgames.bench.kernels import _tusac_trash_free_counts, kernel_cases
    from tests.setgames.kernels.test_tusac_kernel import oracle_min_trash

    hands = _tusac_trash_free_counts(np.random.default_rng(4), 40)
    assert hands.shape == (40, 28) and (hands.sum(axis=1) == 20).all() and hands.max() <= 4
    assert all(oracle_min_trash(h.tolist()) == 0 for h in hands)
    assert len({h.tobytes() for h in hands}) == 40
    cases = [c for c in kernel_cases(0, max_batch=50)[0] if c.kernel == "tusac.max_value"]
    timed = [c for c in cases if c.target]
    assert {c.path for c in timed} == {"scalar", "batch"}
    scalar = next(c for c in timed if c.path == "scalar")
    assert all(oracle_min_trash(a[0]) == 0 for a in scalar.inputs[:20])
    assert [c.path for c in cases if not c.target] == ["scalar"]


def test_reference_rows_carry_no_oracle_target():
    from setgames.bench.kernels import run_kernels

    rows, _ = run_kernels(1, 0.001, (1,))
    ref = [r for r in rows if "reference" in r["note"]]
    assert ref and all("x_oracle" not in r and r["x_oracle_reference"] > 0 for r in ref)
    names = [t["name"] for t in check_targets([], rows)]
    assert names.count("tusac.max_value scalar / oracle") == 1  # from the trash-free row alone
    assert any(r["kernel"] == "tusac.max_value" and r.get("x_oracle") for r in rows)


def test_quick_run_never_writes_over_the_published_results(tmp_path, monkeypatch, capsys):
    from setgames.bench import default_out_dir

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    published = default_out_dir()
    assert default_out_dir(quick=True) == tmp_path / "setgames-bench-quick" != published
    before = {p.name: p.stat().st_mtime_ns for p in published.glob("bench.*")} if published.is_dir() else {}
    assert main(["--quick", "--only", "kernels", "--seconds", "0.01", "-q", "--clock", "cpu"]) == 0
    assert json.loads((tmp_path / "setgames-bench-quick" / "bench.json").read_text())["settings"]["quick"]
    after = {p.name: p.stat().st_mtime_ns for p in published.glob("bench.*")} if published.is_dir() else {}
    assert after == before  # the checkout's bench.json, bench.md and bench.png untouched
    assert "setgames-bench-quick" in capsys.readouterr().out
