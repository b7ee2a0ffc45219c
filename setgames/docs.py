"""Regenerate the generated parts of the documentation from the code.

``python -m setgames.docs`` rewrites the observation table (between the
``observation-table`` markers, from the game's :class:`~setgames.spec.ObsSpec`), the
other observation modes' tables (``observation-table:<mode>`` markers, from
``game.obs_specs``), the per-action feature table (``action-features-table``, from
``game.action_spec``) and the action table (between the ``action-table`` markers, from its
:class:`~setgames.actions.ActionLayout`) in each game's README, and redraws the
pictures of the documentation (``docs/img/<game>.svg``: a position of a seeded
game between greedy bots, from :func:`docs_picture`); ``--check`` only reports
drift and exits 1 when a file differs, for CI and tests. The documentation
site's build (``docs/hooks.py``) also calls :func:`decktet_table` and
:func:`tusac_table` for the card tables of the game pages.
"""


from __future__ import annotations

import argparse
import importlib
import re
import sys
from pathlib import Path

import numpy as np

from setgames.cards import decktet_table
from setgames.registry import GAME_NAMES, game_class, part

__all__ = [
    "ACTION_BEGIN",
    "ACTION_END",
    "decktet_table",
    "docs_picture",
    "picture_path",
    "readme_path",
    "sync_picture",
    "sync_readme",
    "tusac_table",
]

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
    from setgames.spec import (
        ACTION_FEATURES_BEGIN,
        ACTION_FEATURES_END,
        README_BEGIN,
        README_END,
        mode_markers,
    )

    new = _replace(old, README_BEGIN, README_END, game.obs_spec.markdown_table())
    new = _replace(new, ACTION_BEGIN, ACTION_END, game.layout.markdown_table())
    # Every other observation mode's table and the action feature row's, where the README has
    # their markers (setgames.spec.mode_markers, ACTION_FEATURES_BEGIN).
    for mode, spec in sorted(getattr(game, "obs_specs", {}).items()):
        if mode != "cards":
            new = _replace(new, *mode_markers(mode), spec.markdown_table())
    if getattr(game, "action_spec", None) is not None:
        new = _replace(new, ACTION_FEATURES_BEGIN, ACTION_FEATURES_END, game.action_spec.markdown_table())
    if new != old and not check:
        path.write_text(new, encoding="utf-8")
    return new != old


DOCS_IMG = Path(__file__).resolve().parents[1] / "docs" / "img"


def picture_path(game_name: str) -> Path:
    """Where the documentation's picture of ``game_name`` lives (``docs/img/<game>.svg``)."""
    return DOCS_IMG / f"{game_name}.svg"


def docs_picture(game_name: str) -> str:
    """The SVG of the documentation's position of ``game_name`` (its descriptor's
    ``docs_picture``): a seeded deal, a few moves of the greedy bots, drawn for a spectator
    with the legal moves outlined.

    >>> from setgames.registry import game_names
    >>> docs_picture(game_names()[0]).startswith("<svg")
    True
    """
    from setgames.bots import make_bot
    from setgames.draw import draw_state
    from setgames.registry import make_game

    config, seed, moves = part(game_name, "docs_picture")
    game = make_game(game_name, **config)
    state = game.new_state(np.random.default_rng(seed))
    bots = [make_bot("greedy", game_name, seed=seed + k) for k in range(game.num_players)]
    for _ in range(moves):
        if game.is_over(state):
            break
        seat = game.current_seat(state)
        game.apply(state, bots[seat].act(game, state, seat))
    legal = None if game.is_over(state) else game.legal_actions(state)
    return draw_state(game, state, seat=None, legal=legal).svg


def sync_picture(game_name: str, check: bool = False) -> bool:
    """Bring ``docs/img/<game>.svg`` in line with :func:`docs_picture`; True when it was (``check``:
    would be) changed."""
    path = picture_path(game_name)
    new = docs_picture(game_name)
    old = path.read_text(encoding="utf-8") if path.exists() else None
    if new != old and not check:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(new, encoding="utf-8")
    return new != old


def tusac_table() -> str:
    """The Markdown table of the chess cards' 28 types (``ttype = color * 7 + piece``).

    >>> tusac_table().splitlines()[2]
    '| red | 0 | 1 | 2 | 3 | 4 | 5 | 6 |'
    """
    from setgames import cards

    lines = ["| colour | " + " | ".join(cards.TUSAC_PIECES) + " |", "|---" + "|--:" * 7 + "|"]
    for color, name in enumerate(cards.TUSAC_COLORS):
        lines.append(f"| {name} | " + " | ".join(str(cards.tusac_type(color, p)) for p in range(7)) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: rewrite (or ``--check``) every game's README tables."""
    parser = argparse.ArgumentParser(prog="python -m setgames.docs", description=__doc__)
    parser.add_argument("--check", action="store_true", help="report drift, change nothing")
    parser.add_argument("games", nargs="*", default=list(GAME_NAMES))
    args = parser.parse_args(argv)
    drift = []
    for name in args.games:
        if sync_readme(name, check=args.check):
            drift.append(readme_path(name))
        pictured = part(name, "docs_picture") is not None and DOCS_IMG.parent.is_dir()
        if pictured and sync_picture(name, check=args.check):
            drift.append(picture_path(name))
    verb = "differs from the code" if args.check else "updated"
    for path in drift:
        print(f"{path}: {verb}")
    return 1 if (drift and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
