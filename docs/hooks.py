"""MkDocs hooks: the pages' generated parts, made from the code at every build.

A page asks for them with HTML comments, each alone on its line:

- ``<!-- include: PATH -->``: the Markdown file ``PATH`` (from the repository root),
  without its first-level title (``<!-- include: PATH +1 -->`` also moves its headings one
  level down); its links to files the site also shows (listed in
  :data:`LINK_MAP`) point at their pages; the observation and action tables between
  their markers are rebuilt from the game's code (:mod:`setgames.docs`), so a page
  cannot show a table the code no longer has.
- ``<!-- generate: NAME -->``: a table or text made by :data:`GENERATORS` (the Decktet's
  card ids, Tu Sac's card types, the command line's options, the throughput summary).

:func:`expand` does both; the snippet test (``tests/docs/test_snippets.py``) runs the
code of the expanded pages, so what it runs is what the site shows.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import posixpath
import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _checkout_first() -> None:
    """Put this checkout's packages first on ``sys.path`` (MkDocs restores the path after
    loading a hook, and another copy of ``setgames`` may be installed)."""
    if sys.path[:1] != [str(ROOT)]:
        sys.path.insert(0, str(ROOT))

INCLUDE = re.compile(r"^<!-- include: (\S+)( \+1)? -->$", re.M)
GENERATE = re.compile(r"^<!-- generate: (\S+) -->$", re.M)
LINK = re.compile(r"\]\(([^)\s#]+)(#[^)\s]*)?\)")

# Repository files the site shows, and the page that shows each.
LINK_MAP = {
    "README.md": "index.md",
    "tethsi_env/README.md": "games/tethsi.md",
    "bharg_env/README.md": "games/bharg.md",
    "tusac_env/README.md": "games/tusac.md",
    "examples/README.md": "guides/examples.md",
    "benchmarks/README.md": "benchmarks.md",
    "benchmarks/results/bench.md": "benchmarks.md",
    "benchmarks/results/batch.md": "benchmarks.md",
    "research/FINDINGS.md": "research.md",
    "CHANGELOG.md": "changelog.md",
}
# Repository files (pictures) that included pages show, and where the site serves each.
ASSETS = {"benchmarks/results/bench.png": "img/bench.png"}
GAME_README = {
    "tethsi_env/README.md": "tethsi",
    "bharg_env/README.md": "bharg",
    "tusac_env/README.md": "tusac",
}


def _included(path: str, page: str, demote: bool = False) -> str:
    """The file ``path`` as page ``page`` shows it (see the module doc)."""
    text = (ROOT / path).read_text(encoding="utf-8")
    text = re.sub(r"\A# [^\n]*\n+", "", text)
    if demote:
        text = re.sub(r"^(#+) ", r"#\1 ", text, flags=re.M)
    if path in GAME_README:
        from setgames import docs
        from setgames.registry import make_game
        from setgames.spec import README_BEGIN, README_END

        game = make_game(GAME_README[path])
        text = docs._replace(text, README_BEGIN, README_END, game.obs_spec.markdown_table())
        text = docs._replace(text, docs.ACTION_BEGIN, docs.ACTION_END, game.layout.markdown_table())

    def link(m: re.Match[str]) -> str:
        target, anchor = m.group(1), m.group(2) or ""
        if "://" in target or target.startswith("mailto:"):
            return m.group(0)
        repo_path = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
        doc = (LINK_MAP.get(repo_path) or ASSETS.get(repo_path)
               or (repo_path[5:] if repo_path.startswith("docs/") else None))
        if doc is not None:
            rel = posixpath.relpath(doc, posixpath.dirname(page) or ".")
            return f"]({rel}{anchor})"
        return m.group(0)

    return LINK.sub(link, text)


def _cli() -> str:
    """Every ``setgames`` command with its options, from the argument parser itself."""
    from setgames.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = []
    for name, sp in sub.choices.items():
        sp.prog = f"setgames {name}"
        usage = sp.format_help().strip()
        out.append(f"### `setgames {name}`\n\n{sp.description or ''}\n\n```text\n{usage}\n```\n")
    return "\n".join(out)


def _bench_summary() -> str:
    """The throughput summary of the latest full benchmark run (``benchmarks/results/bench.json``)."""
    script = ROOT / "benchmarks" / "readme_summary.py"
    spec = importlib.util.spec_from_file_location("_readme_summary", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.summary(json.loads((ROOT / "benchmarks" / "results" / "bench.json").read_text()))


def _decktet() -> str:
    from setgames.docs import decktet_table

    return decktet_table()


def _tusac() -> str:
    from setgames.docs import tusac_table

    return tusac_table()


GENERATORS: dict[str, Callable[[], str]] = {
    "decktet-cards": _decktet,
    "tusac-cards": _tusac,
    "cli": _cli,
    "bench-summary": _bench_summary,
}


def expand(markdown: str, page: str) -> str:
    """``markdown`` of the page at ``page`` (a path under ``docs/``) with its includes and
    generated parts filled in.

    Raises:
        KeyError: a ``generate`` name that :data:`GENERATORS` does not know.
        FileNotFoundError: an ``include`` of a file that does not exist.
    """
    _checkout_first()
    markdown = INCLUDE.sub(lambda m: _included(m.group(1), page, bool(m.group(2))), markdown)
    return GENERATE.sub(lambda m: GENERATORS[m.group(1)](), markdown)


def on_files(files, config):
    """MkDocs hook: serve the repository pictures the included pages show (:data:`ASSETS`)."""
    from mkdocs.structure.files import File

    for repo_path, uri in ASSETS.items():
        files.append(File.generated(config, uri, abs_src_path=str(ROOT / repo_path)))
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    """MkDocs hook: expand the page's includes and generated parts."""
    return expand(markdown, page.file.src_uri)
