"""The Tu Sac turn flow: deal, legal actions, and what each action does.

Rules applied (``tusac_env/README.md``, rules choices 17, 18, 19 and 21):

- deal 20 cards to each player, 21 to the first; Quans go public at once; every
  player's Khap count is announced;
- the first player discards, or wins at once when their private block has no trash;
- a discard must lower the discarder's trash count by one; it becomes the active
  card and the next player becomes the current player;
- the current player facing a card someone else exposed melds it or hits; after
  a hit, melds it or passes; a passed card stays active for the next player;
- claims (:mod:`tusac_env.claims`) run on every discarded or hit card;
- after a meld the melder wins when their private block has no trash, else discards;
- hitting with only :data:`~tusac_env.state.DRAW_LIMIT` cards left in the draw
  pile ends the game in a draw.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import reduce
from operator import or_

import numpy as np

from setgames.cards import NUM_TUSAC_TYPES
from setgames.kernels import tusac as kern
from tusac_env.claims import claim
from tusac_env.layout import DISCARD0, HIT, PASS
from tusac_env.melds import (
    COMP_OF,
    COMP_TRASH,
    LEGAL_MELDS,
    MELD_BY_INDEX,
    empty_caches,
    init_seat,
    meld_cards,
    put_public,
    take_discard,
    unseen_counts,
)
from tusac_env.observation import build_obs
from tusac_env.scoring import finish_draw, finish_win
from tusac_env.state import (
    DRAW_LIMIT,
    EXPOSED_BY_DISCARD,
    EXPOSED_BY_HIT,
    EXPOSED_NONE,
    FIRST_DEAL,
    HAND_SIZE,
    PHASE_AFTER_HIT,
    PHASE_DISCARD,
    PHASE_OVER,
    PHASE_RESPOND,
    TuSacConfig,
    TuSacState,
)

__all__ = ["apply_action", "deal", "legal_actions", "legal_now", "make_apply", "start", "worst_cards"]

# The legal actions facing an active card, by [active type][code of its component]:
# the melds that do not raise trash, then hit (phase RESPOND) or pass (AFTER_HIT).
# (Lists, handed out as copies: a list slice is the cheapest fresh list.)
_RESPOND_LEGAL = tuple(tuple([*legal, HIT] for legal in per_code) for per_code in LEGAL_MELDS)
_AFTER_HIT_LEGAL = tuple(tuple([*legal, PASS] for legal in per_code) for per_code in LEGAL_MELDS)
# Discard actions of the set bits of one color's 7-bit slice of a type mask, per color.
_DISCARDS_OF = tuple(
    tuple(tuple(DISCARD0 + 7 * c + p for p in range(7) if m >> p & 1) for m in range(128)) for c in range(4)
)


def _trio_others(t: int) -> tuple[int, int] | None:
    c, p = divmod(t, 7)
    if p == 6:
        return None
    trio = (0, 1, 2) if p < 3 else (3, 4, 5)
    y, z = (7 * c + q for q in trio if q != p)
    return y, z


# Per non-pawn type: the two other members of its same-color trio (None for pawns).
_TRIO_OTHERS = tuple(_trio_others(t) for t in range(NUM_TUSAC_TYPES))
# Per discard action: (type, trio partners y, z), or (type, -1, color) for a pawn.
_OUTS_OF = (*((-1, -1, -1),) * DISCARD0, *(
    (t, *others) if (others := _TRIO_OTHERS[t]) else (t, -1, t // 7) for t in range(NUM_TUSAC_TYPES)))


# The deck as card types, in the order rng.permutation(112) would index it: shuffling
# this draws the very numbers permutation() draws (it is arange + shuffle), so seeds
# give the same deals as ``(rng.permutation(112) // 4)`` (tests/tusac/test_tables.py
# checks the equality).
_DECK_TYPES = (np.arange(NUM_TUSAC_TYPES * 4) // 4).astype(np.uint8)
# Per number of players: the dealt cards' offsets ``28 * i`` for the i-th seat dealt to
# (21 cards to the first, 20 to each other): added to the shuffled types, one bincount
# counts every private block at once (fewer instructions than a Python counting loop).
_DEAL_KEYS = {
    n: np.array([0] * FIRST_DEAL + [NUM_TUSAC_TYPES * i for i in range(1, n) for _ in range(HAND_SIZE)],
                dtype=np.uint8)
    for n in (2, 3, 4)
}
assert NUM_TUSAC_TYPES * 4 <= 256  # the largest sum, 28 * 3 + 27, fits a uint8
_bincount = np.bincount
# Seats in dealing order from the first, per (number of players, first seat).
_DEAL_ORDER = {n: tuple(tuple((first + i) % n for i in range(n)) for first in range(n)) for n in (2, 3, 4)}


def deal(config: TuSacConfig, rng: np.random.Generator) -> TuSacState:
    """Shuffle and deal a new game (the first seat is drawn first when random)."""
    n = config.num_players
    first = int(rng.integers(n)) if config.first_player == "random" else int(config.first_player)
    shuffled = _DECK_TYPES.copy()
    rng.shuffle(shuffled)
    keys = _DEAL_KEYS[n]
    dealt = len(keys)
    c = _bincount(shuffled[:dealt] + keys, minlength=NUM_TUSAC_TYPES * n).tolist()
    private: list[list[int]] = [[]] * n
    for i, seat in enumerate(_DEAL_ORDER[n][first]):
        private[seat] = c[NUM_TUSAC_TYPES * i:NUM_TUSAC_TYPES * (i + 1)]
    state = TuSacState(
        num_players=n, first=first, private=private, public=[[] for _ in range(n)],
        dead=[0] * NUM_TUSAC_TYPES, draw=shuffled[dealt:].tolist(), current=first, phase=PHASE_DISCARD,
    )
    return start(state, config)


def start(state: TuSacState, config: TuSacConfig) -> TuSacState:
    """Reveal Quans, announce Khaps and let the first player win or discard.

    ``state`` holds freshly dealt private blocks (four of a kind allowed) and
    empty public blocks; hand-built test positions go through here too.
    """
    n = state.num_players
    empty_caches(state)
    private = state.private
    events = state.events
    seats = _DEAL_ORDER[n][state.first]
    events += [("deal", seat, sum(private[seat])) for seat in seats]
    for seat in seats:
        counts = private[seat]
        if 4 not in counts:  # most deals hold no Quan: skip the scan
            continue
        for t in range(NUM_TUSAC_TYPES):
            if counts[t] == 4:
                counts[t] = 0
                put_public(state, seat, "quan", (t, t, t, t), ((t, 4),))
                events.append(("quan", seat, t))
    khaps = state._khaps
    for seat in seats:
        init_seat(state, seat)
    events += [("khaps", seat, len(khaps[seat])) for seat in seats]
    state._hot_any = reduce(or_, state._hot)
    state._obs = build_obs(state)
    state.current = state.first
    state.phase = PHASE_DISCARD
    if state._trash[state.first] == 0:
        finish_win(state, config, state.first, -1, EXPOSED_NONE, -1)
    else:
        state._legal = _discard_legal(state._disc[state.first])
    return state


def _discard_legal(m: int) -> list[int]:
    """The discards of a block's discard mask (``_disc``), as sorted actions."""
    a = _DISCARDS_OF
    return [*a[0][m & 127], *a[1][m >> 7 & 127], *a[2][m >> 14 & 127], *a[3][m >> 21]]


def legal_now(state: TuSacState) -> list[int]:
    """The current seat's legal actions, sorted, computed afresh."""
    phase = state.phase
    cur = state.current
    if phase == PHASE_DISCARD:
        return _discard_legal(state._disc[cur])
    if phase == PHASE_OVER:
        return []
    a = state.active
    table = _RESPOND_LEGAL if phase == PHASE_RESPOND else _AFTER_HIT_LEGAL
    return table[a][state._codes[cur][COMP_OF[a]]][:]


def legal_actions(state: TuSacState) -> list[int]:
    """Sorted legal action ids of the current seat (kept on the state, ``_legal``)."""
    legal = state._legal
    if legal is None:
        legal = state._legal = legal_now(state)
    return legal


def worst_cards(state: TuSacState) -> list[int]:
    """The current seat's worst discards (fewest outs among its legal discards).

    Only meaningful in the discard phase; cached until the next action.
    """
    worst = state._worst
    if worst is not None:
        return worst
    legal = state._legal
    if legal is None:
        legal = legal_actions(state)
    if len(legal) <= 1:
        # The lone candidate is the worst whatever its outs.
        worst = [x - DISCARD0 for x in legal]
    else:
        cur = state.current
        if state.active >= 0:  # never while discarding; the kernel covers it exactly
            worst = kern.worst_discards(state.private[cur], unseen_counts(state, cur), state._khaps[cur])
        else:
            worst = _fewest_outs(state.private[cur], state._exposed, legal)
    state._worst = worst
    return worst


_HELD = (False, True, True, False)  # private count -> held outside a Khap (3 is a Khap)


def _fewest_outs(counts: list[int], exposed: list[int], legal: list[int]) -> list[int]:
    """The types of the ``legal`` discards with the fewest outs (as
    :func:`setgames.kernels.tusac.outs`), with no active card: a type's unseen
    count is 4 - own - exposed, and a Khap card completes nothing."""
    low = 99
    worst: list[int] = []
    pawn_outs: tuple[int, ...] = ()
    for x in legal:
        t, y, z = _OUTS_OF[x]
        if y < 0:  # a pawn
            if not pawn_outs:
                pawn_outs = _pawn_outs(counts, exposed)
            o = pawn_outs[z]
        else:
            o = 4 - counts[t] - exposed[t]
            if _HELD[counts[z]]:
                o += 4 - counts[y] - exposed[y]
            if _HELD[counts[y]]:
                o += 4 - counts[z] - exposed[z]
        if o < low:
            low = o
            worst = [t]
        elif o == low:
            worst.append(t)
    return worst


def _pawn_outs(counts: list[int], exposed: list[int]) -> tuple[int, int, int, int]:
    """Outs of each color's pawn, when held: its own unseen copies, plus the unseen
    pawns of the colors not held when two colors are held, or every unseen pawn
    when three or four are (any other color then makes three pawns)."""
    u0, u1 = 4 - counts[6] - exposed[6], 4 - counts[13] - exposed[13]
    u2, u3 = 4 - counts[20] - exposed[20], 4 - counts[27] - exposed[27]
    h0, h1, h2, h3 = _HELD[counts[6]], _HELD[counts[13]], _HELD[counts[20]], _HELD[counts[27]]
    held = h0 + h1 + h2 + h3
    if held >= 3:
        every = u0 + u1 + u2 + u3
        return every, every, every, every
    if held == 2:
        missing = (0 if h0 else u0) + (0 if h1 else u1) + (0 if h2 else u2) + (0 if h3 else u3)
        return u0 + missing, u1 + missing, u2 + missing, u3 + missing
    return u0, u1, u2, u3


def apply_action(state: TuSacState, config: TuSacConfig, action: int) -> None:
    """Play legal ``action`` for the current seat, then run every automatic consequence."""
    make_apply(config)(state, action)


def make_apply(config: TuSacConfig) -> Callable[[TuSacState, int], tuple[float, ...] | None]:
    """``apply(state, action)`` under ``config``: play legal ``action`` for the current seat,
    run every automatic consequence and leave the next legal list on the state; returns
    the per-seat rewards when the game ends, else None. (A closure: the per-step entry
    point, called once a step.)"""

    def apply(state: TuSacState, action: int) -> tuple[float, ...] | None:
        """Play legal ``action``; the per-seat rewards when this ends the game, else None."""
        cur = state.current
        if action >= DISCARD0:
            t = action - DISCARD0
            worst = state._worst
            if worst is None:
                worst = worst_cards(state)
            state.discard_worst = t in worst
            take_discard(state, cur, t)
            state.events.append(("discard", cur, t))
            state._worst = None
            state.active, state.active_from, state.active_how = t, cur, EXPOSED_BY_DISCARD
            state.active_passed = False
            nxt = state.current = (cur + 1) % state.num_players
            state.phase = PHASE_RESPOND
            if state._hot_any >> t & 1 and claim(state, config, cur):
                return _after_claim(state)
            state._legal = _RESPOND_LEGAL[t][state._codes[nxt][COMP_OF[t]]][:]
            return None
        if action == HIT:
            draw = state.draw
            if len(draw) <= DRAW_LIMIT:
                state.events.append(("hit", cur, -1, state.active))
                state._worst = None
                finish_draw(state)
                return tuple(state.returns)
            old = state.active
            v = state.dead[old] = state.dead[old] + 1
            state._exposed[old] += 1
            ob = state._obs
            for i in state._lay.dead_pos:
                ob[i + old] = v
            new = draw.pop()
            state.events.append(("hit", cur, new, old))
            state._worst = None
            state.active, state.active_from, state.active_how = new, cur, EXPOSED_BY_HIT
            state.active_passed = False
            state.phase = PHASE_AFTER_HIT
            if state._hot_any >> new & 1 and claim(state, config, -1):
                return _after_claim(state)
            state._legal = _AFTER_HIT_LEGAL[new][state._codes[cur][COMP_OF[new]]][:]
            return None
        if action == PASS:
            a = state.active
            state.events.append(("pass", cur, a))
            state._worst = None
            nxt = state.current = (cur + 1) % state.num_players
            state.phase = PHASE_RESPOND
            state.active_passed = True
            state._legal = _RESPOND_LEGAL[a][state._codes[nxt][COMP_OF[a]]][:]
            return None
        # a meld chosen by the current player
        legal = state._legal
        if legal is None:
            legal = legal_actions(state)
        if action not in legal:
            raise ValueError(f"meld action {action!r} is not legal here; legal: {legal}")
        a = state.active
        info = MELD_BY_INDEX[a][action]
        k = COMP_OF[a]
        codes = state._codes[cur]
        code = codes[k]
        after = state._trash[cur] + COMP_TRASH[k][code - info.place_sum] - COMP_TRASH[k][code]
        if info.used:
            meld_cards(state, cur, info, after)
        else:  # a king alone
            put_public(state, cur, info.kind, info.cards, info.tally)
            state.events.append(("meld", cur, info.kind, list(info.cards)))
        how, src = state.active_how, state.active_from
        state._worst = None
        state.active, state.active_from, state.active_how, state.active_passed = -1, -1, 0, False
        if after == 0:
            finish_win(state, config, cur, a, how, src)
            return tuple(state.returns)
        state.phase = PHASE_DISCARD
        state._legal = _discard_legal(state._disc[cur])
        return None

    return apply


def _after_claim(state: TuSacState) -> tuple[float, ...] | None:
    # A claim ended the game (a win) or hands the turn to the claimer, who discards.
    if state.phase == PHASE_OVER:
        return tuple(state.returns)
    state._legal = _discard_legal(state._disc[state.current])
    return None
