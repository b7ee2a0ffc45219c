"""Which sets an active card can join, and the block bookkeeping every rule uses.

Rules applied (``RULINGS.md`` section 4): a meld is the active card plus up to 3
private cards forming a valid set (single king, pair, triple,
king+guard+minister or rook+cannon+knight of one color, 3 or 4 pawns of
different colors); Khap cards join no set but their own Khui; a meld must not
raise the melder's trash count. The four-of-a-kind meld exists only as a Khui
(:data:`QUAD_ONLY_AS_KHUI`); an active king may be melded alone
(:data:`SINGLE_KING_MELD`).

Per-step code reads the tables built here at import (:data:`MELDS`); the trash
counts come from :mod:`setgames.kernels.tusac` and are cached per seat, since a
private block changes only when its owner melds or discards.
"""

from __future__ import annotations

from setgames.cards import NUM_TUSAC_TYPES, TUSAC_COLORS
from setgames.kernels import tusac as kern
from tusac_env.state import KIND_VALUES, PUBLIC_KINDS, TuSacState

KIND_INDEX = {k: i for i, k in enumerate(PUBLIC_KINDS)}  # public set kind -> observation index

__all__ = [
    "MELDS",
    "MELD_INDEX_KGM",
    "MELD_INDEX_PAIR",
    "MELD_INDEX_PAWNS3",
    "MELD_INDEX_PAWNS4",
    "MELD_INDEX_RCN",
    "MELD_INDEX_SINGLE_KING",
    "MELD_INDEX_TRIPLE",
    "NUM_MELD_ACTIONS",
    "QUAD_ONLY_AS_KHUI",
    "SINGLE_KING_MELD",
    "add_public",
    "after_removal",
    "meld_label",
    "rebuild_caches",
    "refresh_seat",
    "unseen_counts",
]

SINGLE_KING_MELD = True  # lead's choice: an active king may be melded alone (0 private cards)
QUAD_ONLY_AS_KHUI = True  # lead's choice: active + 3 identical private cards only as a Khui

# Index of each meld action within the meld actions (see tusac_env.rules.LAYOUT).
MELD_INDEX_SINGLE_KING = 0
MELD_INDEX_PAIR = 1
MELD_INDEX_TRIPLE = 2
MELD_INDEX_KGM = 3  # + color of the active card
MELD_INDEX_RCN = 7  # + color of the active card
MELD_INDEX_PAWNS3 = 11  # + the pawn color missing from the set
MELD_INDEX_PAWNS4 = 15
NUM_MELD_ACTIONS = 16


def meld_label(i: int) -> str:
    """Readable label of meld action index ``i`` (0..15)."""
    if i == MELD_INDEX_SINGLE_KING:
        return "meld single king"
    if i == MELD_INDEX_PAIR:
        return "meld pair"
    if i == MELD_INDEX_TRIPLE:
        return "meld triple"
    if MELD_INDEX_KGM <= i < MELD_INDEX_RCN:
        return f"meld {TUSAC_COLORS[i - MELD_INDEX_KGM]} king+guard+minister"
    if MELD_INDEX_RCN <= i < MELD_INDEX_PAWNS3:
        return f"meld {TUSAC_COLORS[i - MELD_INDEX_RCN]} rook+cannon+knight"
    if MELD_INDEX_PAWNS3 <= i < MELD_INDEX_PAWNS4:
        return f"meld three pawns without {TUSAC_COLORS[i - MELD_INDEX_PAWNS3]}"
    if i == MELD_INDEX_PAWNS4:
        return "meld four pawns"
    raise ValueError(f"meld index {i!r} is not 0..{NUM_MELD_ACTIONS - 1}")


def _build_melds() -> tuple[tuple[tuple[int, str, tuple[int, ...]], ...], ...]:
    """Per active type: ``(meld index, kind, private types used)`` of every meld action."""
    table = []
    for a in range(NUM_TUSAC_TYPES):
        c, p = divmod(a, 7)
        base = c * 7
        opts: list[tuple[int, str, tuple[int, ...]]] = []
        if p == 0 and SINGLE_KING_MELD:
            opts.append((MELD_INDEX_SINGLE_KING, "king", ()))
        opts.append((MELD_INDEX_PAIR, "pair", (a,)))
        opts.append((MELD_INDEX_TRIPLE, "triple", (a, a)))
        if p <= 2:
            opts.append((MELD_INDEX_KGM + c, "kgm", tuple(base + q for q in (0, 1, 2) if q != p)))
        elif p <= 5:
            opts.append((MELD_INDEX_RCN + c, "rcn", tuple(base + q for q in (3, 4, 5) if q != p)))
        else:
            for m in range(4):
                if m != c:
                    others = tuple(d * 7 + 6 for d in range(4) if d not in (c, m))
                    opts.append((MELD_INDEX_PAWNS3 + m, "pawns3", others))
            opts.append((MELD_INDEX_PAWNS4, "pawns4", tuple(d * 7 + 6 for d in range(4) if d != c)))
        table.append(tuple(opts))
    return tuple(table)


MELDS = _build_melds()  # MELDS[active type] -> ((meld index, kind, used private types), ...)
# PARTNERS[a]: the private types any meld of active card a uses (a seat holding none of
# them can only meld a king alone).
PARTNERS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted({t for _, _, used in MELDS[a] for t in used})) for a in range(NUM_TUSAC_TYPES)
)


def after_removal(counts: list[int], used: tuple[int, ...]) -> list[int] | None:
    """``counts`` minus the cards ``used``; None when a card is missing or belongs to a Khap."""
    out = counts[:]
    for t in used:
        if out[t] == 3:  # a Khap is never broken
            return None
        out[t] -= 1
        if out[t] < 0:
            return None
    return out


def khap_types(counts: list[int]) -> tuple[int, ...]:
    """Types held exactly three times (Khaps: private blocks only lose cards after the deal)."""
    return tuple(t for t in range(NUM_TUSAC_TYPES) if counts[t] == 3)


def refresh_seat(state: TuSacState, seat: int, trash: int | None = None) -> None:
    """Recompute ``seat``'s cached Khaps and trash count after its private block changed."""
    counts = state.private[seat]
    state._head.clear()
    khaps = khap_types(counts)
    state._khaps[seat] = khaps
    state._trash[seat] = kern.min_trash(counts, khaps) if trash is None else trash


def add_public(state: TuSacState, seat: int, kind: str, ttypes: list[int]) -> None:
    """Put a set into ``seat``'s public block (cards already taken from where they were)."""
    ttypes = sorted(ttypes)
    state._head.clear()
    state.public[seat].append([kind, ttypes])
    state._kind_counts[seat][KIND_INDEX[kind]] += 1
    pc, ex = state._pub_counts[seat], state._exposed
    for t in ttypes:
        pc[t] += 1
        ex[t] += 1


def unseen_counts(state: TuSacState, seat: int) -> list[int]:
    """Cards of each type ``seat`` has not seen: 4 minus own private, every public
    block, the dead pile and the active card."""
    own, ex, a = state.private[seat], state._exposed, state.active
    out = [4 - own[t] - ex[t] for t in range(NUM_TUSAC_TYPES)]
    if a >= 0:
        out[a] -= 1
    return out


def public_value(state: TuSacState, seat: int) -> int:
    """Sum of the set values of ``seat``'s public block."""
    return sum(KIND_VALUES[kind] for kind, _ in state.public[seat])


def rebuild_caches(state: TuSacState) -> None:
    """Recompute every cache of ``state`` from its plain fields."""
    n = state.num_players
    state._trash = [0] * n
    state._khaps = [()] * n
    state._pub_counts = [[0] * NUM_TUSAC_TYPES for _ in range(n)]
    state._kind_counts = [[0] * len(PUBLIC_KINDS) for _ in range(n)]
    state._exposed = state.dead[:]
    for s in range(n):
        refresh_seat(state, s)
        for kind, ttypes in state.public[s]:
            state._kind_counts[s][KIND_INDEX[kind]] += 1
            for t in ttypes:
                state._pub_counts[s][t] += 1
                state._exposed[t] += 1
    state._legal = None
    state._meld_trash = {}
    state._worst = None
    state._head = {}
