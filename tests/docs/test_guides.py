"""Every guide is task-first, as Gymnasium's and Stable-Baselines3's are: it opens with a
sentence on what it is for and a block that runs (before its first ``##`` heading), has
one ``##`` heading per task (at least three in a guide over 40 lines), and no paragraph
of prose over 8 lines; reference tables and research logs live elsewhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDES = [*sorted((ROOT / "docs" / "guides").glob("*.md")), ROOT / "docs" / "getting-started.md"]
MAX_PARAGRAPH = 8  # lines of prose in one paragraph
LONG_GUIDE = 40  # lines: a guide this long has at least LONG_GUIDE_HEADINGS task headings
LONG_GUIDE_HEADINGS = 3
# The fences the snippet test runs (tests/docs/test_snippets.py): python is executed, the
# shell ones have their setgames and pip commands parsed.
RUNNABLE = {"python", "", "bash", "console", "sh", "shell"}
FENCE = re.compile(r"^```(\w*)")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")


def _blocks(lines: list[str]) -> list[tuple[str, int, list[str]]]:
    """``(kind, first line number, lines)`` for each run of lines: kind is ``code`` (with
    its language after a colon), ``heading``, ``blank``, ``table``, ``list``, ``comment``,
    ``include`` or ``prose``. A run of non-blank lines that starts with a list item is a
    list to its end (Markdown continues an item on the lines after it)."""
    out: list[tuple[str, int, list[str]]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = FENCE.match(line)
        if m:
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append((f"code:{m.group(1)}", i + 1, lines[i:j + 1]))
            i = j + 1
            continue
        if not line.strip():
            out.append(("blank", i + 1, [line]))
        elif line.startswith("#"):
            out.append(("heading", i + 1, [line]))
        elif line.lstrip().startswith("|"):
            out.append(("table", i + 1, [line]))
        elif line.lstrip().startswith("<!--"):
            out.append(("comment", i + 1, [line]))
        elif LIST_ITEM.match(line) or (out and out[-1][0] == "list" and line.startswith(" ")):
            if out and out[-1][0] == "list":
                out[-1][2].append(line)
            else:
                out.append(("list", i + 1, [line]))
        elif out and out[-1][0] == "list":
            out[-1][2].append(line)  # a lazy continuation of the item above
        elif out and out[-1][0] == "prose":
            out[-1][2].append(line)
        else:
            out.append(("prose", i + 1, [line]))
        i += 1
    return out


def guide_problems(text: str) -> list[str]:
    """What keeps a guide's Markdown ``text`` from being task-first (empty: nothing)."""
    lines = text.splitlines()
    blocks = _blocks(lines)
    problems = []
    body = [b for b in blocks if b[0] != "blank"]
    if body and body[0][0] == "heading" and body[0][2][0].startswith("# "):
        body = body[1:]  # the page's title
    first_h2 = next((k for k, b in enumerate(body) if b[0] == "heading" and b[2][0].startswith("## ")),
                    len(body))
    opening = body[:first_h2]
    if not opening or opening[0][0] != "prose":
        problems.append("does not open with a sentence on what it is for")
    if not any(b[0].startswith("code:") and b[0][5:] in RUNNABLE for b in opening):
        problems.append("has no runnable block before its first ## heading")
    headings = sum(1 for b in blocks if b[0] == "heading" and b[2][0].startswith("## "))
    need = LONG_GUIDE_HEADINGS if len(lines) > LONG_GUIDE else 1
    if headings < need:
        problems.append(f"has {headings} ## heading(s) in {len(lines)} lines; needs {need}")
    for kind, start, run in blocks:
        if kind == "prose" and len(run) > MAX_PARAGRAPH:
            problems.append(f"line {start}: a paragraph of {len(run)} lines (at most {MAX_PARAGRAPH})")
    return problems


@pytest.mark.parametrize("path", GUIDES, ids=[p.relative_to(ROOT).as_posix() for p in GUIDES])
def test_guide_is_task_first(path):
    problems = guide_problems(path.read_text(encoding="utf-8"))
    assert not problems, f"{path.relative_to(ROOT)}: " + "; ".join(problems)


def test_the_check_refuses_a_wall_of_text():
    # A guide under one heading with a long paragraph and its code at the end: every rule fails.
    wall = ("# Training\n\n" + "A line of prose.\n" * 12 + "\n" + "More.\n" * 30
            + "\n## Run\n\n```bash\nx\n```\n")
    problems = guide_problems(wall)
    assert any("runnable block" in p for p in problems)
    assert any("## heading" in p for p in problems)
    assert any("paragraph of 12 lines" in p for p in problems)
    fine = "# Guide\n\nWhat it is for.\n\n```python\nprint(1)\n```\n\n## Task\n\n- a\n  b\n"
    assert guide_problems(fine) == []
