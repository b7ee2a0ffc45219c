"""The ``structure`` observation mode and the per-action features: the set core's reading
of a Tu Sac position, from the observer's knowledge only (the Python reference).

The structure vector is the ``cards`` vector (:mod:`tusac_env.observation`) followed by
the block of :func:`structure_features`: per own card type its trash, outs, worst and
settled facts, the nine components' trash, the cards the block wins on and the pair /
Khui facts (own and what the others may claim of a discard), and the standing of every
seat from its public block. Every count of "outs" is over the cards the observer has
NOT seen (``tusac_env/README.md``, rules choice 25: 4 copies minus own private, every
public block, the dead pile and the active card), never the true hidden cards: a
re-deal of what the observer has not seen (``game.determinize``) leaves it unchanged.

Facts, not decisions: nothing here is a bot's move or its evaluation of one. The facts
come from the set kernels (:mod:`setgames.kernels.tusac`: trash, discards, outs, worst
discards) and the rules layer's own helpers (:func:`tusac_env.melds.unseen_counts`,
:func:`tusac_env.claims.is_waiting_hand`, :data:`tusac_env.melds.MELDS`); the compiled
copy (``tusac_env/_engine.pyx``, ``ts_structure``) reads the engine's tables and is held
to this module by ``tests/tusac/test_structure.py``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from setgames.cards import NUM_TUSAC_TYPES
from setgames.kernels import tusac as kern
from setgames.spec import Feature, ObsSpec
from tusac_env.claims import is_waiting_hand
from tusac_env.layout import DISCARD0, HIT, PASS
from tusac_env.melds import (
    COMP_OF,
    COMPONENTS,
    MELD_BY_INDEX,
    MELDS,
    after_removal,
    khap_types,
    unseen_counts,
)
from tusac_env.observation import make_obs_spec
from tusac_env.state import FIRST_DEAL, KIND_VALUES, PHASE_DISCARD, PHASE_OVER, TuSacState

__all__ = [
    "ACTION_KINDS",
    "MELD_KINDS",
    "action_features",
    "make_action_spec",
    "make_structure_observe",
    "make_structure_spec",
    "structure_block",
    "structure_features",
]

NT = NUM_TUSAC_TYPES
CAP = 127  # int8's top: the few sums that could pass it in a freak game are capped
MAX_OUTS = 16  # a held card's outs: its own 3 other copies and 4 + 4 trio partners (11), or 13 pawns
MAX_COMP_TRASH = 8  # four pawns held twice each
MELD_KINDS = ("king", "pair", "triple", "kgm", "rcn", "pawns3", "pawns4")
ACTION_KINDS = ("meld", "hit", "pass", "discard")


def structure_features(n: int) -> list[Feature]:
    """The structure block's features for ``n`` players (relative seats as in ``cards``)."""
    return [
        Feature("unseen", (NT,), 4, "copies of each type you have not seen (4 minus own private, every "
                "public block, the dead pile and the active card)"),
        Feature("trash_types", (NT,), 1, "1 for each own type whose discard lowers your trash by one"),
        Feature("outs", (NT,), MAX_OUTS, "per own non-Khap type: unseen cards that, as the active card, "
                "meld a set with it (its outs)"),
        Feature("worst_types", (NT,), 1, "1 for each of your trash-lowering types with the fewest outs "
                "(in every phase)"),
        Feature("settled", (NT,), 1, "1 for each own non-Khap type whose component (see comp_trash) has "
                "no trash: its cards are in complete sets"),
        Feature("comp_trash", (len(COMPONENTS),), MAX_COMP_TRASH, "trash of each component of your private "
                "block (per color king/guard/minister, rook/cannon/knight, in color order; then the pawns)"),
        Feature("win_types", (NT,), 1, "1 for each type that, as the active card, would win you the game "
                "(a meld or Khui leaving no trash)"),
        Feature("win_outs", (), CAP, "unseen copies of the win_types (capped at 127)"),
        Feature("waiting", (), 1, "1 when your hand is waiting (2 trash cards forming a waiting pair): "
                "you cannot pair-claim"),
        Feature("pair_types", (NT,), 1, "1 for each own type held twice, kings apart (a pair claim, "
                "or a triple meld, on it)"),
        Feature("khui_outs", (), 7, "unseen copies of your Khap types (each a Khui for you)"),
        Feature("pair_threat", (NT,), 1, "1 for each non-king type of which 2 or more copies are unseen "
                "and 3 or more players: another player may pair-claim it"),
        Feature("khui_threat", (NT,), 1, "1 for each type of which 3 copies are unseen while another "
                "player holds a Khap: they may Khui it"),
        Feature("public_value", (n,), CAP, "value of each player's public block (relative seat; set values "
                "of rules choice 22, capped at 127)"),
        Feature("doubled", (n,), 1, "1 for each player (relative seat) with a Quan or Khui: their win "
                "doubles the payment"),
        Feature("stake", (n,), CAP, "what each loser would pay that player (relative seat) on a win "
                "with its public block alone: (3 + value) (x2 if doubled) + 10, capped at 127"),
    ]


def make_structure_spec(n: int) -> ObsSpec:
    """The ``structure`` spec for ``n`` players: the ``cards`` features, then the block."""
    return ObsSpec([*make_obs_spec(n).features, *structure_features(n)])


def _comp_trash(counts: list[int], k: int) -> int:
    """Trash of component ``k`` alone (the kernel on the block restricted to it)."""
    part = [counts[t] if COMP_OF[t] == k else 0 for t in range(NT)]
    return kern.min_trash(part, khap_types(part))


def _wins(counts: list[int]) -> list[int]:
    """Types ``a`` on which the block ``counts`` wins: a meld of ``a`` (rules choice 16) leaving
    no trash, or a Khui of ``a`` when the block has none (brute force over :data:`MELDS`)."""
    khaps = khap_types(counts)
    clean = kern.min_trash(counts, khaps) == 0
    out = []
    for a in range(NT):
        win = clean and a in khaps
        for _, _, used in MELDS[a]:
            if win:
                break
            rest = after_removal(counts, used)
            win = rest is not None and kern.min_trash(rest, khap_types(rest)) == 0
        if win:
            out.append(a)
    return out


def _standing(state: TuSacState, s: int) -> tuple[int, int, int]:
    """``(public value, doubled, stake)`` of seat ``s`` from its public block."""
    kinds = [kind for kind, _ in state.public[s]]
    value = sum(KIND_VALUES[k] for k in kinds)
    doubled = int("quan" in kinds or "khui" in kinds)
    stake = (3 + value) * (2 if doubled else 1) + 10
    return min(value, CAP), doubled, min(stake, CAP)


def structure_block(state: TuSacState, seat: int) -> list[int]:
    """``seat``'s structure block (the values of :func:`structure_features`, flat)."""
    n = state.num_players
    counts = state.private[seat]
    khaps = khap_types(counts)
    unseen = unseen_counts(state, seat)
    trash = kern.min_trash(counts, khaps)
    disc = set(kern.trash_discards(counts, khaps))
    outs = kern.outs(counts, unseen, khaps)
    worst = set(kern.worst_discards(counts, unseen, khaps))
    comp = [_comp_trash(counts, k) for k in range(len(COMPONENTS))]
    settled = [int(counts[t] in (1, 2) and comp[COMP_OF[t]] == 0) for t in range(NT)]
    wins = _wins(counts)
    others_khap = any(state._khaps[s] for s in range(n) if s != seat)  # (Khap counts are public)
    out = list(unseen)
    out += [int(t in disc) for t in range(NT)]
    out += [min(o, MAX_OUTS) for o in outs]
    out += [int(t in worst) for t in range(NT)]
    out += settled
    out += comp
    out += [int(t in wins) for t in range(NT)]
    out.append(min(sum(unseen[t] for t in wins), CAP))
    out.append(int(is_waiting_hand(counts, khaps, trash)))
    out += [int(counts[t] == 2 and t % 7 != 0) for t in range(NT)]
    out.append(sum(unseen[t] for t in khaps))
    out += [int(n >= 3 and t % 7 != 0 and unseen[t] >= 2) for t in range(NT)]
    out += [int(others_khap and unseen[t] == 3) for t in range(NT)]
    rows = [_standing(state, (seat + r) % n) for r in range(n)]
    for i in range(3):
        out += [row[i] for row in rows]
    return out


def make_structure_observe(cards_observe: Callable[[TuSacState, int], np.ndarray],
                           ) -> Callable[[TuSacState, int], np.ndarray]:
    """``observe(state, seat)`` of the ``structure`` mode: ``cards_observe``'s vector, then the block."""

    def observe(state: TuSacState, seat: int) -> np.ndarray:
        """``seat``'s structure observation (a new int8 array)."""
        cards = cards_observe(state, seat)  # (checks the seat)
        return np.concatenate([cards, np.array(structure_block(state, seat), np.int8)])

    return observe


# ---------------------------------------------------------------- per-action features


def make_action_spec(n: int) -> ObsSpec:
    """One row of the per-action features (the same for every player count ``n``)."""
    del n
    return ObsSpec([
        Feature("kind", (len(ACTION_KINDS),), 1, "the action: meld / hit / pass / discard, one-hot"),
        Feature("card", (NT,), 1, "the card it takes (a meld: the active card) or discards, one-hot"),
        Feature("used", (NT,), 2, "a meld: the private cards it uses, per type"),
        Feature("meld_kind", (len(MELD_KINDS),), 1,
                "a meld: its set kind (king, pair, triple, kgm, rcn, pawns3, pawns4), one-hot"),
        Feature("meld_value", (), 2, "a meld: its set value (rules choice 22)"),
        Feature("trash_after", (), FIRST_DEAL, "your trash after the action (hit, pass: as now)"),
        Feature("wins", (), 1, "1 when the meld leaves no trash: it wins the game"),
        Feature("outs_after", (), CAP, "total outs of your private block after the action (capped at 127)"),
        Feature("win_outs_after", (), CAP, "unseen copies of the types your block would win on after the "
                "action (capped at 127)"),
        Feature("waiting_after", (), 1, "1 when your hand is waiting after the action"),
        Feature("card_outs", (), MAX_OUTS, "a discard: the discarded type's outs now"),
        Feature("card_worst", (), 1, "a discard: 1 when it is one of your worst cards (no penalty risk)"),
        Feature("card_unseen", (), 4, "unseen copies of the card's type"),
        Feature("card_pair_threat", (), 1, "a discard: its pair_threat (another player may pair-claim it)"),
        Feature("card_khui_threat", (), 1, "a discard: its khui_threat (another player may Khui it)"),
    ])


def _after_facts(rest: list[int], unseen: list[int]) -> tuple[int, int, int, int]:
    """``(trash, outs, win outs, waiting)`` of the private block ``rest``."""
    khaps = khap_types(rest)
    trash = kern.min_trash(rest, khaps)
    outs = min(sum(kern.outs(rest, unseen, khaps)), CAP)
    win_outs = min(sum(unseen[t] for t in _wins(rest)), CAP)
    return trash, outs, win_outs, int(is_waiting_hand(rest, khaps, trash))


def action_features(state: TuSacState, seat: int) -> np.ndarray:
    """``(46, F)`` int8: for each action legal to ``seat`` a row of :func:`make_action_spec`'s
    facts about it and the position after it as ``seat`` will know it; zero rows for the rest
    (all zero when ``seat`` is not to act)."""
    spec = make_action_spec(state.num_players)
    off = {name: sl.start for name, sl in spec.slices.items()}
    rows = np.zeros((DISCARD0 + NT, spec.size), np.int8)
    if state.phase == PHASE_OVER or state.current != seat:
        return rows
    from tusac_env.flow import legal_now  # (flow imports the observation, as this module does)

    n = state.num_players
    counts = state.private[seat]
    khaps = khap_types(counts)
    unseen = unseen_counts(state, seat)
    now = _after_facts(counts, unseen)
    outs = kern.outs(counts, unseen, khaps)
    worst = set(kern.worst_discards(counts, unseen, khaps)) if state.phase == PHASE_DISCARD else set()
    others_khap = any(state._khaps[s] for s in range(n) if s != seat)
    for action in legal_now(state):
        row = rows[action]
        if action >= DISCARD0:
            t = action - DISCARD0
            rest = counts[:]
            rest[t] -= 1
            row[off["kind"] + 3] = 1
            row[off["card"] + t] = 1
            after = _after_facts(rest, unseen)
            row[off["card_outs"]] = min(outs[t], MAX_OUTS)
            row[off["card_worst"]] = int(t in worst)
            row[off["card_unseen"]] = unseen[t]
            row[off["card_pair_threat"]] = int(n >= 3 and t % 7 != 0 and unseen[t] >= 2)
            row[off["card_khui_threat"]] = int(others_khap and unseen[t] == 3)
        elif action in (HIT, PASS):
            row[off["kind"] + (1 if action == HIT else 2)] = 1
            after = now
        else:
            a = state.active
            info = MELD_BY_INDEX[a][action]
            rest = after_removal(counts, info.used)
            row[off["kind"]] = 1
            row[off["card"] + a] = 1
            for u in info.used:
                row[off["used"] + u] += 1
            row[off["meld_kind"] + MELD_KINDS.index(info.kind)] = 1
            row[off["meld_value"]] = KIND_VALUES[info.kind]
            row[off["card_unseen"]] = unseen[a]
            after = _after_facts(rest, unseen)
            row[off["wins"]] = int(after[0] == 0)
        trash, outs_after, win_outs, waiting = after
        row[off["trash_after"]] = trash
        row[off["outs_after"]] = outs_after
        row[off["win_outs_after"]] = win_outs
        row[off["waiting_after"]] = waiting
    return rows
