"""Bharg's ``structure`` observation: the cards vector, then the set core's reading of the
position from the observer's knowledge only (the Python reference; the compiled engine and
the batch write the same bytes from ``bharg_env/_structure.pyx``).

Every figure comes from the binding kernel, :func:`setgames.kernels.bharg.evaluate` (the
largest number of bound cards ``B`` and the lowest unbound value ``U`` of a hand, under the
Ace Pile top as it is: ``bharg_env/README.md``, rules summary "Sets" and "Bound", rules
choices 11-13), and from the cards the observer has not seen
(:func:`unseen_cards`: the deck and the opponents' cards not taken from the discard pile).
Facts only: no move is ranked or chosen here; the greedy bot (:mod:`bharg_env.greedy`) weighs
two of these facts, :func:`unseen_cards` and :func:`ways_to_bind`, which live here.

Per card id ``c`` of the observer's hand ``H`` (zero for cards not held):

- ``card_need``: ``B(H) - B(H - c)``, how many bound cards the hand loses without ``c``;
  0 exactly when ``c`` is unbound in some arrangement binding the most;
- ``card_trash``: ``c`` is unbound in some arrangement of lowest unbound value
  (``U(H - c) == U(H) - value(c)``, value above 0), i.e. dead weight under the best scoring;
- ``card_in_set``: ``c`` is in some set made of the hand's cards (a complete set; which
  sets an arrangement uses is the holder's choice, rules choice 12);
- ``card_outs``: the unseen cards ``u`` such that some set of ``H + u`` holds both ``c``
  and ``u`` (they complete a partial set of ``c``'s, or make it another one);
- ``card_feeds``: the opponents whose known cards ``K`` it binds more of than itself
  (``B(K + c) >= B(K) + 2``), what handing it over on the discard pile threatens.

Then the hand as a whole (``B``, all bound, ``U``: what it concedes if the round ended now,
the unseen cards that would bind more of it than themselves, the unseen count), the discard
top (``B(H + top) - B(H)``) and each opponent's known cards (their ``B`` and ``U``).

Per-action features (:data:`ACTION_FEATURES`, the Deep Monte-Carlo format): one row per
legal action of the seat to act, the same kernel facts about the hand the action leaves:
*draw deck* the hand held (the card to come is unseen), *take discard* the hand plus the
discard top, *discard c* the hand without ``c`` facing the Ace Pile top after it (a
discarded Ace tops the Ace Pile); and the card taken or discarded, its value, and what it
feeds the opponents' known cards.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from setgames.bits import bit_list
from setgames.cards import BHARG_VALUES, NUM_DECKTET
from setgames.kernels.bharg import evaluate, sets_in_hand
from setgames.spec import Feature

__all__ = ["ACTION_FEATURES", "STRUCTURE_FEATURES", "action_features", "structure_block", "unseen_cards",
           "ways_to_bind"]

STRUCTURE_FEATURES = (
    Feature("card_need", (NUM_DECKTET,), 9,
            "my card c: bound cards my hand loses without it, B(hand) - B(hand - c) (0: unbound in some "
            "arrangement binding the most; 0 for cards not held)"),
    Feature("card_trash", (NUM_DECKTET,), 1,
            "my card c is unbound in some arrangement of lowest unbound value (dropping it lowers what I "
            "would concede by its value)"),
    Feature("card_in_set", (NUM_DECKTET,), 1, "my card c is in some set made of my hand's cards"),
    Feature("card_outs", (NUM_DECKTET,), NUM_DECKTET,
            "my card c: unseen cards u that, drawn in, would make a set holding both c and u (complete "
            "a partial set of c's or make it another)"),
    Feature("card_feeds", (NUM_DECKTET,), 2,
            "my card c: opponents whose known cards it would bind more of than itself, "
            "B(known + c) >= B(known) + 2"),
    Feature("bound", (), 9, "my bound cards, the most at once: B(hand)"),
    Feature("all_bound", (), 1, "1 when every card of my hand is bound"),
    Feature("unbound_value", (), 90, "what I would concede if the round ended now: U(hand), the lowest "
            "unbound value"),
    Feature("ways", (), NUM_DECKTET, "unseen cards that, drawn in, would bind more of my hand than "
            "themselves: B(hand + u) > B(hand) + 1"),
    Feature("unseen", (), NUM_DECKTET, "cards I have not seen (the deck and the opponents' cards not "
            "taken from the discard pile)"),
    Feature("top_gain", (), 9, "bound cards the discard top would add to my hand: B(hand + top) - B(hand) "
            "(0: empty pile)"),
    Feature("opp_bound", (2,), 8, "the next / next-but-one player's known cards: how many bind among "
            "themselves, B(known) (0: none or no such player)"),
    Feature("opp_unbound_value", (2,), 80, "the next / next-but-one player's known cards: their lowest "
            "unbound value U(known)"),
)


def unseen_cards(game: Any, state: Any, seat: int) -> int:
    """Bitmask of the cards ``seat`` has not seen: deck plus opponents' hidden cards."""
    seen = state.hands[seat] | state.discard_mask
    for c in state.aces:
        seen |= 1 << c
    for s, k in enumerate(state.known):
        if s != seat:
            seen |= k
    all_cards = 0
    for c in game.deck_cards:
        all_cards |= 1 << c
    return all_cards & ~seen


def ways_to_bind(hand: int, ace_top: int, unseen: int) -> int:
    """How many unseen cards would, drawn into ``hand``, bind more of its cards.

    >>> from setgames.cards import card_from_name as C
    >>> two_sixes = 1 << C("Lunatic") | 1 << C("Penitent")
    >>> ways_to_bind(two_sixes, -1, 1 << C("Market") | 1 << C("Crown of Moons"))   # the third 6
    1
    """
    base = evaluate(hand, None if ace_top < 0 else ace_top).bound
    ace = None if ace_top < 0 else ace_top
    n = 0
    for u in bit_list(unseen):
        # > base + 1: the new card binds at least one card of the hand besides itself.
        if evaluate(hand | 1 << u, ace).bound > base + 1:
            n += 1
    return n


def _ev(hand: int, ace: int) -> tuple[int, int]:
    """(B, U) of ``hand`` facing Ace Pile top ``ace`` (-1: none)."""
    e = evaluate(hand, None if ace < 0 else ace)
    return e.bound, e.unbound_value


def _all_bound(hand: int, ace: int) -> bool:
    return evaluate(hand, None if ace < 0 else ace).all_bound


def structure_block(game: Any, state: Any, seat: int) -> np.ndarray:
    """The structure block of ``seat``'s observation (int8, the sizes of
    :data:`STRUCTURE_FEATURES` in order), from what ``seat`` knows only."""
    n = game.num_players
    hand = state.hands[seat]
    ace = state.aces[-1] if state.aces else -1
    unseen = unseen_cards(game, state, seat)
    cards = bit_list(hand)
    base_b, base_u = _ev(hand, ace)
    need = np.zeros(NUM_DECKTET, np.int8)
    trash = np.zeros(NUM_DECKTET, np.int8)
    outs = np.zeros(NUM_DECKTET, np.int8)
    in_set = np.zeros(NUM_DECKTET, np.int8)
    for m in sets_in_hand(hand):
        in_set[bit_list(m)] = 1
    for x in bit_list(unseen):
        partners = 0
        for m in sets_in_hand(hand | 1 << x):
            if m >> x & 1:
                partners |= m
        outs[bit_list(partners & hand)] += 1
    feeds = np.zeros(NUM_DECKTET, np.int8)
    opps = [(seat + j) % n for j in range(1, n)]
    opp_b, opp_u = [0, 0], [0, 0]
    for j, o in enumerate(opps):
        k = state.known[o]
        if k:
            opp_b[j], opp_u[j] = _ev(k, ace)
    for c in cards:
        b, u = _ev(hand & ~(1 << c), ace)
        need[c] = base_b - b
        v = BHARG_VALUES[c]
        trash[c] = v > 0 and u == base_u - v
        feeds[c] = sum(_ev(state.known[o] | 1 << c, ace)[0] >= opp_b[j] + 2
                       for j, o in enumerate(opps) if state.known[o])
    top_gain = _ev(hand | 1 << state.discard[-1], ace)[0] - base_b if state.discard else 0
    tail = [base_b, int(_all_bound(hand, ace)), base_u, ways_to_bind(hand, ace, unseen),
            unseen.bit_count(), top_gain, *opp_b, *opp_u]
    return np.concatenate([need, trash, in_set, outs, feeds, np.array(tail, np.int8)])


ACTION_FEATURES = (
    Feature("kind", (3,), 1, "the action, one-hot: [draw deck, take discard, discard]"),
    Feature("card", (NUM_DECKTET,), 1, "the card taken or discarded, one-hot (all 0: draw deck)"),
    Feature("ace_change", (), 1, "1 when the discarded card is an Ace: it tops the Ace Pile"),
    Feature("bound_after", (), 9, "B of the hand the action leaves (draw deck: the hand held; take: "
            "with the discard top; discard: without the card, facing the Ace Pile top after it)"),
    Feature("all_bound_after", (), 1, "1 when every card of that hand is bound (a discard: the round "
            "is won)"),
    Feature("unbound_after", (), 90, "U of that hand, its lowest unbound value"),
    Feature("ways_after", (), NUM_DECKTET, "unseen cards that, drawn into that hand, would bind more of it "
            "than themselves"),
    Feature("card_value", (), 10, "the value of the card taken or discarded"),
    Feature("card_feeds", (), 2, "a discard: opponents whose known cards the card would bind more of than "
            "itself (it lies on the discard pile for the next player)"),
)


def action_features(game: Any, state: Any, seat: int) -> np.ndarray:
    """Per action, ``(num_actions, F)`` int8 (:data:`ACTION_FEATURES`): rows for the actions
    legal to ``seat`` (all zero when ``seat`` is not to act or the game is over), from what
    ``seat`` knows only."""
    width = sum(f.size for f in ACTION_FEATURES)
    out = np.zeros((game.num_actions, width), np.int8)
    if game.is_over(state) or state.seat != seat:
        return out
    hand = state.hands[seat]
    ace = state.aces[-1] if state.aces else -1
    unseen = unseen_cards(game, state, seat)
    n = game.num_players
    known = [state.known[(seat + j) % n] for j in range(1, n)]
    known_b = [_ev(k, ace)[0] if k else 0 for k in known]
    for a in game.legal_actions(state):
        row = out[a]
        if a < 2:  # draw deck, take discard (bharg_env.rules action ids)
            card = -1 if a == 0 else state.discard[-1]
            h, top = hand if card < 0 else hand | 1 << card, ace
            row[a] = 1
        else:
            card = a - 2
            h, top = hand & ~(1 << card), card if card < 6 else ace
            row[2] = 1
            row[3 + NUM_DECKTET] = card < 6
            row[-1] = sum(_ev(k | 1 << card, ace)[0] >= b + 2
                          for k, b in zip(known, known_b, strict=True) if k)
        if card >= 0:
            row[3 + card] = 1
            row[-2] = BHARG_VALUES[card]
        b, u = _ev(h, top)
        row[4 + NUM_DECKTET:8 + NUM_DECKTET] = (b, _all_bound(h, top), u, ways_to_bind(h, top, unseen))
    return out
