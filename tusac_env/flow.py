"""The Tu Sac turn flow: deal, legal actions, and what each action does.

Rules applied (``RULINGS.md`` section 4 "Players", "Blocks", "Flow"):

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

import numpy as np

from setgames.cards import NUM_TUSAC_TYPES
from setgames.kernels import tusac as kern
from tusac_env.claims import resolve_claims
from tusac_env.layout import DISCARD0, HIT, PASS
from tusac_env.melds import (
    MELDS,
    add_public,
    empty_caches,
    meld_memo,
    refresh_seat,
    take_discard,
    unseen_counts,
)
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

__all__ = ["apply_action", "deal", "legal_actions", "start", "worst_cards"]

# MELD_BY_INDEX[active type][meld index] -> (kind, used private types)
MELD_BY_INDEX: tuple[dict[int, tuple[str, tuple[int, ...]]], ...] = tuple(
    {idx: (kind, used) for idx, kind, used in MELDS[a]} for a in range(NUM_TUSAC_TYPES)
)


def deal(config: TuSacConfig, rng: np.random.Generator) -> TuSacState:
    """Shuffle and deal a new game (the first seat is drawn first when random)."""
    n = config.num_players
    first = int(rng.integers(n)) if config.first_player == "random" else int(config.first_player)
    deck = (rng.permutation(NUM_TUSAC_TYPES * 4) // 4).tolist()
    private = [[0] * NUM_TUSAC_TYPES for _ in range(n)]
    pos = 0
    for i in range(n):
        seat = (first + i) % n
        size = FIRST_DEAL if i == 0 else HAND_SIZE
        for t in deck[pos:pos + size]:
            private[seat][t] += 1
        pos += size
    state = TuSacState(
        num_players=n, first=first, private=private, public=[[] for _ in range(n)],
        dead=[0] * NUM_TUSAC_TYPES, draw=deck[pos:], current=first, phase=PHASE_DISCARD,
    )
    return start(state, config)


def start(state: TuSacState, config: TuSacConfig) -> TuSacState:
    """Reveal Quans, announce Khaps and let the first player win or discard.

    ``state`` holds freshly dealt private blocks (four of a kind allowed) and
    empty public blocks; hand-built test positions go through here too.
    """
    n = state.num_players
    empty_caches(state)
    for i in range(n):
        seat = (state.first + i) % n
        state.events.append(("deal", seat, sum(state.private[seat])))
    for i in range(n):
        seat = (state.first + i) % n
        counts = state.private[seat]
        if 4 not in counts:  # most deals hold no Quan: skip the scan
            continue
        for t in range(NUM_TUSAC_TYPES):
            if counts[t] == 4:
                counts[t] = 0
                add_public(state, seat, "quan", [t] * 4)
                state.events.append(("quan", seat, t))
    for i in range(n):
        seat = (state.first + i) % n
        refresh_seat(state, seat)
        state.events.append(("khaps", seat, len(state._khaps[seat])))
    state.current = state.first
    state.phase = PHASE_DISCARD
    if state._trash[state.first] == 0:
        finish_win(state, config, state.first, -1, EXPOSED_NONE, -1)
    return state


def legal_actions(state: TuSacState) -> list[int]:
    """Sorted legal action ids of the current seat (cached until the next action)."""
    legal = state._legal
    if legal is not None:
        return legal
    phase = state.phase
    cur = state.current
    if phase == PHASE_DISCARD:
        legal = [DISCARD0 + t for t in kern.trash_discards(state.private[cur], state._khaps[cur])]
    elif phase == PHASE_OVER:
        legal = []
    else:
        m = meld_memo(state, cur, state.active)
        legal = [*m.legal, HIT if phase == PHASE_RESPOND else PASS]
        state._meld_trash = m.after  # shared with the memo: only ever read
    state._legal = legal
    return legal


def worst_cards(state: TuSacState) -> list[int]:
    """The current seat's worst discards (fewest outs among its legal discards).

    Only meaningful in the discard phase; cached until the next action.
    """
    if state._worst is None:
        legal = legal_actions(state)
        if len(legal) <= 1:
            # The legal discards are the kernel's candidates: with one, it is the worst
            # whatever its outs, and the outs need not be counted.
            state._worst = [x - DISCARD0 for x in legal]
        else:
            cur = state.current
            state._worst = kern.worst_discards(
                state.private[cur], unseen_counts(state, cur), state._khaps[cur]
            )
    return state._worst


def apply_action(state: TuSacState, config: TuSacConfig, action: int) -> None:
    """Play legal ``action`` for the current seat, then run every automatic consequence."""
    cur = state.current
    n = state.num_players
    if action >= DISCARD0:
        t = action - DISCARD0
        state.discard_worst = t in worst_cards(state)
        take_discard(state, cur, t)
        state.events.append(("discard", cur, t))
        _clear(state)
        state.active, state.active_from, state.active_how = t, cur, EXPOSED_BY_DISCARD
        state.active_passed = False
        state.current = (cur + 1) % n
        state.phase = PHASE_RESPOND
        resolve_claims(state, config, cur)
        return
    if action == HIT:
        if len(state.draw) <= DRAW_LIMIT:
            state.events.append(("hit", cur, -1, state.active))
            _clear(state)
            finish_draw(state)
            return
        old = state.active
        state.dead[old] += 1
        state._exposed[old] += 1
        new = state.draw.pop()
        state.events.append(("hit", cur, new, old))
        _clear(state)
        state.active, state.active_from, state.active_how = new, cur, EXPOSED_BY_HIT
        state.active_passed = False
        state.phase = PHASE_AFTER_HIT
        resolve_claims(state, config, -1)
        return
    if action == PASS:
        state.events.append(("pass", cur, state.active))
        _clear(state)
        state.current = (cur + 1) % n
        state.phase = PHASE_RESPOND
        state.active_passed = True
        return
    # a meld chosen by the current player
    if action not in state._meld_trash:
        state._legal = None
        legal_actions(state)
    a = state.active
    kind, used = MELD_BY_INDEX[a][action]
    after = state._meld_trash[action]
    counts = state.private[cur]
    for u in used:
        counts[u] -= 1
    add_public(state, cur, kind, [a, *used])
    refresh_seat(state, cur, after)
    state.events.append(("meld", cur, kind, sorted([a, *used])))
    how, src = state.active_how, state.active_from
    _clear(state)
    state.active, state.active_from, state.active_how, state.active_passed = -1, -1, 0, False
    if after == 0:
        finish_win(state, config, cur, a, how, src)
        return
    state.phase = PHASE_DISCARD


def _clear(state: TuSacState) -> None:
    state._legal = None
    state._meld_trash = {}
    state._worst = None

