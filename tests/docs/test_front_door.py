"""The README is a short front door and the docs stand on their own: the two commands CI
parses, links only to files in the repository, no pointer to texts the repository does
not hold, generated parts that match the code."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from setgames import docs

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
# Texts the project reads its rules from, which are not in the repository: the docs state
# every rule and ruling in their own words instead.
OUTSIDE = re.compile(r"RULINGS|rules\.txt|\.\./shared")


def _awk_command(marker: str) -> str:
    # .ci/run's own parse: the second line after the marker.
    return subprocess.run(["awk", f"/<!-- {marker} -->/{{getline; getline; print; exit}}", str(README)],
                          capture_output=True, text=True, check=True).stdout.strip()


def test_the_readme_holds_the_two_commands_ci_runs():
    assert _awk_command("main-command") == "pip install -e . && setgames arena"
    assert _awk_command("test-command") == "pip install -e '.[test]' && python -m pytest -n auto"


def test_the_readme_is_short():
    # 130 lines of front door plus the main job's printed output (about 40 lines).
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 175


def test_the_readme_shows_the_output_of_the_default_arena():
    # The block after <!-- main-output --> is a pasted run of `setgames arena`: it must
    # show every game and exactly the default bots' pairings, so that a change of the
    # defaults without a new run fails here.
    from itertools import combinations

    from setgames.cli import DEFAULT_BOTS, DEFAULT_GAMES_PER_PAIRING
    from setgames.registry import GAME_NAMES, game_title

    text = README.read_text(encoding="utf-8")
    block = re.search(r"<!-- main-output -->\n```text\n(.*?)^```", text, re.S | re.M)
    assert block, "the README shows the main job's output after <!-- main-output -->"
    out = block.group(1)
    heads = re.findall(r"^== (.+?) \((\w+) v\d+, \d+ players\): (\d+) deals x (\d+) seatings", out, re.M)
    assert [(t, n) for t, n, _, _ in heads] == [(game_title(n), n) for n in GAME_NAMES]
    deals = -(-DEFAULT_GAMES_PER_PAIRING // 2)  # every default game seats two bots in two seatings
    assert all(int(d) == deals and int(k) == 2 for _, _, d, k in heads)
    pairs = re.findall(r"^  (\S+) vs (\S+) +\d+ ", out, re.M)
    expected = [(a, b) for a, b in combinations(DEFAULT_BOTS, 2)]
    assert pairs == expected * len(GAME_NAMES)


def test_the_readme_links_only_to_files_in_the_repository():
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [t for t in targets if "://" not in t]
    assert local, "the README links into the docs"
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, f"README links to files not in the repository: {missing}"


def test_no_page_points_at_texts_outside_the_repository():
    pages = [README, *sorted((ROOT / "docs").rglob("*.md")),
             *(ROOT / g / "README.md" for g in ("tethsi_env", "bharg_env", "tusac_env")),
             ROOT / "examples" / "README.md", ROOT / "benchmarks" / "README.md",
             ROOT / "research" / "FINDINGS.md"]
    bad = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in pages
           for m in OUTSIDE.finditer(p.read_text(encoding="utf-8"))]
    assert not bad, bad


def test_generated_tables_and_pictures_match_the_code():
    # python -m setgames.docs rewrites them after a change to a spec, a layout or a drawing.
    assert docs.main(["--check"]) == 0
