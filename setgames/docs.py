"""Regenerate the generated tables in each game's README from the code.

``python -m setgames.docs`` rewrites the observation table (between the
``observation-table`` markers, from the game's :class:`~setgames.spec.ObsSpec`)
and the action table (between the ``action-table`` markers, from its
:class:`~setgames.actions.ActionLayout`); ``--check`` only reports drift
and exits 1 when a README differs, for CI and tests.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from pathlib import Path

from setgames.registry import GAME_NAMES, game_class

__all__ = ["ACTION_BEGIN", "ACTION_END", "readme_path", "sync_readme"]

ACTION_BEGIN = "<!-- action-table:begin -->"
ACTION_END = "<!-- action-table:end -->"


def readme_path(game_name: str) -> Path:
    """Path of the README of game ``game_name``'s package."""
    mod = importlib.import_module(game_class(game_name).__module__.split(".")[0])
    return Path(mod.__file__).with_name("README.md")


def _replace(text: str, begin: str, end: str, body: str) -> str:
    pat = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if not pat.search(text):
        return text
    return pat.sub(lambda _: f"{begin}\n{body}\n{end}", text)


def sync_readme(game_name: str, check: bool = False, **config: object) -> bool:
    """Bring a game's README tables in line with its code (default config).

    Returns True when the README was (``check``: would be) changed.
    """
    game = game_class(game_name)(**config)
    path = readme_path(game_name)
    old = path.read_text(encoding="utf-8")
    from setgames.spec import README_BEGIN, README_END

    new = _replace(old, README_BEGIN, README_END, game.obs_spec.markdown_table())
    new = _replace(new, ACTION_BEGIN, ACTION_END, game.layout.markdown_table())
    if new != old and not check:
        path.write_text(new, encoding="utf-8")
    return new != old


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: rewrite (or ``--check``) every game's README tables."""
    parser = argparse.ArgumentParser(prog="python -m setgames.docs", description=__doc__)
    parser.add_argument("--check", action="store_true", help="report drift, change nothing")
    parser.add_argument("games", nargs="*", default=list(GAME_NAMES))
    args = parser.parse_args(argv)
    drift = []
    for name in args.games:
        if sync_readme(name, check=args.check):
            drift.append(name)
    if drift:
        verb = "differs from the code" if args.check else "updated"
        for name in drift:
            print(f"{readme_path(name)}: {verb}")
    return 1 if (drift and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
