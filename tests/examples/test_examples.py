"""Every example runs in --smoke mode, and the notebook runs top to bottom.

Skipped cleanly when the ``train`` extra is not installed. The game is Bharg
(the examples' default) when it is installed, else Tet Hsi.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _game() -> str:
    try:
        import bharg_env

        bharg_env.env  # noqa: B018 - present once the game is complete
    except (ImportError, AttributeError):
        return "tethsi"
    return "bharg"


GAME = _game()
SMOKE_TIMEOUT = 300  # s: generous for a loaded 2-core machine; a smoke run takes ~10 s of CPU


def _run(script: str, *args: str, tmp_path: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    proc = subprocess.run([sys.executable, str(EXAMPLES / script), "--smoke", *args],
                          capture_output=True, text=True, timeout=SMOKE_TIMEOUT, cwd=tmp_path, env=env)
    assert proc.returncode == 0, f"{script} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def test_quickstart_plays_one_game(tmp_path):
    out = _run("quickstart.py", "--game", GAME, tmp_path=tmp_path)
    assert "outcome: {" in out and "'reason':" in out and "final info (numbers only): {'winner':" in out


def test_maskable_ppo_example_trains_and_evaluates_in_the_arena(tmp_path):
    pytest.importorskip("sb3_contrib")
    pytest.importorskip("torch")
    out = _run("maskable_ppo_bharg.py", "--game", GAME, "--out", str(tmp_path / "run"), tmp_path=tmp_path)
    assert "ppo vs   random: score" in out
    assert (tmp_path / "run" / "model.zip").exists()
    assert (tmp_path / "run" / "learning_curve.csv").read_text().startswith("timestep,episode_return")
    assert (tmp_path / "run" / "arena" / "results.json").exists()


def test_cleanrl_masked_ppo_example_runs(tmp_path):
    pytest.importorskip("torch")
    out = _run("cleanrl_masked_ppo.py", "--game", GAME, tmp_path=tmp_path)
    assert "vs random over 10 games: score" in out


def test_selfplay_example_runs(tmp_path):
    pytest.importorskip("sb3_contrib")
    out = _run("selfplay.py", "--game", GAME, "--out", str(tmp_path / "sp"), tmp_path=tmp_path)
    assert "generation 1:" in out and "gen1 vs gen0: score" in out


def test_tianshou_multiagent_example_runs(tmp_path):
    pytest.importorskip("tianshou")
    out = _run("tianshou_multiagent.py", "--game", GAME, tmp_path=tmp_path)
    assert "player_0 vs random" in out


def test_rllib_multiagent_ppo_example_trains_and_plays_the_arena(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("ray.rllib")
    out = _run("rllib_multiagent_ppo.py", "--game", GAME, "--policies", "per-seat",
               "--out", str(tmp_path / "rl"), tmp_path=tmp_path)
    assert "iteration 1:" in out and "ppo (player_0) vs random: score" in out
    assert (tmp_path / "rl" / "arena" / "results.json").exists()


def test_notebook_runs_top_to_bottom(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("matplotlib")
    nb = nbformat.read(EXAMPLES / "setgames_tour.ipynb", as_version=4)
    os.environ.setdefault("MPLBACKEND", "Agg")
    client = nbclient.NotebookClient(nb, timeout=SMOKE_TIMEOUT, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "learning curve" in text
