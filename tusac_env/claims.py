"""Automatic claims on a newly active card, in priority order.

Rules applied (``RULINGS.md`` section 4 "Claims"), checked every time a card
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
    MELDS,
    PARTNERS,
    add_public,
    after_removal,
    meld_memo,
    public_value,
    refresh_seat,
)
from tusac_env.scoring import finish_win
from tusac_env.state import (
    KIND_VALUES,
    PHASE_DISCARD,
    TuSacConfig,
    TuSacState,
)

__all__ = ["RECHECK_AFTER_PASS", "WAITING_PAIRS", "WAITING_SAME_COLOR", "resolve_claims", "win_meld"]

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


# MAX_USED[a]: most private cards a meld of active card a uses. Removing k cards lowers
# trash by at most k, so a seat whose trash exceeds this cannot win on a (claim filter).
MAX_USED: tuple[int, ...] = tuple(max(len(used) for _, _, used in MELDS[a]) for a in range(len(MELDS)))
# Seats in claim order (the current seat first) for each (number of players, current seat).
_ORDERS = {(n, cur): tuple((cur + i) % n for i in range(n)) for n in (2, 3, 4) for cur in range(n)}


def win_meld(state: TuSacState, seat: int, a: int) -> tuple[int, str, tuple[int, ...]] | None:
    """The best winning meld of active card ``a`` for ``seat``: ``(hand value, kind, used)``.

    None when no meld leaves ``seat``'s private block without trash. A meld uses at
    most 3 private cards and removing k cards lowers trash by at most k, so seats
    with more than 3 trash are skipped without a kernel call. When ``seat``'s
    :func:`~tusac_env.melds.meld_memo` for ``a`` exists its winning melds are
    reused; otherwise only the melds using at least ``trash`` cards are tried.
    """
    trash = state._trash[seat]
    if trash > 3:
        return None
    counts = state.private[seat]
    khaps = state._khaps[seat]
    best_v = -1
    best_kind = ""
    best_used: tuple[int, ...] = ()
    if counts[a] == 3 and trash == 0:
        rest = counts[:]
        rest[a] = 0
        k2 = tuple(t for t in khaps if t != a)
        best_v = KIND_VALUES["khui"] + kern.max_value(rest, k2)
        best_kind, best_used = "khui", (a, a, a)
    memo = state._memo[seat].get(a)
    if memo is not None:
        cands = memo.wins
    else:
        cands = []
        for _, kind, used in MELDS[a]:
            if len(used) >= trash and all(counts[u] for u in used):
                rest = after_removal(counts, used)
                if rest is not None:
                    cands.append((kind, used, rest))
    for kind, used, rest in cands:
        mv = kern.max_value(rest, khaps)
        if mv is None:
            continue
        v = KIND_VALUES[kind] + mv
        if v > best_v:
            best_v, best_kind, best_used = v, kind, used
    if best_v < 0:
        return None
    return public_value(state, seat) + best_v, best_kind, best_used


def _apply_meld(state: TuSacState, seat: int, a: int, kind: str, used: tuple[int, ...],
                trash: int | None) -> None:
    counts = state.private[seat]
    for t in used:
        counts[t] -= 1
    add_public(state, seat, kind, [a, *used])
    refresh_seat(state, seat, trash)
    state.events.append(("meld", seat, kind, sorted([a, *used])))


def resolve_claims(state: TuSacState, config: TuSacConfig, exclude: int) -> bool:
    """Run the claims on the card that just became active; True when one was made.

    ``exclude`` is the discarder (-1 for a hit card). On a claim the state moves
    to the claimer (discard phase) or ends with a win; otherwise it is unchanged.
    """
    a = state.active
    cur = state.current
    order = _ORDERS[state.num_players, cur]
    trash_of, private = state._trash, state.private
    partners = PARTNERS[a]
    king = a % 7 == 0
    max_trash = MAX_USED[a]
    for s in order:
        if s == exclude or trash_of[s] > max_trash:
            continue
        counts = private[s]
        if not king:
            for u in partners:
                if counts[u]:
                    break
            else:
                continue  # holds none of the cards a meld of ``a`` would use
        if s == cur:
            # The current seat's legal actions will need every meld of ``a`` if no
            # claim is made: evaluate them once, for both.
            meld_memo(state, s, a)
        w = win_meld(state, s, a)
        if w is not None:
            _, kind, used = w
            state.events.append(("claim", s, "win", a))
            state.last_claim = ["win", s]
            how, src = state.active_how, state.active_from
            _apply_meld(state, s, a, kind, used, 0)
            state.active = -1
            finish_win(state, config, s, a, how, src)
            return True
    for s in order:
        if s != exclude and state.private[s][a] == 3:
            state.events.append(("claim", s, "khui", a))
            state.last_claim = ["khui", s]
            state.private[s][a] = 0
            add_public(state, s, "khui", [a, a, a, a])
            refresh_seat(state, s, state._trash[s])  # a Khap is never trash
            state.events.append(("meld", s, "khui", [a, a, a, a]))
            _to_claimer(state, s)
            return True
    if a % 7 == 0:  # pair priority never takes a king
        return False
    for s in order:
        if s in (exclude, cur) or state.private[s][a] != 2:
            continue
        counts = state.private[s]
        trash = state._trash[s]
        rest = counts[:]
        rest[a] = 0
        after = kern.min_trash(rest, state._khaps[s])
        if after > trash or is_waiting_hand(counts, state._khaps[s], trash):
            return False  # only one seat can hold a pair of the type
        state.events.append(("claim", s, "pair", a))
        state.last_claim = ["pair", s]
        _apply_meld(state, s, a, "triple", (a, a), after)
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

