"""Which sets an active card can join, and the block bookkeeping every rule uses.

Rules applied (``tusac_env/README.md``, rules choices 16 and 21): a meld is the active card plus up to 3
private cards forming a valid set (single king, pair, triple,
king+guard+minister or rook+cannon+knight of one color, 3 or 4 pawns of
different colors); Khap cards join no set but their own Khui; a meld must not
raise the melder's trash count. The four-of-a-kind meld exists only as a Khui
(:data:`QUAD_ONLY_AS_KHUI`); an active king may be melded alone
(:data:`SINGLE_KING_MELD`).

How: every set but the mixed-color pawn sets lies in one color, and inside a
color king/guard/minister never share a set with rook/cannon/knight, so a
private block splits into nine *components* (:data:`COMPONENTS`: per color a
KGM and an RCN trio, plus the four pawns) and its trash is the sum of theirs
(the kernel's own decomposition, see :mod:`setgames.kernels.tusac`). Private
counts are 0..3 after the deal (a fourth card made a Quan), and 3 is exactly a
Khap, so a component is one base-4 code of its counts (:data:`PLACE`), Khaps
included. Every seat keeps its nine codes; the tables built here at import,
indexed by code, give a component's trash, its trash-lowering discards, and
for each active card its melds with the trash change each makes (a meld only
touches the active card's component), the cards a block wins on, and its
value. Per-step rules code reads tables instead of calling the kernel.

Each seat also keeps bit masks derived from its codes (trash-lowering
discards, claimable cards; see "block bookkeeping" below), updated where its
block changes, as is the observation prefix of every seat
(:mod:`tusac_env.observation`).
"""

from __future__ import annotations

from functools import reduce
from operator import or_
from typing import NamedTuple

from setgames.cards import NUM_TUSAC_TYPES, TUSAC_COLORS
from setgames.kernels import tusac as kern
from tusac_env.observation import LAYOUTS, build_obs
from tusac_env.state import KIND_VALUES, PUBLIC_KINDS, TuSacState

KIND_INDEX = {k: i for i, k in enumerate(PUBLIC_KINDS)}  # public set kind -> observation index

__all__ = [
    "COMPONENTS",
    "COMP_BITS",
    "COMP_CLEAN",
    "COMP_DISCARD",
    "COMP_HIGH",
    "COMP_OF",
    "COMP_TRASH",
    "COMP_VALUE",
    "COMP_ZERO",
    "KIND_INDEX",
    "LEGAL_MELDS",
    "MAX_MELD_USED",
    "MAX_PRIVATE",
    "MELDS",
    "MELD_BY_INDEX",
    "MELD_INDEX_KGM",
    "MELD_INDEX_PAIR",
    "MELD_INDEX_PAWNS3",
    "MELD_INDEX_PAWNS4",
    "MELD_INDEX_RCN",
    "MELD_INDEX_SINGLE_KING",
    "MELD_INDEX_TRIPLE",
    "MELD_OPTIONS",
    "NOT_COMP_BITS",
    "NO_VALUE",
    "NUM_MELD_ACTIONS",
    "PARTNERS",
    "PLACE",
    "QUAD_ONLY_AS_KHUI",
    "SINGLE_KING_MELD",
    "MeldInfo",
    "MeldMemo",
    "add_public",
    "after_removal",
    "block_value",
    "discard_mask",
    "drop_khap",
    "empty_caches",
    "init_seat",
    "khap_types",
    "masks_all",
    "masks_changed",
    "meld_cards",
    "meld_label",
    "meld_memo",
    "public_value",
    "put_public",
    "rebuild_caches",
    "refresh_seat",
    "remove_cards",
    "seat_caches",
    "seat_codes",
    "take_discard",
    "unseen_counts",
    "win_mask",
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
MAX_PRIVATE = 3  # most cards of a type in a private block after the deal (3 = a Khap)
MAX_MELD_USED = 3  # most private cards a meld uses: removing k cards lowers trash by at most k


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


# ---------------------------------------------------------------- component tables

COMPONENTS: tuple[tuple[int, ...], ...] = (
    *(tuple(7 * c + p for p in trio) for c in range(4) for trio in ((0, 1, 2), (3, 4, 5))),
    tuple(7 * c + 6 for c in range(4)),
)  # 8 color trios (KGM, RCN of each color) and the pawns
COMP_OF: tuple[int, ...] = tuple(
    next(k for k, comp in enumerate(COMPONENTS) if t in comp) for t in range(NUM_TUSAC_TYPES)
)  # type -> its component
PLACE: tuple[int, ...] = tuple(
    4 ** (len(COMPONENTS[COMP_OF[t]]) - 1 - COMPONENTS[COMP_OF[t]].index(t)) for t in range(NUM_TUSAC_TYPES)
)  # type -> weight of its count in its component's code (first type most significant)


def seat_codes(counts: list[int]) -> list[int]:
    """The nine component codes of a private block (counts 0..3), in :data:`COMPONENTS` order."""
    c = counts
    return [16 * c[0] + 4 * c[1] + c[2], 16 * c[3] + 4 * c[4] + c[5],
            16 * c[7] + 4 * c[8] + c[9], 16 * c[10] + 4 * c[11] + c[12],
            16 * c[14] + 4 * c[15] + c[16], 16 * c[17] + 4 * c[18] + c[19],
            16 * c[21] + 4 * c[22] + c[23], 16 * c[24] + 4 * c[25] + c[26],
            64 * c[6] + 16 * c[13] + 4 * c[20] + c[27]]


# The unrolled formula above is the generic one: checked on every unit vector.
assert all(
    seat_codes([int(t == x) for t in range(NUM_TUSAC_TYPES)])
    == [PLACE[x] if COMP_OF[x] == k else 0 for k in range(len(COMPONENTS))]
    for x in range(NUM_TUSAC_TYPES)
)


def _component_counts(k: int, code: int) -> list[int]:
    counts = [0] * NUM_TUSAC_TYPES
    for t in reversed(COMPONENTS[k]):
        code, counts[t] = divmod(code, 4)
    return counts


def _mask(types: list[int] | tuple[int, ...]) -> int:
    m = 0
    for t in types:
        m |= 1 << t
    return m


def _build_tables() -> tuple:
    """Per component and code: trash, discard mask, win mask; per active type and code: melds."""
    comp_trash, comp_discard, comp_zero, comp_clean = [], [], [], []
    meld_options: list[list[tuple[tuple[int, int], ...]]] = [[] for _ in range(NUM_TUSAC_TYPES)]
    for k, comp in enumerate(COMPONENTS):
        size = 4 ** len(comp)
        block = [_component_counts(k, code) for code in range(size)]
        khaps = [khap_types(c) for c in block]
        # The kernel itself gives every entry: other components are empty and add nothing.
        trash = tuple(kern.min_trash(c, kh) for c, kh in zip(block, khaps, strict=True))
        comp_trash.append(trash)
        comp_discard.append(tuple(_mask(kern.trash_discards(c, kh))
                                  for c, kh in zip(block, khaps, strict=True)))
        zero, clean = [], []
        for code in range(size):
            win = 0
            for a in comp:
                opts = []
                for idx, _, used in MELDS[a]:
                    if after_removal(block[code], used) is not None:
                        rest = code - sum(PLACE[u] for u in used)
                        opts.append((idx, trash[rest] - trash[code]))
                        if trash[rest] == 0:
                            win |= 1 << a
                meld_options[a].append(tuple(opts))
            zero.append(win)
            # With no trash anywhere a Khap of the card's type also wins (as a Khui).
            clean.append(win | _mask(khaps[code]))
        comp_zero.append(tuple(zero))
        comp_clean.append(tuple(clean))
    return (tuple(comp_trash), tuple(comp_discard), tuple(comp_zero), tuple(comp_clean),
            tuple(tuple(m) for m in meld_options))


COMP_TRASH, COMP_DISCARD, COMP_ZERO, COMP_CLEAN, MELD_OPTIONS = _build_tables()
# COMP_TRASH[k][code]: the component's trash. COMP_DISCARD[k][code]: bit mask of the types
# whose discard lowers it by one. COMP_ZERO[k][code]: bit mask of the active types with a
# meld leaving the component no trash; COMP_CLEAN[k][code]: the same plus the Khap types.
# MELD_OPTIONS[a][code of a's component]: ``(meld index, trash change)`` of every meld of
# active card ``a`` the block can make (cards held, no Khap broken), in meld order.
LEGAL_MELDS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(idx for idx, delta in opts if delta <= 0) for opts in per_code) for per_code in MELD_OPTIONS
)  # [a][code]: the meld indices that do not raise trash, ascending
COMP_HIGH: tuple[tuple[int, ...], ...] = tuple(
    tuple(_mask([t for t, c in zip(range(NUM_TUSAC_TYPES), _component_counts(k, code), strict=True)
                 if c == 3 or (c == 2 and t % 7 != 0)]) for code in range(4 ** len(comp)))
    for k, comp in enumerate(COMPONENTS)
)  # [k][code]: bit mask of the types held 3 times (Khui claims) or, kings apart, twice (pair claims)
NO_VALUE = -1000  # value entry of a component with trash: any sum holding one is negative
COMP_VALUE: tuple[tuple[int, ...], ...] = tuple(
    tuple(NO_VALUE if v is None else v
          for v in (kern.max_value(c, khap_types(c))
                    for c in (_component_counts(k, code) for code in range(4 ** len(comp)))))
    for k, comp in enumerate(COMPONENTS)
)  # [k][code]: best value of a trash-free component (Khaps 3 each), NO_VALUE with trash
COMP_BITS: tuple[int, ...] = tuple(_mask(comp) for comp in COMPONENTS)  # [k]: bit mask of its types
NOT_COMP_BITS: tuple[int, ...] = tuple(~m for m in COMP_BITS)  # [k]: every other bit


def block_value(codes: list[int]) -> int:
    """Best value of a private block's trash-free arrangement (Khaps included); negative
    when trash remains (the kernel's ``max_value``, summed by component)."""
    v = COMP_VALUE
    return (v[0][codes[0]] + v[1][codes[1]] + v[2][codes[2]] + v[3][codes[3]] + v[4][codes[4]]
            + v[5][codes[5]] + v[6][codes[6]] + v[7][codes[7]] + v[8][codes[8]])


class MeldInfo(NamedTuple):
    """One meld action for one active type (see :data:`MELD_BY_INDEX`)."""

    kind: str
    used: tuple[int, ...]  # private types used
    place_sum: int  # what the meld takes off the component's code
    cards: tuple[int, ...]  # the set, sorted
    tally: tuple[tuple[int, int], ...]  # (type, copies) of the set, each type once
    comp: int  # the component of the active card (and of every private card used)
    kind_index: int  # KIND_INDEX[kind]


def _tally(cards: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    return tuple((t, cards.count(t)) for t in sorted(set(cards)))


MELD_BY_INDEX: tuple[dict[int, MeldInfo], ...] = tuple(
    {idx: MeldInfo(kind, used, sum(PLACE[u] for u in used), tuple(sorted((a, *used))),
                   _tally((a, *used)), COMP_OF[a], KIND_INDEX[kind])
     for idx, kind, used in MELDS[a]}
    for a in range(NUM_TUSAC_TYPES)
)  # [active type][meld index] -> MeldInfo


def discard_mask(codes: list[int]) -> int:
    """Bit mask of the types whose single discard lowers the block's trash by one."""
    d = COMP_DISCARD
    return (d[0][codes[0]] | d[1][codes[1]] | d[2][codes[2]] | d[3][codes[3]] | d[4][codes[4]]
            | d[5][codes[5]] | d[6][codes[6]] | d[7][codes[7]] | d[8][codes[8]])


def win_mask(codes: list[int], trash: int) -> int:
    """Bit mask of the active types a block (component ``codes``, ``trash``) wins on.

    A win needs a meld of the card (or a Khui of it) leaving no trash. A meld only
    changes the card's component, so with trash left the card must be in the one
    component holding all of it (and a meld takes at most 3 cards); with none, any
    component's winning cards and the Khap types count.
    """
    if trash == 0:
        z = COMP_CLEAN
        return (z[0][codes[0]] | z[1][codes[1]] | z[2][codes[2]] | z[3][codes[3]] | z[4][codes[4]]
                | z[5][codes[5]] | z[6][codes[6]] | z[7][codes[7]] | z[8][codes[8]])
    if trash <= MAX_MELD_USED:
        for k, code in enumerate(codes):
            if COMP_TRASH[k][code] == trash:
                return COMP_ZERO[k][code]
    return 0


# ---------------------------------------------------------------- block bookkeeping
#
# Per seat the state keeps, besides codes, Khaps, trash and size: ``_ctrash`` (each
# component's trash), ``_disc`` (discard_mask), ``_high`` (types held three times, or
# twice for a non-king: Khui and pair claims), ``_win`` (win_mask) and ``_hot`` (high |
# win: the cards the seat might claim); ``_hot_any`` is the union over seats, so the
# usual no-claim case costs one test. All are kept current by the functions below and the
# discard that tusac_env.flow inlines: the only code that changes a private block.


def masks_changed(state: TuSacState, seat: int, k: int) -> None:
    """Update ``seat``'s block masks after component ``k`` of its block (and trash) changed."""
    codes = state._codes[seat]
    code = codes[k]
    bits = NOT_COMP_BITS[k]
    ctrash = state._ctrash[seat]
    ctrash[k] = COMP_TRASH[k][code]
    state._disc[seat] = (state._disc[seat] & bits) | COMP_DISCARD[k][code]
    high = state._high[seat] = (state._high[seat] & bits) | COMP_HIGH[k][code]
    _win_and_hot(state, seat, codes, ctrash, state._trash[seat], high)


def _win_and_hot(state: TuSacState, seat: int, codes: list[int], ctrash: list[int], trash: int,
                 high: int) -> None:
    """``seat``'s win mask from its codes and trash, its hot mask and the union of all."""
    if trash == 0:
        win = win_mask(codes, 0)
    elif trash <= MAX_MELD_USED and trash in ctrash:  # all trash in one component
        j = ctrash.index(trash)
        win = COMP_ZERO[j][codes[j]]
    else:
        win = 0
    state._win[seat] = win
    hot = state._hot
    hot[seat] = high | win
    union = 0
    for m in hot:  # (a loop beats functools.reduce on 2-4 items)
        union |= m
    state._hot_any = union


def masks_all(state: TuSacState) -> None:
    """Every seat's block masks from its codes and trash, and their union."""
    h, t = COMP_HIGH, COMP_TRASH
    for seat, codes in enumerate(state._codes):
        state._ctrash[seat] = [t[k][code] for k, code in enumerate(codes)]
        state._disc[seat] = discard_mask(codes)
        state._high[seat] = (h[0][codes[0]] | h[1][codes[1]] | h[2][codes[2]] | h[3][codes[3]]
                             | h[4][codes[4]] | h[5][codes[5]] | h[6][codes[6]] | h[7][codes[7]]
                             | h[8][codes[8]])
        state._win[seat] = win_mask(codes, state._trash[seat])
        state._hot[seat] = state._high[seat] | state._win[seat]
    state._hot_any = reduce(or_, state._hot)


def seat_caches(counts: list[int]) -> tuple[list[int], tuple[int, ...], int]:
    """Component codes, Khap types and trash count of a private block (counts 0..3)."""
    codes = seat_codes(counts)
    t = COMP_TRASH
    trash = (t[0][codes[0]] + t[1][codes[1]] + t[2][codes[2]] + t[3][codes[3]] + t[4][codes[4]]
             + t[5][codes[5]] + t[6][codes[6]] + t[7][codes[7]] + t[8][codes[8]])
    return codes, khap_types(counts), trash


def init_seat(state: TuSacState, seat: int) -> None:
    """Every per-seat cache of ``seat`` from its private block (counts 0..3, which
    :func:`rebuild_caches` checks), but the union ``_hot_any`` (see :func:`masks_all`)."""
    c = state.private[seat]
    k0 = 16 * c[0] + 4 * c[1] + c[2]
    r0 = 16 * c[3] + 4 * c[4] + c[5]
    k1 = 16 * c[7] + 4 * c[8] + c[9]
    r1 = 16 * c[10] + 4 * c[11] + c[12]
    k2 = 16 * c[14] + 4 * c[15] + c[16]
    r2 = 16 * c[17] + 4 * c[18] + c[19]
    k3 = 16 * c[21] + 4 * c[22] + c[23]
    r3 = 16 * c[24] + 4 * c[25] + c[26]
    p = 64 * c[6] + 16 * c[13] + 4 * c[20] + c[27]
    codes = state._codes[seat] = [k0, r0, k1, r1, k2, r2, k3, r3, p]
    T, D, H = COMP_TRASH, COMP_DISCARD, COMP_HIGH
    tk, tr = T[0], T[1]
    ct = state._ctrash[seat] = [tk[k0], tr[r0], tk[k1], tr[r1], tk[k2], tr[r2], tk[k3], tr[r3], T[8][p]]
    trash = state._trash[seat] = ct[0] + ct[1] + ct[2] + ct[3] + ct[4] + ct[5] + ct[6] + ct[7] + ct[8]
    n3 = c.count(3)  # Khaps (C-level scans: a deal holds one Khap or none, mostly)
    state._khaps[seat] = (() if not n3 else (c.index(3),) if n3 == 1
                          else tuple([t for t in range(NUM_TUSAC_TYPES) if c[t] == 3]))
    state._sizes[seat] = sum(c)
    state._disc[seat] = (D[0][k0] | D[1][r0] | D[2][k1] | D[3][r1] | D[4][k2] | D[5][r2] | D[6][k3]
                         | D[7][r3] | D[8][p])
    high = state._high[seat] = (H[0][k0] | H[1][r0] | H[2][k1] | H[3][r1] | H[4][k2] | H[5][r2]
                                | H[6][k3] | H[7][r3] | H[8][p])
    win = state._win[seat] = win_mask(codes, trash) if trash <= MAX_MELD_USED else 0
    state._hot[seat] = high | win


def refresh_seat(state: TuSacState, seat: int, trash: int | None = None) -> None:
    """Recompute ``seat``'s cached codes, Khaps, trash count, size and claim masks from its
    private block (counts 0..3). ``trash``, when given, must be the block's trash (kept for
    callers that know it)."""
    counts = state.private[seat]
    state._codes[seat], state._khaps[seat], state._trash[seat] = seat_caches(counts)
    state._sizes[seat] = sum(counts)
    masks_all(state)
    if state._obs:
        state._obs = build_obs(state)


def take_discard(state: TuSacState, seat: int, ttype: int) -> None:
    """Take one legal discard out of ``seat``'s private block (the per-step discard).

    A legal discard lowers trash by exactly one, in the card's own component,
    and is never a Khap card; the card's count is then 0 or 1, so it leaves the
    Khui/pair mask. So the Khaps stay, one code changes, and the masks are
    updated without the component tables :func:`masks_changed` reads.
    """
    counts = state.private[seat]
    c = counts[ttype] = counts[ttype] - 1
    k = COMP_OF[ttype]
    codes = state._codes[seat]
    code = codes[k] = codes[k] - PLACE[ttype]
    trash = state._trash[seat] = state._trash[seat] - 1
    size = state._sizes[seat] = state._sizes[seat] - 1
    ob = state._obs
    lay = state._lay
    ob[seat * lay.size + ttype] = c
    for i in lay.size_pos[seat]:
        ob[i] = size
    ctrash = state._ctrash[seat]
    ctrash[k] -= 1
    state._disc[seat] = (state._disc[seat] & NOT_COMP_BITS[k]) | COMP_DISCARD[k][code]
    high = state._high[seat] = state._high[seat] & ~(1 << ttype)
    _win_and_hot(state, seat, codes, ctrash, trash, high)


def remove_cards(state: TuSacState, seat: int, used: tuple[int, ...], place_sum: int, trash: int) -> None:
    """Take the cards ``used`` (all of one component, no Khap broken unless all three
    go: then call :func:`drop_khap` too) out of ``seat``'s private block, which then has
    ``trash`` trash cards."""
    counts = state.private[seat]
    for u in used:
        counts[u] -= 1
    k = COMP_OF[used[0]]
    state._codes[seat][k] -= place_sum
    state._trash[seat] = trash
    size = state._sizes[seat] = state._sizes[seat] - len(used)
    ob = state._obs
    lay = state._lay
    base = seat * lay.size
    for u in used:
        ob[base + u] = counts[u]
    for i in lay.size_pos[seat]:
        ob[i] = size
    masks_changed(state, seat, k)


def meld_cards(state: TuSacState, seat: int, info: MeldInfo, trash: int) -> None:
    """``seat`` melds the active card with private cards as ``info`` says (at least one
    card used, no Khap broken), leaving ``trash``: :func:`remove_cards` and
    :func:`put_public` in one (the per-step meld and the pair claim)."""
    kind, used, place_sum, cards, tally, k, _ = info  # (one unpack beats 6 field reads)
    counts = state.private[seat]
    ob = state._obs
    lay = state._lay
    base = seat * lay.size
    for u in used:
        c = counts[u] = counts[u] - 1
        ob[base + u] = c
    state._codes[seat][k] -= place_sum
    state._trash[seat] = trash
    size = state._sizes[seat] = state._sizes[seat] - len(used)
    for i in lay.size_pos[seat]:
        ob[i] = size
    masks_changed(state, seat, k)
    put_public(state, seat, kind, cards, tally)
    state.events.append(("meld", seat, kind, list(cards)))


def drop_khap(state: TuSacState, seat: int, ttype: int) -> None:
    """``seat``'s Khap of ``ttype`` left its private block (as a Khui): Khap caches."""
    state._khaps[seat] = tuple(t for t in state._khaps[seat] if t != ttype)
    ob = state._obs
    lay = state._lay
    ob[seat * lay.size + lay.khap_row + ttype] = 0
    k = len(state._khaps[seat])
    for i in lay.khc_pos[seat]:
        ob[i] = k


class MeldMemo(NamedTuple):
    """What a seat's private block allows with one active card (see :func:`meld_memo`).

    Attributes:
        legal: meld action indices that do not raise the seat's trash, ascending.
        after: meld index -> trash count after that meld (for the legal ones).
        wins: ``(kind, used, rest)`` of every meld leaving no trash, in meld order
            (``rest`` is the private block after it).
    """

    legal: tuple[int, ...]
    after: dict[int, int]
    wins: tuple[tuple[str, tuple[int, ...], list[int]], ...]


def meld_memo(state: TuSacState, seat: int, a: int) -> MeldMemo:
    """Every meld of active card ``a`` open to ``seat``, with the trash it leaves."""
    trash = state._trash[seat]
    opts = MELD_OPTIONS[a][state._codes[seat][COMP_OF[a]]]
    after = {idx: trash + delta for idx, delta in opts if delta <= 0}
    infos = MELD_BY_INDEX[a]
    wins = tuple(
        (infos[idx].kind, infos[idx].used, after_removal(state.private[seat], infos[idx].used))
        for idx, t in after.items() if t == 0
    )
    return MeldMemo(tuple(after), after, wins)  # type: ignore[arg-type]


def add_public(state: TuSacState, seat: int, kind: str, ttypes: list[int]) -> None:
    """Put a set into ``seat``'s public block (cards already taken from where they were)."""
    cards = tuple(sorted(ttypes))
    put_public(state, seat, kind, cards, _tally(cards))


def put_public(state: TuSacState, seat: int, kind: str, cards: tuple[int, ...],
               tally: tuple[tuple[int, int], ...]) -> None:
    """:func:`add_public` with the set already sorted and tallied (``(type, copies)`` pairs)."""
    state.public[seat].append([kind, list(cards)])
    kc = state._kind_counts[seat]
    ki = KIND_INDEX[kind]
    kc[ki] += 1
    pc, ex = state._pub_counts[seat], state._exposed
    for t, k in tally:
        pc[t] += k
        ex[t] += k
    ob = state._obs
    if ob:  # (not built yet while the deal reveals Quans)
        # (item writes: cheaper here than bytes(row) and a slice assignment per observer)
        lay = state._lay
        rows = lay.pub_pos[seat]
        for t, _ in tally:
            v = pc[t]
            for i in rows:
                ob[i + t] = v
        v = kc[ki]
        for i in lay.kind_pos[seat]:
            ob[i + ki] = v


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
    """Set every cache of ``state`` to its empty value (private blocks not yet counted:
    :func:`rebuild_caches` and the deal fill codes, Khaps, trash, sizes and claim masks in)."""
    n = state.num_players
    state._trash = [0] * n
    state._khaps = [()] * n
    state._sizes = [0] * n
    state._codes = [()] * n  # type: ignore[list-item]  # (immutable: a use before filling fails)
    state._ctrash = [[]] * n  # (a list per seat once filled)
    state._disc = [0] * n
    state._high = [0] * n
    state._win = [0] * n
    state._hot = [0] * n
    state._hot_any = 0
    state._pub_counts = [[0] * NUM_TUSAC_TYPES for _ in range(n)]
    state._kind_counts = [[0] * len(PUBLIC_KINDS) for _ in range(n)]
    state._exposed = state.dead[:]
    state._legal = None
    state._worst = None
    state._lay = LAYOUTS[n]
    state._obs = bytearray()


def rebuild_caches(state: TuSacState) -> None:
    """Recompute every cache of ``state`` from its plain fields (the legal list is
    recomputed on its next use, see :func:`tusac_env.flow.legal_actions`).

    Raises:
        ValueError: a private count outside 0..3 (four of a kind leaves at the deal).
    """
    empty_caches(state)
    for s in range(state.num_players):
        counts = state.private[s]
        if len(counts) != NUM_TUSAC_TYPES or max(counts) > MAX_PRIVATE or min(counts) < 0:
            raise ValueError(f"seat {s}'s private counts {counts} are not {NUM_TUSAC_TYPES} counts in "
                             f"0..{MAX_PRIVATE}")
        init_seat(state, s)
        for kind, ttypes in state.public[s]:
            state._kind_counts[s][KIND_INDEX[kind]] += 1
            for t in ttypes:
                state._pub_counts[s][t] += 1
                state._exposed[t] += 1
    state._hot_any = reduce(or_, state._hot)
    state._obs = build_obs(state)
