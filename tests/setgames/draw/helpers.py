"""Shared by the games' drawing tests: positions, what a picture shows, golden files."""

from __future__ import annotations

import os
import random
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

from setgames.game import rng_from_seed

NS = "{http://www.w3.org/2000/svg}"
# Set SETGAMES_UPDATE_GOLDEN=1 to rewrite the golden files after a deliberate change of a picture.
UPDATE = os.environ.get("SETGAMES_UPDATE_GOLDEN") == "1"


def position(game: Any, seed: int, steps: int, stop_at_seat: int | None = None) -> Any:
    """The state after ``steps`` random legal moves (fewer if the game ends), or the
    first state after that where ``stop_at_seat`` is to act."""
    state = game.new_state(rng_from_seed(seed))
    rng = random.Random(seed)
    k = 0
    while not game.is_over(state):
        if k >= steps and (stop_at_seat is None or game.current_seat(state) == stop_at_seat):
            break
        game.apply(state, rng.choice(game.legal_actions(state)))
        k += 1
    return state


def shown_cards(svg: str) -> Counter:
    """Card ids the picture shows face up, with multiplicity."""
    root = ET.fromstring(svg)
    return Counter(int(g.get("data-card")) for g in root.iter(f"{NS}g") if g.get("class") == "card")


def move_ids(svg: str) -> list[int]:
    """The action ids of the picture's clickable moves, in drawing order."""
    root = ET.fromstring(svg)
    return [int(g.get("data-action")) for g in root.iter(f"{NS}g") if g.get("class") == "move"]


def check_golden(svg: str, path: Path) -> None:
    """``svg`` equals the golden file at ``path`` (written when updating)."""
    if UPDATE or not path.exists():
        if not UPDATE:
            raise AssertionError(f"no golden file {path}; run with SETGAMES_UPDATE_GOLDEN=1 to write it")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(svg, encoding="utf-8")
    assert svg == path.read_text(encoding="utf-8"), f"{path.name} changed; look at it, then update"
