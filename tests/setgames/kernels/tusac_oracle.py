"""A brute-force Tu Sac oracle written from the rule text only, shared by the tests.

It never imports the code under test: it lists every valid Tu Sac set over the
28 types (``tusac_env/README.md``, rules choice 16) and searches the whole count vector (no colour
split, no tables): the first card still held is either trash or in some valid
set holding it.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

N = 28
KING, GUARD, MINISTER, ROOK, CANNON, KNIGHT, PAWN = range(7)
RED, YELLOW, GREEN, WHITE = range(4)


def tt(color: int, piece: int) -> int:
    return color * 7 + piece


def _vec(types: list[int]) -> tuple[int, ...]:
    v = [0] * N
    for t in types:
        v[t] += 1
    return tuple(v)


def _all_sets() -> list[tuple[str, int, tuple[int, ...]]]:
    """(kind, value, count vector) of every valid set, straight from the rule text."""
    sets = []
    for c in range(4):
        sets.append(("king", 1, _vec([tt(c, KING)])))
        sets.append(("kgm", 1, _vec([tt(c, KING), tt(c, GUARD), tt(c, MINISTER)])))
        sets.append(("rcn", 1, _vec([tt(c, ROOK), tt(c, CANNON), tt(c, KNIGHT)])))
    for t in range(N):
        sets.append(("pair", 0, _vec([t] * 2)))
        sets.append(("triple", 1, _vec([t] * 3)))
        sets.append(("quad", 1, _vec([t] * 4)))
    pawns = [tt(c, PAWN) for c in range(4)]
    for trio in combinations(pawns, 3):
        sets.append(("pawns3", 1, _vec(list(trio))))
    sets.append(("pawns4", 2, _vec(pawns)))
    return sets


ALL_SETS = _all_sets()
SET_KINDS = {(kind, tuple(t for t in range(N) for _ in range(v[t]))) for kind, _, v in ALL_SETS}
SET_VALUE = {kind: value for kind, value, _ in ALL_SETS} | {"khap": 3}


def _fits(s: tuple[int, ...], v: tuple[int, ...]) -> bool:
    return all(a <= b for a, b in zip(s, v, strict=True))


def _minus(v: tuple[int, ...], s: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(a - b for a, b in zip(v, s, strict=True))


@cache
def oracle_trash(v: tuple[int, ...]) -> int:
    if not any(v):
        return 0
    i = next(j for j in range(N) if v[j])
    best = 1 + oracle_trash(_minus(v, _vec([i])))
    for _, _, s in ALL_SETS:
        if s[i] and _fits(s, v):
            best = min(best, oracle_trash(_minus(v, s)))
    return best


@cache
def oracle_value(v: tuple[int, ...]) -> int | None:
    """Best value of an exact cover of v by valid sets, None if there is none."""
    if not any(v):
        return 0
    i = next(j for j in range(N) if v[j])
    best = None
    for _, value, s in ALL_SETS:
        if s[i] and _fits(s, v):
            rest = oracle_value(_minus(v, s))
            if rest is not None and (best is None or value + rest > best):
                best = value + rest
    return best
