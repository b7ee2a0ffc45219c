"""The ``structure`` observation of Tet Hsi: the cards vector, then the set core's reading of the
position from the observer's knowledge only (the reference the compiled ``th_structure`` of
``tethsi_env/_engine.pyx`` is held to).

Every fact is a count of Sets (``tethsi_env/README.md``, "Rules summary": the five kinds, rules
choices 8-10) read with the kernel's :func:`setgames.kernels.tethsi.pairs_completing` over zones
of the observer's view:

- *my hand* ``H``: my concealed cards and my front (rules choice 12);
- *unseen* ``U``: the cards the observer has never seen, the opponent's concealed hand and the
  draw pile (rules choice 6): everything not in my hand, either front, the center, the discard
  pile or a Set put aside. :meth:`~tethsi_env.rules.TetHsiGame.determinize` re-deals exactly
  these, so no fact below depends on where they truly are;
- the *center* ``C`` (a center card may stay as the remaining card, rules choice 4) and the
  opponent's front ``F`` (public, rules choice 12).

An *out* of a partial set (a pair of my hand) is an unseen card completing it to a Set. These
are facts, not decisions: no feature is a bot's move or its value of a move.

>>> from setgames.game import rng_from_seed
>>> from tethsi_env.rules import TetHsiGame
>>> game = TetHsiGame(obs="structure")
>>> state = game.new_state(rng_from_seed(0))
>>> obs = game.observe(state, 0)
>>> obs.shape == (STRUCTURE_SPEC.size,), int(obs[STRUCTURE_SPEC.slices["unseen_count"]][0])
(True, 26)
"""

from __future__ import annotations

from typing import Any

from setgames.cards import NUM_STANDARD
from setgames.kernels.tethsi import KIND_BY_MASK, PAIR_COUNTS, pairs_completing
from setgames.spec import Feature, ObsSpec
from tethsi_env.layout import ACTION_ARG, ACTION_KIND, OBS_SPEC, ActionKind, Phase

__all__ = ["ACTION_FEATURES", "ACTION_SPEC", "BLOCK_SPEC", "MAX_SETS_WITH_CARD", "OUT_SETS_CAP", "PAIRS_CAP",
           "STRUCTURE_FEATURES", "STRUCTURE_SPEC", "action_rows", "structure_bytes", "zones"]

_ALL = (1 << NUM_STANDARD) - 1
_OVER = int(Phase.OVER)
MAX_SETS_WITH_CARD = int(PAIR_COUNTS.max())  # 37: the most Sets one card is in (every per-card count's bound)
# The pair counts' bound: a dealt hand holds at most 9 cards (36 pairs); larger hand-built ones cap.
PAIRS_CAP = 36

STRUCTURE_FEATURES = (
    Feature("my_card_in_set", (NUM_STANDARD,), 1,
            "per card of my hand: 1 when it is in a Set of three cards of my hand"),
    Feature("my_card_partners", (NUM_STANDARD,), NUM_STANDARD - 1,
            "per card of my hand: the other hand cards it forms a partial set with (a pair some unseen "
            "or center card completes)"),
    Feature("my_card_outs", (NUM_STANDARD,), MAX_SETS_WITH_CARD,
            "per card of my hand: the Sets of it, another hand card and an unseen card (its outs, "
            "counted per Set)"),
    Feature("my_completes", (NUM_STANDARD,), MAX_SETS_WITH_CARD,
            "per unseen or center card: the pairs of my hand it completes to a Set"),
    Feature("center_outs", (NUM_STANDARD,), MAX_SETS_WITH_CARD,
            "per center card: the Sets of it, a card of my hand and an unseen card (the outs it would "
            "bring to my hand)"),
    Feature("opp_threat", (NUM_STANDARD,), MAX_SETS_WITH_CARD,
            "per card in my hand, unseen or in the center: the pairs of the opponent's front it "
            "completes to a Set"),
    Feature("opp_half_threat", (NUM_STANDARD,), MAX_SETS_WITH_CARD,
            "per card in my hand or in the center (the cards I may give the opponent): the Sets of it, "
            "an opponent's front card and an unseen card"),
    Feature("my_outs", (), NUM_STANDARD, "unseen cards that complete some pair of my hand to a Set"),
    Feature("my_open_pairs", (), PAIRS_CAP,
            f"pairs of my hand that some unseen or center card completes (capped at {PAIRS_CAP})"),
    Feature("opp_open_pairs", (), PAIRS_CAP,
            "pairs of the opponent's front that some card in my hand, unseen or in the center "
            f"completes (capped at {PAIRS_CAP})"),
    Feature("my_hand_size", (), NUM_STANDARD, "cards in my hand (concealed and front)"),
    Feature("opp_hand_size", (), NUM_STANDARD, "cards in the opponent's hand (concealed and front)"),
    Feature("unseen_count", (), NUM_STANDARD,
            "cards I have not seen (the opponent's concealed hand and the draw pile)"),
    Feature("result", (), 1,
            "my return if the game ended now: +1 / -1 once won / lost, 0 while it runs (a running "
            "game ends only by a win or the tie) or after a tie", low=-1),
)
# The structure mode's spec: the cards vector, unchanged, then the structure block.
STRUCTURE_SPEC = ObsSpec([*OBS_SPEC.features, *STRUCTURE_FEATURES])
BLOCK_SPEC = ObsSpec(STRUCTURE_FEATURES)  # the structure block alone (offsets within it)


def zones(state: Any, seat: int) -> tuple[int, int, int, int]:
    """``(my hand, unseen, center, opponent's front)`` as card masks, from ``seat``'s knowledge:
    the unseen cards are those in no zone ``seat`` sees (the module docstring)."""
    opp = seat ^ 1
    hand = state.concealed[seat] | state.front[seat]
    seen = (hand | state.front[opp] | state.center | state.discard | state.set_cards[0]
            | state.set_cards[1])
    return hand, _ALL & ~seen, state.center, state.front[opp]


def _cards(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def structure_bytes(state: Any, seat: int) -> bytes:
    """``seat``'s structure block (``STRUCTURE_FEATURES`` in order, one byte each, int8 as
    two's complement): what the ``structure`` mode appends to the cards vector."""
    hand, unseen, center, opp_front = zones(state, seat)
    n = NUM_STANDARD
    in_set = [0] * n
    partners = [0] * n
    outs = [0] * n
    completes = [0] * n
    threat = [0] * n
    half = [0] * n
    open_pairs: set[tuple[int, int]] = set()
    my_outs = 0
    center_outs = [0] * n
    for z in _cards(unseen | center):
        pairs = pairs_completing(hand, z)
        completes[z] = len(pairs)
        if center >> z & 1:
            # pairs of a hand card and an unseen card: those of both zones less those within either
            center_outs[z] = (len(pairs_completing(hand | unseen, z)) - len(pairs)
                              - len(pairs_completing(unseen, z)))
        open_pairs.update(pairs)
        if unseen >> z & 1:
            if pairs:
                my_outs += 1
            for x, y in pairs:
                outs[x] += 1
                outs[y] += 1
    for x, y in open_pairs:
        partners[x] += 1
        partners[y] += 1
    for c in _cards(hand):
        in_set[c] = 1 if pairs_completing(hand & ~(1 << c), c) else 0
    opp_open: set[tuple[int, int]] = set()
    for z in _cards(hand | unseen | center):
        in_front = pairs_completing(opp_front, z)
        threat[z] = len(in_front)
        opp_open.update(in_front)
        if not unseen >> z & 1:
            # Sets of z, a front card and an unseen card: the pairs of front and unseen cards less
            # the pairs within either zone.
            half[z] = (len(pairs_completing(opp_front | unseen, z)) - len(in_front)
                       - len(pairs_completing(unseen, z)))
    opp = seat ^ 1
    if state.phase != _OVER or state.winner < 0:
        result = 0
    else:
        result = 1 if state.winner == seat else 255  # -1 as an int8 byte
    return bytes(in_set + partners + outs + completes + center_outs + threat + half + [
        my_outs, min(len(open_pairs), PAIRS_CAP), min(len(opp_open), PAIRS_CAP), hand.bit_count(),
        (state.concealed[opp] | state.front[opp]).bit_count(), unseen.bit_count(), result])


assert BLOCK_SPEC.size == 7 * NUM_STANDARD + 7, "structure_bytes() writes these entries in this order"


# --------------------------------------------------------------------------- per-action features
_KIND_ONE_HOT = ("is_discard", "is_take", "is_nothing", "is_set", "is_play")  # ActionKind order
OUT_SETS_CAP = 127  # my_out_sets_after's bound (int8); a dealt hand's count stays far below it
ACTION_FEATURES = (
    *(Feature(name, (), 1, f"1 for a {name[3:]} action") for name in _KIND_ONE_HOT),
    Feature("card", (), NUM_STANDARD - 1,
            "the card the action moves: the card discarded, the remaining card (take, nothing, set), "
            "the card played"),
    Feature("set_kind", (), 5, "the Set put aside: 1 + its kind index (Five, Bharg, Kvar, Ciao, Phen), "
            "0 for other actions"),
    Feature("wins", (), 1, "1 when the action puts aside my last hand cards (the game is won)"),
    Feature("center_sets_after", (), MAX_SETS_WITH_CARD * 2,
            "after the action: the pairs of my hand that the center cards complete (after a discard: "
            "what the remaining card offers me)"),
    Feature("center_outs_after", (), OUT_SETS_CAP,
            "after the action: the Sets of a center card, a card of my hand and an unseen card (after a "
            f"discard: the outs taking the remaining card would bring; capped at {OUT_SETS_CAP})"),
    Feature("my_open_pairs_after", (), PAIRS_CAP,
            f"after the action: my_open_pairs (capped at {PAIRS_CAP})"),
    Feature("my_outs_after", (), NUM_STANDARD, "after the action: my_outs"),
    Feature("my_out_sets_after", (), OUT_SETS_CAP,
            "after the action: the Sets of a pair of my hand and an unseen card (the sum of my_card_outs "
            f"over the hand, halved; capped at {OUT_SETS_CAP})"),
    Feature("my_trash_after", (), NUM_STANDARD,
            "after the action: the cards of my hand in no partial set (my_card_partners 0)"),
    Feature("opp_center_sets_after", (), MAX_SETS_WITH_CARD * 2,
            "after the action: the pairs of the opponent's front that the center cards complete"),
    Feature("opp_center_half_after", (), OUT_SETS_CAP,
            "after the action: the Sets of a center card, an opponent's front card and an unseen card "
            f"(capped at {OUT_SETS_CAP})"),
    Feature("hand_size_after", (), NUM_STANDARD, "after the action: the cards in my hand"),
    Feature("sets_after", (), 12, "after the action: the Sets I have put aside"),
)
# One row of the per-action features: the facts of the position right after the action, before
# any reveal (the revealed card is one the seat has not seen: no row may depend on it).
ACTION_SPEC = ObsSpec(ACTION_FEATURES)


def _after_facts(hand: int, unseen: int, center: int, front: int) -> list[int]:
    """The ``*_after`` entries of a row (``center_sets_after`` .. ``opp_center_half_after``) for
    the zones of the position after an action."""
    center_sets = center_outs = opp_center = opp_half = 0
    open_pairs: set[tuple[int, int]] = set()
    outs = out_sets = 0
    for z in _cards(unseen | center):
        pairs = pairs_completing(hand, z)
        open_pairs.update(pairs)
        if center >> z & 1:
            center_sets += len(pairs)
            within_unseen = len(pairs_completing(unseen, z))
            center_outs += len(pairs_completing(hand | unseen, z)) - len(pairs) - within_unseen
            mine = pairs_completing(front, z)
            opp_center += len(mine)
            opp_half += len(pairs_completing(front | unseen, z)) - len(mine) - within_unseen
        elif pairs:
            outs += 1
            out_sets += len(pairs)
    paired = 0
    for x, y in open_pairs:
        paired |= 1 << x | 1 << y
    trash = (hand & ~paired).bit_count()
    return [center_sets, min(center_outs, OUT_SETS_CAP), min(len(open_pairs), PAIRS_CAP), outs,
            min(out_sets, OUT_SETS_CAP), trash, opp_center, min(opp_half, OUT_SETS_CAP)]


def action_rows(state: Any, seat: int, legal: list[int]) -> dict[int, list[int]]:
    """Per legal action of ``seat`` (the seat to act), its row of :data:`ACTION_SPEC` entries."""
    hand, unseen, center, front = zones(state, seat)
    nsets = len(state.sets[seat])
    rows = {}
    for a in legal:
        kind = ACTION_KIND[a]
        set_kind = wins = 0
        h, cen, sets = hand, center, nsets
        if kind == ActionKind.DISCARD:
            card = a
            cen = center & ~(1 << a)
        elif kind == ActionKind.PLAY:
            card = ACTION_ARG[a]
            h, cen = hand & ~(1 << card), center | 1 << card
        else:
            card = state.remaining
            if kind == ActionKind.TAKE:
                h, cen = hand | 1 << card, 0
            elif kind == ActionKind.SET:
                x, y = ACTION_ARG[a]
                h, cen, sets = hand & ~(1 << x | 1 << y), 0, nsets + 1
                set_kind = 1 + KIND_BY_MASK[1 << x | 1 << y | 1 << card]
                wins = int(h == 0)
        one_hot = [int(kind == k) for k in range(len(_KIND_ONE_HOT))]
        rows[a] = [*one_hot, card, set_kind, wins, *_after_facts(h, unseen, cen, front), h.bit_count(),
                   min(sets, 12)]
    return rows
