"""Every code snippet of the documentation runs: the README and each page under ``docs/``,
as the site shows them (includes and generated parts filled in by ``docs/hooks.py``).

- A ``python`` block is executed in a fresh namespace, in a temporary folder. A block
  whose imports need an extra that is not installed is skipped, the summary naming the
  extra; ``<!-- snippet: needs EXTRA -->`` on the line before a block says so for a
  block that needs an extra without importing it (frames need ``pictures``).
- In a shell block (``bash``, ``console`` or no language), every ``setgames ...``
  command must parse with the command line's own parser, and every
  ``pip install -e '.[X]'`` must name extras that ``pyproject.toml`` declares.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import shlex
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"(?:^<!-- snippet: needs (?P<needs>[\w,-]+) -->\n)?"
                   r"^```(?P<lang>\w*)[^\n]*\n(?P<code>.*?)^```", re.M | re.S)
# The extra that provides each importable name a snippet may use.
EXTRA_OF = {
    "torch": "train", "stable_baselines3": "sb3", "sb3_contrib": "sb3", "tianshou": "tianshou",
    "torchrl": "torchrl", "ray": "ray", "resvg_py": "pictures", "PIL": "pictures", "moviepy": "pictures",
    "matplotlib": "plot", "selenium": "test-web",
}
EXTRA_PROBE = {
    "pictures": "resvg_py", "train": "torch", "sb3": "sb3_contrib", "tianshou": "tianshou",
    "torchrl": "torchrl", "trainers": "sb3_contrib", "notebook": "nbclient", "ray": "ray",
    "plot": "matplotlib", "test-web": "selenium",
}


def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pages() -> list[tuple[str, str]]:
    hooks = _hooks()
    pages = [("README.md", (ROOT / "README.md").read_text(encoding="utf-8"))]
    for path in sorted((ROOT / "docs").rglob("*.md")):
        page = path.relative_to(ROOT / "docs").as_posix()
        pages.append((f"docs/{page}", hooks.expand(path.read_text(encoding="utf-8"), page)))
    return pages


def _snippets() -> list:
    python, shell = [], []
    for name, text in _pages():
        for k, m in enumerate(FENCE.finditer(text)):
            line = text[: m.start("code")].count("\n") + 1
            ident = f"{name}:{line}"
            if m.group("lang") == "python":
                python.append(pytest.param(m.group("code"), m.group("needs") or "", id=ident))
            elif m.group("lang") in ("", "bash", "console", "sh", "shell"):
                shell.append(pytest.param(m.group("code"), id=ident))
            del k
    return python, shell


PYTHON, SHELL = _snippets()


def _needed_extras(code: str, declared: str) -> list[str]:
    extras = [e for e in declared.split(",") if e]
    for node in ast.walk(ast.parse(code)):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        extras += [EXTRA_OF[n.split(".")[0]] for n in names if n.split(".")[0] in EXTRA_OF]
    return sorted(set(extras))


def test_the_docs_have_snippets_of_both_kinds():
    assert len(PYTHON) >= 10 and len(SHELL) >= 5


@pytest.mark.parametrize(("code", "needs"), PYTHON)
def test_python_snippet_runs(code, needs, tmp_path, monkeypatch, capsys):
    for extra in _needed_extras(code, needs):
        if importlib.util.find_spec(EXTRA_PROBE[extra]) is None:
            pytest.skip(f"needs the [{extra}] extra: pip install -e '.[{extra}]'")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["snippet"])
    exec(compile(code, "<snippet>", "exec"), {"__name__": "__snippet__"})


def _commands(code: str) -> list[list[str]]:
    out = []
    for raw in code.splitlines():
        line = raw.split(" #", 1)[0].strip()
        for part in re.split(r"\s*&&\s*", line):
            if part:
                out.append(shlex.split(part))
    return out


@pytest.mark.parametrize("code", SHELL)
def test_shell_snippet_commands_parse(code):
    from setgames.cli import build_parser

    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    for argv in _commands(code):
        if argv[:1] == ["setgames"] and argv[1:2] != ["bench"] and "--help" not in argv:
            if argv[1:2] == ["--version"]:
                continue
            build_parser().parse_args(argv[1:])
        if argv[:2] == ["pip", "install"] or argv[1:4] == ["-m", "pip", "install"]:
            for arg in argv:
                m = re.fullmatch(r"(?:\.|setgames)\[([\w,-]+)\]", arg)
                if m:
                    unknown = set(m.group(1).split(",")) - extras
                    assert not unknown, f"{arg}: no such extra in pyproject.toml: {sorted(unknown)}"
