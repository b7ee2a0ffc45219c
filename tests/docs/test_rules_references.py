"""Rules citations resolve: each names a file of the repository and a numbered rules choice
(or a section) that file has, never the project's internal notes, which readers cannot open."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("tethsi", "bharg", "tusac")
# Built from pieces so that this file does not name the notes it forbids.
NOTES = re.compile("RULINGS" + r"\.md")
# "tusac_env/README.md, rules choice 4", "..., rules choices 16, 18 and 25" (wrapped lines too).
CHOICE = re.compile(r"(?P<game>\w+)_env/README\.md(?:``|`)?,\s+(?:#\s+)?rules\s+(?:#\s+)?choices?\s+"
                    r"(?P<nums>\d+(?:(?:,\s*|\s+and\s+)\d+)*)")
# 'tusac_env/README.md``, "Rules summary" and "Rules choices"': a section by its title.
SECTION = re.compile(r"(?P<game>\w+)_env/README\.md(?:``|`)?,\s+\"(?P<a>[^\"]+)\""
                     r"(?:\s+and\s+\"(?P<b>[^\"]+)\")?")


def _tracked() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [ROOT / name for name in out.decode().split("\0") if name and (ROOT / name).is_file()]


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None


def _readme(game: str) -> str:
    return (ROOT / f"{game}_env" / "README.md").read_text(encoding="utf-8")


def rules_choices(game: str) -> list[int]:
    """The numbers of the entries of ``game``'s README section "Rules choices", in order."""
    text = _readme(game)
    start = re.search(r"^## Rules choices.*$", text, re.M)
    assert start, f"{game}_env/README.md has no 'Rules choices' section"
    rest = text[start.end():]
    end = re.search(r"^## ", rest, re.M)
    section = rest[:end.start()] if end else rest
    return [int(n) for n in re.findall(r"^(\d+)\. ", section, re.M)]


def _citations(pattern: re.Pattern[str]) -> list[tuple[str, re.Match[str]]]:
    found = []
    for path in _tracked():
        text = _text(path)
        if text is not None:
            found += [(str(path.relative_to(ROOT)), m) for m in pattern.finditer(text)]
    return found


def test_no_tracked_file_names_the_internal_rules_notes():
    named = [str(p.relative_to(ROOT)) for p in _tracked() if (t := _text(p)) and NOTES.search(t)]
    assert not named, f"files citing notes readers cannot open: {named}"


@pytest.mark.parametrize("game", GAMES)
def test_each_readme_numbers_its_rules_choices_one_by_one(game):
    numbers = rules_choices(game)
    assert numbers == list(range(1, len(numbers) + 1)) and numbers, numbers


def test_every_rules_choice_cited_exists_in_that_readme():
    cites = _citations(CHOICE)
    assert len(cites) > 30, "the code cites the rules choices by number"
    bad = []
    for where, m in cites:
        game = m.group("game")
        have = set(rules_choices(game)) if game in GAMES else set()
        for n in re.findall(r"\d+", m.group("nums")):
            if int(n) not in have:
                bad.append(f"{where}: {m.group(0)!r} (no rules choice {n} in {game}_env/README.md)")
    assert not bad, bad


def test_every_readme_section_cited_exists():
    bad = []
    for where, m in _citations(SECTION):
        game = m.group("game")
        titles = re.findall(r"^## (.*)$", _readme(game), re.M) if game in GAMES else []
        for want in filter(None, (m.group("a"), m.group("b"))):
            if not any(t.startswith(want) for t in titles):
                bad.append(f"{where}: no section {want!r} in {game}_env/README.md")
    assert not bad, bad
