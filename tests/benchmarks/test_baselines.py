"""The baselines command: its agreement measure, its table and page, and a tiny run end to end."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

import pytest

from setgames.arena import BotSpec

ROOT = Path(__file__).resolve().parents[2]


def _module():
    spec = importlib.util.spec_from_file_location("baselines", ROOT / "benchmarks" / "baselines.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_greedy_agrees_with_itself_and_random_does_not():
    b = _module()
    assert b.agreement(BotSpec.parse("greedy"), "bharg", {"num_players": 2}, 300, 5) == 1.0
    assert b.agreement(BotSpec.parse("random"), "bharg", {"num_players": 2}, 300, 5) < 0.8


def test_the_page_gets_the_table_between_its_markers(tmp_path):
    b = _module()
    page = tmp_path / "baselines.md"
    page.write_text(f"# Baselines\n\n<!-- {b.MARK}:begin -->\nold\n<!-- {b.MARK}:end -->\n\nafter\n")
    score = {"games": 20, "score": 0.25, "low": 0.1, "high": 0.4}
    rows = [{"config": "Bharg 2p", "key": "bharg2", "mode": "cards", "method": "ppo", "steps": 1000,
             "train_s": 3.0, "curve": [(500, score), (1000, score)], "vs_random": score, "vs_greedy": score,
             "agreement": 0.5}]
    b.write_page(rows, page, [tmp_path / "bharg2.png"])
    text = page.read_text()
    assert "old" not in text and text.endswith("after\n")
    cell = "0.250 [0.100, 0.400]"
    assert f"| Bharg 2p | cards | ppo | 1,000 | {cell} | {cell} | 50.0% | 3 s |" in text
    assert "![bharg2](img/baselines/bharg2.png)" in text


def test_a_section_fills_its_own_markers_and_leaves_the_main_table(tmp_path):
    b = _module()
    page = tmp_path / "baselines.md"
    page.write_text(f"<!-- {b.MARK}:begin -->\nmain\n<!-- {b.MARK}:end -->\n"
                    f"<!-- {b.MARK}:20m:begin -->\nold\n<!-- {b.MARK}:20m:end -->\n")
    score = {"games": 20, "score": 0.5, "low": 0.4, "high": 0.6}
    rows = [{"config": "Tet Hsi", "key": "tethsi", "mode": "structure", "method": "dmc", "steps": 20_000_000,
             "train_s": 300.0, "curve": [], "vs_random": score, "vs_greedy": score, "agreement": 0.8}]
    b.write_page(rows, page, [tmp_path / "tethsi-20m.png"], section="20m")
    text = page.read_text()
    assert "main" in text and "old" not in text and "| Tet Hsi | structure | dmc | 20,000,000 |" in text
    assert "![tethsi-20m](img/baselines/tethsi-20m.png)" in text
    with pytest.raises(SystemExit, match="no baselines-table:other markers"):
        b.write_page(rows, page, [], section="other")


@pytest.mark.long
def test_a_tiny_run_trains_scores_and_draws_each_method(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("matplotlib")
    b = _module()
    args = argparse.Namespace(configs=["bharg2"], modes=["cards"], methods=["ppo"], steps=512 * 64 * 2,
                              games=8, curve_games=4, positions=50, seed=3, workers=1, out=str(tmp_path))
    rows = b.run(args)
    assert [r["method"] for r in rows] == ["ppo"]
    assert rows[0]["vs_greedy"]["games"] == 8 and 0 <= rows[0]["agreement"] <= 1
    assert len(rows[0]["curve"]) >= 1
    assert [p.name for p in b.plot(rows, tmp_path / "img")] == ["bharg2.png"]


def test_runs_of_two_budgets_share_a_picture_on_a_log_step_axis(tmp_path, monkeypatch):
    plt = pytest.importorskip("matplotlib.pyplot")
    b = _module()
    score = {"games": 20, "score": 0.25, "low": 0.1, "high": 0.4}

    def row(steps):
        return {"config": "Bharg 2p", "key": "bharg2", "mode": "structure", "method": "ppo", "steps": steps,
                "curve": [(steps // 2, score), (steps, score)]}

    axes = []
    monkeypatch.setattr(plt, "close", lambda fig: axes.extend(fig.axes))
    b.plot([row(1000), row(20000)], tmp_path)
    b.plot([row(1000)], tmp_path / "one")
    two, one = axes
    assert two.get_xscale() == "log" and one.get_xscale() == "linear"
    assert [t.get_text() for t in two.get_legend().get_texts()] == ["ppo (structure), 1,000 steps",
                                                                   "ppo (structure), 20,000 steps"]
    assert [t.get_text() for t in one.get_legend().get_texts()] == ["ppo (structure)"]
