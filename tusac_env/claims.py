"""Automatic claims on a newly active card, in priority order.

Rules applied (``tusac_env/README.md``, rules choice 20), checked every time a card
becomes active (discarded or hit), never when a card is passed on
(:data:`RECHECK_AFTER_PASS` is False):

1. **Win**: a player (never the discarder) who can meld the card so that their
   private block has no trash melds it and wins; the current player is checked
   first, then the others in turn order. When a player can win in several
   ways, the meld giving the highest hand value is used.
2. **Khap -> Khui**: the owner of a Khap of the card's type (whoever they are,
   current player and hitter included) melds the four cards as a Khui.
3. **Pair**: a player other than the current player holding two cards of the
   type melds the three as a triple, unless the card is a king, the meld would
   raise their trash count, or they hold a *waiting hand*: exactly 2 trash
   cards that are two pawns of different colors, or two of rook, cannon and
   knight of one color (:data:`WAITING_SAME_COLOR`).

A Khui or pair claimer becomes the current player and discards.
"""

from __future__ import annotations

from setgames.kernels import tusac as kern
from tusac_env.melds import (
    COMP_OF,
    COMP_TRASH,
    COMP_VALUE,
    COMPONENTS,
    MAX_MELD_USED,
    MELD_BY_INDEX,
    MELD_INDEX_TRIPLE,
    MELD_OPTIONS,
    PLACE,
    block_value,
    drop_khap,
    meld_cards,
    public_value,
    put_public,
    remove_cards,
)
from tusac_env.scoring import finish_win
from tusac_env.state import (
    KIND_VALUES,
    PHASE_DISCARD,
    TuSacConfig,
    TuSacState,
)

__all__ = [
    "RECHECK_AFTER_PASS",
    "WAITING_PAIRS",
    "WAITING_SAME_COLOR",
    "claim",
    "is_waiting_hand",
    "resolve_claims",
    "win_meld",
]

RECHECK_AFTER_PASS = False  # lead's choice: a passed card did not newly become active
WAITING_SAME_COLOR = True  # lead's choice: rook/cannon/knight waiting pairs must share a color


def _waiting_pairs() -> tuple[tuple[int, int], ...]:
    pawns = [c * 7 + 6 for c in range(4)]
    out = [(pawns[i], pawns[j]) for i in range(4) for j in range(i + 1, 4)]
    for c in range(4):
        r, k, n = c * 7 + 3, c * 7 + 4, c * 7 + 5
        out += [(r, k), (r, n), (k, n)]
    return tuple(out)


WAITING_PAIRS = _waiting_pairs()  # the two-trash waiting hands that block pair priority


def is_waiting_hand(counts: list[int], khaps: tuple[int, ...], trash: int) -> bool:
    """True when the private block's 2 trash cards can be one of the waiting pairs."""
    if trash != 2:
        return False
    for x, y in WAITING_PAIRS:
        if counts[x] and counts[y] and counts[x] != 3 and counts[y] != 3:
            rest = counts[:]
            rest[x] -= 1
            rest[y] -= 1
            if kern.min_trash(rest, khaps) == 0:
                return True
    return False


def _waiting_table() -> tuple[tuple[bool, ...], ...]:
    # [k][code]: a waiting pair lies in component k's non-Khap cards and leaves it no trash.
    table = []
    for k, comp in enumerate(COMPONENTS):
        pairs = [(x, y) for x, y in WAITING_PAIRS if x in comp and y in comp]
        row = []
        for code in range(4 ** len(comp)):
            digit = {t: code // PLACE[t] % 4 for t in comp}
            row.append(any(
                digit[x] in (1, 2) and digit[y] in (1, 2) and COMP_TRASH[k][code - PLACE[x] - PLACE[y]] == 0
                for x, y in pairs))
        table.append(tuple(row))
    return tuple(table)


_WAITING = _waiting_table()
_TRIPLE = tuple(MELD_BY_INDEX[a][MELD_INDEX_TRIPLE] for a in range(len(MELD_BY_INDEX)))  # pair claims


def _is_waiting(state: TuSacState, seat: int) -> bool:
    """:func:`is_waiting_hand` of ``seat`` from its codes: its 2 trash cards all lie in one
    component, where a waiting pair takes them all."""
    if state._trash[seat] != 2:
        return False
    for k, code in enumerate(state._codes[seat]):
        if COMP_TRASH[k][code] == 2:
            return _WAITING[k][code]
    return False


# Seats in claim order (the current seat first) for each (number of players, current seat).
_ORDERS = {(n, cur): tuple((cur + i) % n for i in range(n)) for n in (2, 3, 4) for cur in range(n)}


def win_meld(state: TuSacState, seat: int, a: int) -> tuple[int, str, tuple[int, ...]] | None:
    """The best winning meld of active card ``a`` for ``seat``: ``(hand value, kind, used)``.

    None when no meld leaves ``seat``'s private block without trash. The value of
    what a meld leaves is the block's value with the card's component changed
    (:func:`~tusac_env.melds.block_value`, negative while trash remains); ties go
    to the first in meld order, a Khui (on a Khap, with no trash) first of all.
    """
    trash = state._trash[seat]
    if trash > MAX_MELD_USED:
        return None
    codes = state._codes[seat]
    k = COMP_OF[a]
    code = codes[k]
    values = COMP_VALUE[k]
    base = block_value(codes) - values[code]  # the other components
    best_v = -1
    best_kind = ""
    best_used: tuple[int, ...] = ()
    if state.private[seat][a] == 3 and trash == 0:
        best_v = KIND_VALUES["khui"] + base + values[code - 3 * PLACE[a]]
        best_kind, best_used = "khui", (a, a, a)
    infos = MELD_BY_INDEX[a]
    for idx, _ in MELD_OPTIONS[a][code]:
        info = infos[idx]
        rest = base + values[code - info.place_sum]
        if rest < 0:  # trash left
            continue
        v = KIND_VALUES[info.kind] + rest
        if v > best_v:
            best_v, best_kind, best_used = v, info.kind, info.used
    if best_v < 0:
        return None
    return public_value(state, seat) + best_v, best_kind, best_used


def resolve_claims(state: TuSacState, config: TuSacConfig, exclude: int) -> bool:
    """Run the claims on the card that just became active; True when one was made.

    ``exclude`` is the discarder (-1 for a hit card). On a claim the state moves
    to the claimer (discard phase) or ends with a win; otherwise it is unchanged.
    Any claim needs a seat whose claim mask (``_hot``, kept by
    :mod:`tusac_env.melds`) holds the card: the union of the masks answers the
    usual no-claim case in one test.
    """
    if state._hot_any >> state.active & 1:
        return claim(state, config, exclude)
    return False


def claim(state: TuSacState, config: TuSacConfig, exclude: int) -> bool:
    """:func:`resolve_claims` past its quick test: the claims in priority order."""
    a = state.active
    cur = state.current
    hot = state._hot
    # The seats that might claim, in claim order (a seat's hot mask holds all its claims).
    seats = []
    for s in _ORDERS[state.num_players, cur]:
        if hot[s] >> a & 1 and s != exclude:
            seats.append(s)
    private, wins = state.private, state._win
    for s in seats:
        if not wins[s] >> a & 1:
            continue
        w = win_meld(state, s, a)
        assert w is not None  # the win mask and win_meld agree
        _, kind, used = w
        state.events.append(("claim", s, "win", a))
        state.last_claim = ["win", s]
        how, src = state.active_how, state.active_from
        cards = sorted([a, *used])
        if used:
            remove_cards(state, s, used, sum(PLACE[u] for u in used), 0)
        if kind == "khui":
            drop_khap(state, s, a)
        put_public(state, s, kind, tuple(cards), tuple((t, cards.count(t)) for t in sorted(set(cards))))
        state.events.append(("meld", s, kind, cards))
        state.active = -1
        finish_win(state, config, s, a, how, src)
        return True
    for s in seats:
        if private[s][a] == 3:
            state.events.append(("claim", s, "khui", a))
            state.last_claim = ["khui", s]
            remove_cards(state, s, (a, a, a), 3 * PLACE[a], state._trash[s])  # a Khap is never trash
            drop_khap(state, s, a)
            put_public(state, s, "khui", (a, a, a, a), ((a, 4),))
            state.events.append(("meld", s, "khui", [a, a, a, a]))
            _to_claimer(state, s)
            return True
    if a % 7 == 0:  # pair priority never takes a king
        return False
    for s in seats:
        if s == cur or private[s][a] != 2:
            continue
        trash = state._trash[s]
        k = COMP_OF[a]
        code = state._codes[s][k]
        after = trash + COMP_TRASH[k][code - 2 * PLACE[a]] - COMP_TRASH[k][code]
        if after > trash or (trash == 2 and _is_waiting(state, s)):
            return False  # only one seat can hold a pair of the type
        state.events.append(("claim", s, "pair", a))
        state.last_claim = ["pair", s]
        meld_cards(state, s, _TRIPLE[a], after)
        _to_claimer(state, s)
        return True
    return False


def _to_claimer(state: TuSacState, seat: int) -> None:
    state.active = -1
    state.active_from = -1
    state.active_how = 0
    state.active_passed = False
    state.current = seat
    state.phase = PHASE_DISCARD
