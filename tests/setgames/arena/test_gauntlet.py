"""The gauntlet (setgames eval): reproducible files, its rating and report, refusals before any game."""

from __future__ import annotations

import json

import pytest

from setgames.arena import gauntlet
from setgames.arena.gauntlet import GAUNTLET_FILE, gauntlet_seed, ladder_pairings, run_gauntlet
from setgames.arena.gauntlet_report import GAUNTLET_MARKDOWN, format_gauntlet, save_report
from setgames.arena.ratings import BOOTSTRAP_SAMPLES
from setgames.arena.runner import RESULTS_FILE, TIMING_FILE
from setgames.bots.levels import LADDER_VERSION, REFERENCE_ELO, REFERENCES
from setgames.cli import main
from setgames.records import RECORDS_FILE

try:  # the plot extra (the train extra has it too: .ci/train-smoke runs this file with it)
    import matplotlib  # noqa: F401

    HAVE_PLOT = True
except ImportError:
    HAVE_PLOT = False

# A cheap slice of the ladder for the default run: no search reference, three configs.
CHEAP_REFS = ["level:1", "level:2", "level:3", "level:5", "ppo"]
CHEAP_CONFIGS = ["tethsi", "bharg-3p", "tusac-4p"]


def _run(bot, out=None, workers=1, executor=None, games=2, seed_set=0, refs=CHEAP_REFS,
         configs=CHEAP_CONFIGS, samples=50):
    # 50 bootstrap draws keep the default run fast; the interval test uses the full count.
    return run_gauntlet(bot, games_per_config=games, seed_set=seed_set, workers=workers, executor=executor,
                        out=out, progress=False, references=refs, configs=configs, samples=samples)


def test_the_same_bot_gives_the_same_files_with_one_and_two_workers(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    a = _run("greedy:epsilon=0.2", one, workers=1)
    b = _run("greedy:epsilon=0.2", two, workers=2, executor="local")
    for name in (GAUNTLET_FILE, RESULTS_FILE, RECORDS_FILE):
        assert (one / name).read_bytes() == (two / name).read_bytes(), name
    assert a["rating"] == b["rating"] and a["rating"] is not None
    saved = json.loads((one / GAUNTLET_FILE).read_text())
    assert "timing" not in saved and (one / TIMING_FILE).is_file()  # wall clock: apart from the report
    assert saved["ladder_version"] == LADDER_VERSION and saved["seed"] == gauntlet_seed(0)


def test_seeds_come_from_the_ladder_version_and_the_seed_set():
    assert gauntlet_seed(0) == gauntlet_seed(0)
    assert len({gauntlet_seed(k) for k in range(5)}) == 5
    with pytest.raises(ValueError, match="seed set"):
        gauntlet_seed(-1)


def test_the_report_holds_every_reference_of_every_config_played(tmp_path):
    report = _run("greedy", tmp_path, games=4)
    assert report["partial"] is True  # a slice of the ladder says so
    assert [c["config"] for c in report["configs"]] == CHEAP_CONFIGS
    for entry in report["configs"]:
        assert [r["reference"] for r in entry["references"]] == CHEAP_REFS
        assert all(r["games"] >= 4 and r["wins"] + r["draws"] + r["losses"] == r["games"]
                   for r in entry["references"])
        ratings = {r["reference"]: r["rating"] for r in entry["references"]}
        assert ratings["level:1"] == 0.0 and ratings["level:5"] == 1000.0  # the anchored scale
        low, high = entry["rating"]["low"], entry["rating"]["high"]
        assert low <= entry["rating"]["rating"] <= high
    text = format_gauntlet(report)
    assert "# Gauntlet: greedy" in text and "**Partial**" in text and "level:3 Intermediate" in text
    assert "## Time per decision" in text
    if not HAVE_PLOT:  # the picture needs the plot extra; the Markdown is written first
        with pytest.raises(ImportError, match=r"setgames\[plot\]"):
            save_report(report, tmp_path)
        assert (tmp_path / GAUNTLET_MARKDOWN).read_text() == text
        return
    written = save_report(report, tmp_path)
    assert (tmp_path / GAUNTLET_MARKDOWN).read_text() == text
    assert written[-1].suffix == ".png" and written[-1].stat().st_size > 1000


def test_a_bot_that_is_also_a_reference_keeps_both_names(tmp_path):
    report = _run("level:2", refs=["level:1", "level:2"], configs=["tethsi"])
    assert report["bot"]["label"] == "level:2 (evaluated)"
    assert [r["reference"] for r in report["configs"][0]["references"]] == ["level:1", "level:2"]


def test_the_bot_against_itself_rates_near_its_own_reference_rating():
    # greedy is level 5 (1000 by definition): against levels 4 and 5 its rating must cover that.
    report = _run("greedy", refs=["level:4", "level:5"], configs=["tethsi"], games=200)
    r = report["configs"][0]["rating"]
    assert r["low"] <= 1000.0 <= r["high"]


@pytest.mark.parametrize("spec, match", [
    ("nosuchbot", "unknown bot 'nosuchbot'"),
    ("no.such.module:Bot", "no module named 'no.such.module'"),
    ("greedy:depth=3", "has no option 'depth'"),
    ("level:9", "bad level"),
    ("exec:/no/such/program-xyz", "program-xyz"),
])
def test_a_bad_bot_is_refused_in_one_line_before_any_game(tmp_path, capsys, spec, match):
    out = tmp_path / "out"
    status = main(["eval", spec, "--games-per-config", "2", "--workers", "1", "--out", str(out),
                   "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and err[0].startswith("setgames: error: "), err
    assert match in err[0]
    assert not out.exists()  # refused before anything was written


@pytest.mark.parametrize("argv, match", [
    (["--games-per-config", "0"], "--games-per-config 0"),
    (["--seed-set", "-1"], "--seed-set -1"),
    (["--workers", "0"], "--workers 0"),
    (["--address", "x"], "--address is for --executor ray"),
    (["--flag-only"], "--flag-only needs a time limit"),
])
def test_bad_eval_options_are_refused_in_one_line(capsys, argv, match):
    status = main(["eval", "greedy", *argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and match in err[0], err


def test_the_eval_command_prints_and_saves_the_report(tmp_path, capsys, monkeypatch):
    # The command plays the whole ladder; here a slice of it stands for the ladder.
    monkeypatch.setattr(gauntlet, "REFERENCES", ("level:1", "level:5"))
    monkeypatch.setattr(gauntlet, "GAUNTLET_CONFIGS", (("tethsi", ()),))
    status = main(["eval", "random", "--games-per-config", "2", "--workers", "1", "--out", str(tmp_path),
                   "--no-progress"])
    out = capsys.readouterr().out
    assert status == 0 and "# Gauntlet: random" in out and "**Rating: " in out and "Partial" not in out
    for name in (GAUNTLET_FILE, GAUNTLET_MARKDOWN, RESULTS_FILE, RECORDS_FILE):
        assert (tmp_path / name).is_file(), name
    # Without the plot extra the command still succeeds and names the extra.
    assert (tmp_path / "gauntlet.png").is_file() if HAVE_PLOT else "No plot:" in out and "[plot]" in out


def test_every_reference_of_the_ladder_is_measured_by_its_pairings():
    pairs = ladder_pairings(list(REFERENCES))
    met = {i for pair in pairs for i in pair}
    assert met == set(range(len(REFERENCES)))
    assert all(REFERENCE_ELO[key].keys() == set(REFERENCES) for key in REFERENCE_ELO)


def test_a_rating_holds_within_its_interval_on_other_deals():
    """One run's rating lies in the other's 95% interval, both ways (seed sets 0 and 1)."""
    runs = [_run("greedy:epsilon=0.4", games=60, seed_set=k, configs=["tethsi", "bharg-2p"],
                 samples=BOOTSTRAP_SAMPLES) for k in (0, 1)]
    a, b = (r["rating"] for r in runs)
    assert a["rating"] != b["rating"]  # other deals, another figure
    assert a["low"] <= b["rating"] <= a["high"] and b["low"] <= a["rating"] <= b["high"], (a, b)
