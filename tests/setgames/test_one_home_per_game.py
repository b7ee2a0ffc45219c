"""One home per game: the shared core names no game outside the registry, the kernels, the
card tables and the benchmarks; everything else it knows of a game it asks the registry."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "setgames"
# The registry lists the games; the kernels and card tables are built from each game's
# definition of a set and its cards; the benchmarks compare named games with their peers.
ALLOWED = ("setgames/registry.py", "setgames/kernels/", "setgames/cards.py", "setgames/bench/")
# A game's short name or title as a word ("tethsi_env" is a package path, not a name in prose).
GAME_NAME = re.compile(r"\b(?:tethsi|bharg|tusac|tet\s+hsi|tu\s+sac)\b", re.IGNORECASE)


def _core_sources() -> list[Path]:
    return sorted(p for ext in ("*.py", "*.pyx", "*.pxd") for p in CORE.rglob(ext))


def offenders() -> list[str]:
    """``path:line: text`` of every line of the core that names a game outside ``ALLOWED``."""
    out = []
    for path in _core_sources():
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(ALLOWED) or rel == "setgames/registry.py":
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if GAME_NAME.search(line):
                out.append(f"{rel}:{n}: {line.strip()}")
    return out


def test_the_core_names_no_game_outside_its_registry():
    found = offenders()
    assert not found, "the core names a game:\n" + "\n".join(found)


def test_the_scan_sees_a_name_where_there_is_one():
    assert _core_sources() and GAME_NAME.search('make_bot("greedy", "tusac")')
    assert GAME_NAME.search("Tet Hsi's search") and not GAME_NAME.search("tethsi_env.levels")
