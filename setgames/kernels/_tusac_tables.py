"""Generators of the Tu Sac trash and value tables (``tusac_env/README.md``, rules choices 16 and 18).

Every valid Tu Sac set but the mixed-colour pawn sets lies inside one colour,
and inside a colour the king/guard/minister cards never share a set with the
rook/cannon/knight cards. A private block therefore splits into nine
independent *components*: per colour a KGM half (king, guard, minister) and
an RCN half (rook, cannon, knight), plus one pawn component (the four pawn
counts). Trash, best value and the trash-lowering discards of a block are sums
(unions) over its components, so each component is solved once here for all of
its count vectors (125 or 625 of them) by a memoised search, and the kernels
combine them.

Component codes are base-5 with the first count most significant
(``code = code * 5 + count``), the pgx convention.

>>> kgm = solve_component(KGM_PATTERNS)
>>> kgm.trash[code_of((1, 1, 0))], kgm.trash[code_of((1, 1, 1))]
(1, 0)
>>> kgm.value[code_of((2, 0, 0))], kgm.arrangement[code_of((2, 0, 0))]
(2, (('king', (0,)), ('king', (0,))))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations, product
from operator import ge, sub

__all__ = [
    "KGM_PATTERNS",
    "PAWN_PATTERNS",
    "RCN_PATTERNS",
    "SET_VALUES",
    "Component",
    "Pattern",
    "code_of",
    "solve_component",
]

MAX_COUNT = 4  # copies of each Tu Sac card type

# Set values for the hand value, tusac_env/README.md, rules choice 22 ("every other set 1").
SET_VALUES = {
    "king": 1,
    "pair": 0,
    "triple": 1,
    "quad": 1,
    "khap": 3,
    "kgm": 1,
    "rcn": 1,
    "pawns3": 1,
    "pawns4": 2,
}


@dataclass(frozen=True)
class Pattern:
    """One valid set inside a component: its kind and per-position card counts."""

    kind: str
    counts: tuple[int, ...]

    @property
    def value(self) -> int:
        """Hand value of the set."""
        return SET_VALUES[self.kind]


def _identical(n: int) -> list[Pattern]:
    """Pairs, triples and quads of each position of an ``n``-position component."""
    out = []
    for i in range(n):
        for size, kind in ((2, "pair"), (3, "triple"), (4, "quad")):
            out.append(Pattern(kind, tuple(size if j == i else 0 for j in range(n))))
    return out


# KGM half: positions king, guard, minister of one colour.
KGM_PATTERNS: tuple[Pattern, ...] = (
    Pattern("king", (1, 0, 0)),
    *_identical(3),
    Pattern("kgm", (1, 1, 1)),
)
# RCN half: positions rook, cannon, knight of one colour.
RCN_PATTERNS: tuple[Pattern, ...] = (*_identical(3), Pattern("rcn", (1, 1, 1)))
# Pawn component: positions = the pawn of each colour (red, yellow, green, white).
PAWN_PATTERNS: tuple[Pattern, ...] = (
    *_identical(4),
    *(Pattern("pawns3", tuple(int(j in trio) for j in range(4))) for trio in combinations(range(4), 3)),
    Pattern("pawns4", (1, 1, 1, 1)),
)


def code_of(counts: Sequence[int]) -> int:
    """Base-5 code of a component's counts, first count most significant.

    >>> code_of((1, 0, 2))
    27
    """
    code = 0
    for c in counts:
        code = code * 5 + c
    return code


@dataclass(frozen=True)
class Component:
    """Solved tables of one component, indexed by ``code_of(counts)``.

    Attributes:
        trash: minimum number of trash cards.
        value: highest value of a trash-free arrangement (0 when trash remains).
        arrangement: one highest-value trash-free arrangement as (kind, positions)
            pairs, () when trash remains.
        discard_mask: bit ``i`` set when removing one card of position ``i``
            lowers the trash by one.
    """

    n: int
    trash: tuple[int, ...]
    value: tuple[int, ...]
    arrangement: tuple[tuple[tuple[str, tuple[int, ...]], ...], ...]
    discard_mask: tuple[int, ...]


def solve_component(patterns: Sequence[Pattern]) -> Component:
    """Solve a component for every count vector by memoised search.

    The first card position still held is either trash or in some set holding
    it; trying both over all sets covers every partition.
    """
    n = len(patterns[0].counts)
    zero = (0,) * n
    # Per first position i: (counts, value, (kind, positions)) of the sets holding i.
    holding = [
        [
            (p.counts, p.value, (p.kind, tuple(j for j, c in enumerate(p.counts) for _ in range(c))))
            for p in patterns
            if p.counts[i]
        ]
        for i in range(n)
    ]

    @cache
    def trash(v: tuple[int, ...]) -> int:
        if v == zero:
            return 0
        i = next(j for j, c in enumerate(v) if c)
        best = 1 + trash((*v[:i], v[i] - 1, *v[i + 1 :]))
        for counts, _, _ in holding[i]:
            if all(map(ge, v, counts)):
                best = min(best, trash(tuple(map(sub, v, counts))))
        return best

    @cache
    def best(v: tuple[int, ...]) -> tuple[int, tuple] | None:
        # (value, arrangement) of the best exact cover of v by sets, None if none.
        if v == zero:
            return 0, ()
        i = next(j for j, c in enumerate(v) if c)
        top = None
        for counts, value, named in holding[i]:
            if all(map(ge, v, counts)):
                rest = best(tuple(map(sub, v, counts)))
                if rest is not None and (top is None or value + rest[0] > top[0]):
                    top = (value + rest[0], (named, *rest[1]))
        return top

    trash_t, value_t, arr_t, disc_t = [], [], [], []
    for v in product(range(MAX_COUNT + 1), repeat=n):
        t = trash(v)
        b = best(v)
        trash_t.append(t)
        value_t.append(b[0] if b is not None else 0)
        arr_t.append(b[1] if b is not None else ())
        mask = 0
        for i in range(n):
            if v[i] and trash((*v[:i], v[i] - 1, *v[i + 1 :])) == t - 1:
                mask |= 1 << i
        disc_t.append(mask)
    return Component(n, tuple(trash_t), tuple(value_t), tuple(arr_t), tuple(disc_t))
