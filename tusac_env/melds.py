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

from typing import NamedTuple

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
    "MeldMemo",
    "add_public",
    "after_removal",
    "empty_caches",
    "meld_label",
    "meld_memo",
    "rebuild_caches",
    "refresh_seat",
    "take_discard",
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
    if 3 not in counts:  # the usual case, answered at C speed
        return ()
    return tuple(t for t in range(NUM_TUSAC_TYPES) if counts[t] == 3)


def _private_changed(state: TuSacState, seat: int) -> None:
    # Everything cached on ``seat``'s private block goes stale together.
    state._own_obs[seat] = None
    state._sizes_obs = None
    state._memo[seat] = {}


def refresh_seat(state: TuSacState, seat: int, trash: int | None = None) -> None:
    """Recompute ``seat``'s cached Khaps, trash count and size after its private block changed."""
    counts = state.private[seat]
    khaps = khap_types(counts)
    state._khaps[seat] = khaps
    state._trash[seat] = kern.min_trash(counts, khaps) if trash is None else trash
    state._sizes[seat] = sum(counts)
    _private_changed(state, seat)


def take_discard(state: TuSacState, seat: int, ttype: int) -> None:
    """Take one legal discard out of ``seat``'s private block.

    Cheaper than :func:`refresh_seat`: a legal discard lowers trash by exactly
    one and is never a Khap card, so the Khaps stay and no kernel call is needed.
    """
    state.private[seat][ttype] -= 1
    state._trash[seat] -= 1
    state._sizes[seat] -= 1
    _private_changed(state, seat)


class MeldMemo(NamedTuple):
    """What a seat's private block allows with one active card (see :func:`meld_memo`).

    Attributes:
        legal: meld action indices that do not raise the seat's trash, ascending.
        after: meld index -> trash count after that meld (for the legal ones).
        wins: ``(kind, used, rest)`` of every meld leaving no trash, in meld order
            (``rest`` is the private block after it; never mutated).
    """

    legal: tuple[int, ...]
    after: dict[int, int]
    wins: tuple[tuple[str, tuple[int, ...], list[int]], ...]


def meld_memo(state: TuSacState, seat: int, a: int) -> MeldMemo:
    """Every meld of active card ``a`` open to ``seat``, with the trash it leaves.

    Memoized per seat until its private block changes: the current seat's
    claim check and its legal actions on the same card share one evaluation,
    and a type seen again by the same seat costs a dict lookup.
    """
    memo = state._memo[seat]
    m = memo.get(a)
    if m is not None:
        return m
    counts = state.private[seat]
    khaps = state._khaps[seat]
    trash = state._trash[seat]
    legal: list[int] = []
    after_of: dict[int, int] = {}
    wins = []
    for idx, kind, used in MELDS[a]:
        for u in used:  # most melds lack a card: reject them before copying the block
            if not counts[u]:
                break
        else:
            rest = after_removal(counts, used)
            if rest is None:
                continue
            after = kern.min_trash(rest, khaps) if used else trash
            if after <= trash:
                legal.append(idx)
                after_of[idx] = after
                if after == 0:
                    wins.append((kind, used, rest))
    m = memo[a] = MeldMemo(tuple(legal), after_of, tuple(wins))
    return m


def add_public(state: TuSacState, seat: int, kind: str, ttypes: list[int]) -> None:
    """Put a set into ``seat``'s public block (cards already taken from where they were)."""
    ttypes = sorted(ttypes)
    state.public[seat].append([kind, ttypes])
    kc = state._kind_counts[seat]
    kc[KIND_INDEX[kind]] += 1
    pc, ex = state._pub_counts[seat], state._exposed
    for t in ttypes:
        pc[t] += 1
        ex[t] += 1
    obs = state._public_obs
    if obs is not None:  # splice this seat's rows into the observation piece: cheaper than a rebuild
        c, k = obs
        i, j = seat * NUM_TUSAC_TYPES, seat * len(PUBLIC_KINDS)
        state._public_obs = (c[:i] + bytes(pc) + c[i + NUM_TUSAC_TYPES:],
                             k[:j] + bytes(kc) + k[j + len(PUBLIC_KINDS):])


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


def empty_caches(state: TuSacState) -> None:
    """Set every cache of ``state`` to its empty value (public blocks, Khaps and trash
    not yet counted: :func:`rebuild_caches` and the deal fill them in)."""
    n = state.num_players
    state._trash = [0] * n
    state._khaps = [()] * n
    state._sizes = [sum(p) for p in state.private]
    state._pub_counts = [[0] * NUM_TUSAC_TYPES for _ in range(n)]
    state._kind_counts = [[0] * len(PUBLIC_KINDS) for _ in range(n)]
    state._exposed = state.dead[:]
    state._legal = None
    state._meld_trash = {}
    state._worst = None
    state._memo = [{} for _ in range(n)]
    state._own_obs = [None] * n
    state._public_obs = None
    state._sizes_obs = None


def rebuild_caches(state: TuSacState) -> None:
    """Recompute every cache of ``state`` from its plain fields."""
    empty_caches(state)
    for s in range(state.num_players):
        refresh_seat(state, s)
        for kind, ttypes in state.public[s]:
            state._kind_counts[s][KIND_INDEX[kind]] += 1
            for t in ttypes:
                state._pub_counts[s][t] += 1
                state._exposed[t] += 1
