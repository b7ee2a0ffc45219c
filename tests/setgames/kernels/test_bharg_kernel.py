"""Bharg kernel against a brute-force oracle that enumerates the hand's set collections.

The oracle never imports :mod:`setgames.kernels.bharg`: it reads the card table,
tries every collection of disjoint blocks of the hand that are sets (>= 3 cards
showing each suit exactly once), and binds by the Ace Pile's
suit and the Excuse as ``bharg_env/README.md``, rules choices 11 and 12, say.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setgames.cards import BHARG_VALUES, DECKTET_SUIT_MASKS, EXCUSE_ID, card_from_name
from setgames.kernels import bharg as K


# ----------------------------------------------------------------- oracle
def oracle_is_set(cards: list[int]) -> bool:
    if len(cards) < 3 or EXCUSE_ID in cards:
        return False
    counts = [0] * 6
    for c in cards:
        for s in range(6):
            if DECKTET_SUIT_MASKS[c] >> s & 1:
                counts[s] += 1
    return counts == [1] * 6


def set_collections(cards: tuple[int, ...]):
    """Every collection of disjoint sets within ``cards``: the first card is either
    in no set, or in a set with some of the other cards."""
    if not cards:
        yield []
        return
    first, rest = cards[0], cards[1:]
    yield from set_collections(rest)
    for k in range(2, len(rest) + 1):
        for others in combinations(rest, k):
            if oracle_is_set([first, *others]):
                left = tuple(c for c in rest if c not in others)
                for coll in set_collections(left):
                    yield [(first, *others), *coll]


def oracle(cards: list[int], ace: int | None) -> tuple[int, bool, int]:
    ace_suits = DECKTET_SUIT_MASKS[ace] if ace is not None else 0
    best_bound, best_value = -1, None
    for coll in set_collections(tuple(cards)):
        bound = {c for block in coll for c in block}
        for c in cards:
            if c == EXCUSE_ID or DECKTET_SUIT_MASKS[c] & ace_suits:
                bound.add(c)
        best_bound = max(best_bound, len(bound))
        v = sum(BHARG_VALUES[c] for c in cards if c not in bound)
        best_value = v if best_value is None else min(best_value, v)
    return best_bound, best_bound == len(cards), best_value


def mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def C(*names: str) -> int:
    return mask(card_from_name(n) for n in names)


# ----------------------------------------------------------------- strategies
aces = st.one_of(st.none(), st.integers(0, 5))


@st.composite
def hand_and_ace(draw, max_cards: int = 9, deck: int = 45):
    ace = draw(aces)
    pool = [c for c in range(deck) if c != ace]
    cards = draw(st.lists(st.sampled_from(pool), unique=True, min_size=0, max_size=max_cards))
    return sorted(cards), ace


# ----------------------------------------------------------------- tests
def test_is_set_matches_oracle_on_every_set_of_the_deck_sizes():
    rng = np.random.default_rng(0)
    for _ in range(3000):
        k = int(rng.integers(0, 8))
        cards = sorted(rng.choice(45, k, replace=False).tolist())
        assert K.is_set(mask(cards)) == oracle_is_set(cards), cards


def test_is_set_hand_worked_examples():
    assert K.is_set(C("Lunatic", "Penitent", "Market"))  # the three 6s
    assert K.is_set(C("Ace of Moons", "Ace of Suns", "Sailor", "Battle"))
    assert not K.is_set(C("Watchman", "Light Keeper"))  # six suits, two cards
    assert K.is_set(C("Watchman", "Painter", "Origin")) is False  # Leaves twice
    assert K.is_set(C("Watchman", "Ace of Suns", "Ace of Waves", "Crown of Knots"))
    assert not K.is_set(C("Lunatic", "Penitent", "Market", "The Excuse"))


def test_set_count_of_the_extended_deck():
    # 1,140 sets among ids 0..43 (1,012 within the standard deck), counted by brute force.
    sets: list[tuple[int, ...]] = []

    def grow(cards: tuple[int, ...], suits: int) -> None:
        # cards in increasing id order, never two sharing a suit: each set found once
        if suits == 0b111111 and oracle_is_set(list(cards)):
            sets.append(cards)
        for c in range(cards[-1] + 1 if cards else 0, 44):
            if not DECKTET_SUIT_MASKS[c] & suits:
                grow((*cards, c), suits | DECKTET_SUIT_MASKS[c])

    grow((), 0)
    assert len(sets) == 1140 and sum(max(c) < 36 for c in sets) == 1012
    found = K.sets_in_hand((1 << 44) - 1)
    assert sorted(found) == sorted(mask(c) for c in sets)


@settings(max_examples=300, deadline=None)
@given(hand_and_ace(max_cards=8))
def test_scalar_equals_oracle(case):
    cards, ace = case
    got = K.evaluate(mask(cards), ace)
    assert (got.bound, got.all_bound, got.unbound_value) == oracle(cards, ace)
    assert K.all_bound(mask(cards), ace) == got.all_bound
    assert K.all_bound_trusted(mask(cards), -1 if ace is None else ace) == got.all_bound
    assert K.all_bound_code(K.pattern_code(mask(cards)), -1 if ace is None else ace) == got.all_bound
    assert K.bound_count(mask(cards), ace) == got.bound
    assert K.min_unbound_value(mask(cards), ace) == got.unbound_value


@settings(max_examples=100, deadline=None)
@given(hand_and_ace(max_cards=9))
def test_scalar_equals_oracle_nine_cards(case):
    cards, ace = case
    got = K.evaluate(mask(cards), ace)
    assert (got.bound, got.all_bound, got.unbound_value) == oracle(cards, ace)


def _winning_hands(rng: np.random.Generator, n: int) -> list[tuple[list[int], int | None]]:
    """Hands built from disjoint sets plus ace-bound cards: mostly all-bound, so
    the table's positive answers get tested as hard as the negative ones."""
    all_sets = K.sets_in_hand((1 << 44) - 1)
    out = []
    while len(out) < n:
        ace = None if rng.random() < 0.4 else int(rng.integers(6))
        hand = 0
        for _ in range(int(rng.integers(1, 4))):
            s = all_sets[int(rng.integers(len(all_sets)))]
            if not s & hand and (hand | s).bit_count() <= 9:
                hand |= s
        extra = rng.permutation(45).tolist()
        for c in extra[: int(rng.integers(0, 4))]:
            if hand.bit_count() < 9:
                hand |= 1 << c
        if ace is not None:
            hand &= ~(1 << ace)
        out.append((sorted(c for c in range(45) if hand >> c & 1), ace))
    return out


def test_structured_hands_against_oracle():
    rng = np.random.default_rng(7)
    for cards, ace in _winning_hands(rng, 150):
        got = K.evaluate(mask(cards), ace)
        assert (got.bound, got.all_bound, got.unbound_value) == oracle(cards, ace), (cards, ace)
        assert K.all_bound(mask(cards), ace) == got.all_bound


def test_hands_holding_patterns_twice_or_thrice_against_oracle():
    # Random hands seldom hold two or three cards of one suit pattern; these are
    # drawn from every card sharing a pattern with a few sets, so collections
    # that use a pattern more than once (and choose which of its cards) are common.
    rng = np.random.default_rng(13)
    all_sets = K.sets_in_hand((1 << 44) - 1)
    twins = 0
    for _ in range(120):
        ace = None if rng.random() < 0.3 else int(rng.integers(6))
        picked = [all_sets[i] for i in rng.integers(len(all_sets), size=int(rng.integers(1, 4)))]
        shown = {DECKTET_SUIT_MASKS[c] for s in picked for c in range(44) if s >> c & 1}
        pool = [c for c in range(44) if DECKTET_SUIT_MASKS[c] in shown and c != ace]
        cards = sorted(rng.choice(pool, min(len(pool), int(rng.integers(3, 10))), replace=False).tolist())
        masks = [DECKTET_SUIT_MASKS[c] for c in cards]
        twins += len(set(masks)) < len(masks)
        got = K.evaluate(mask(cards), ace)
        assert (got.bound, got.all_bound, got.unbound_value) == oracle(cards, ace), (cards, ace)
    assert twins > 60


@settings(max_examples=60, deadline=None)
@given(st.lists(hand_and_ace(max_cards=9), min_size=1, max_size=30))
def test_batch_equals_scalar(cases):
    hands = np.array([mask(c) for c, _ in cases], dtype=np.uint64)
    aces_arr = np.array([-1 if a is None else a for _, a in cases], dtype=np.int64)
    ok = K.all_bound_batch(hands, aces_arr)
    b, ok2, v = K.evaluate_batch(hands, aces_arr)
    for i, (cards, ace) in enumerate(cases):
        e = K.evaluate(mask(cards), ace)
        assert (int(b[i]), bool(ok[i]), bool(ok2[i]), int(v[i])) == (
            e.bound, e.all_bound, e.all_bound, e.unbound_value)
    assert K.bound_count_batch(hands, aces_arr).tolist() == b.tolist()
    assert K.min_unbound_value_batch(hands, aces_arr).tolist() == v.tolist()
    assert K.is_set_batch(hands).tolist() == [K.is_set(int(h)) for h in hands.tolist()]


def test_vectorised_batch_across_chunks_equals_scalar_and_oracle():
    rng = np.random.default_rng(5)
    n = K._EVAL_CHUNK + 3000  # two chunks
    sizes = rng.integers(6, 10, n)
    picks = np.argsort(rng.random((n, 45)), axis=1)
    hands = np.array([sum(1 << int(c) for c in picks[i, : sizes[i]]) for i in range(n)], dtype=np.uint64)
    aces = rng.integers(-1, 6, n)
    aces[(hands >> np.maximum(aces, 0).astype(np.uint64)) & np.uint64(1) == 1] = -1
    b, ok, v = K.evaluate_batch(hands, aces)
    got = list(zip(b.tolist(), ok.tolist(), v.tolist(), strict=True))
    pairs = zip(hands.tolist(), aces.tolist(), strict=True)
    assert got == [tuple(K.evaluate(h, a)) for h, a in pairs]
    assert ok.tolist() == K.all_bound_batch(hands, aces).tolist()
    for i in range(0, n, n // 60):  # the slow oracle on a sample, including the second chunk
        cards = [c for c in range(45) if int(hands[i]) >> c & 1]
        assert got[i] == oracle(cards, None if aces[i] < 0 else int(aces[i])), (cards, aces[i])


def test_all_bound_code_of_kept_codes_equals_oracle_on_winning_hands():
    # The rules keep a hand's pattern code current by adding and subtracting
    # CARD_CODES as cards come and go; the win check on that code must agree
    # with the oracle, on hands built to win as well as on random ones.
    rng = np.random.default_rng(17)
    wins = 0
    cases = _winning_hands(rng, 150)
    for _ in range(150):
        ace = None if rng.random() < 0.3 else int(rng.integers(6))
        picked = rng.choice(45, int(rng.integers(0, 10)), replace=False).tolist()
        cards = sorted(c for c in picked if c != ace)
        cases.append((cards, ace))
    for cards, ace in cases:
        code = 0
        for c in rng.permutation(cards).tolist():
            code += K.CARD_CODES[c]
        assert code == K.pattern_code(mask(cards))
        expected = oracle(cards, ace)[1]
        assert K.all_bound_code(code, -1 if ace is None else ace) == expected, (cards, ace)
        wins += expected
    assert wins > 20


def test_card_codes_count_each_suit_pattern_in_two_bits():
    # Cards sharing a suit mask share a code term; the Excuse (no suit) adds nothing.
    patterns = sorted({DECKTET_SUIT_MASKS[c] for c in range(45) if DECKTET_SUIT_MASKS[c]})
    for c in range(45):
        m = DECKTET_SUIT_MASKS[c]
        assert K.CARD_CODES[c] == (1 << 2 * patterns.index(m) if m else 0), c
    assert K.CARD_CODES[EXCUSE_ID] == 0


def test_batch_on_structured_hands_equals_oracle():
    rng = np.random.default_rng(11)
    cases = _winning_hands(rng, 200)
    hands = np.array([mask(c) for c, _ in cases], dtype=np.uint64)
    aces_arr = np.array([-1 if a is None else a for _, a in cases], dtype=np.int8)
    ok = K.all_bound_batch(hands, aces_arr)
    b, _, v = K.evaluate_batch(hands, aces_arr)
    assert ok.sum() > 20  # the generator really does produce winning hands
    for i, (cards, ace) in enumerate(cases):
        assert (int(b[i]), bool(ok[i]), int(v[i])) == oracle(cards, ace), (cards, ace)


def test_empty_and_full_hands_and_no_ace_pile():
    assert K.evaluate(0) == K.BhargEval(0, True, 0)
    assert K.evaluate(0, 3) == K.BhargEval(0, True, 0)
    assert K.evaluate(1 << EXCUSE_ID) == K.BhargEval(1, True, 0)
    nine = C("Lunatic", "Penitent", "Market", "Journey", "Painter", "Savage",
             "Chance Meeting", "Castle", "Cave")
    assert K.evaluate(nine) == K.BhargEval(9, True, 0)  # three sets of three
    hands = np.array([0, nine, 1 << EXCUSE_ID], dtype=np.uint64)
    assert K.all_bound_batch(hands).tolist() == [True, True, True]


def test_best_value_arrangement_may_bind_fewer_cards():
    found = False
    rng = np.random.default_rng(3)
    for _ in range(4000):
        cards = sorted(rng.choice(44, 8, replace=False).tolist())
        e = K.evaluate(mask(cards))
        # does the most-binding arrangement leave more value than the best-value one?
        best_by_count_value = min(
            sum(BHARG_VALUES[c] for c in cards if not (u >> c & 1))
            for u in _unions(mask(cards)) if u.bit_count() == e.bound)
        if best_by_count_value > e.unbound_value:
            found = True
            break
    assert found, "expected some hand where binding most cards is not cheapest"


def _unions(hand: int) -> list[int]:
    sets = [s for s in K.sets_in_hand(hand)]
    out = [0]
    for s in sets:
        out += [u | s for u in out if not u & s]
    return out


@pytest.mark.parametrize("bad", [-1, 1 << 45, (1 << 10) - 1, "x", 2.0, True])
def test_bad_hands_raise_value_error_naming_them(bad):
    with pytest.raises(ValueError, match="hand"):
        K.evaluate(bad)
    with pytest.raises(ValueError, match="hand"):
        K.all_bound(bad)


@pytest.mark.parametrize("bad", [6, -2, 44, "0"])
def test_bad_ace_tops_raise(bad):
    with pytest.raises(ValueError, match="ace_top"):
        K.all_bound(1 << 20, bad)


def test_ace_top_in_hand_raises():
    with pytest.raises(ValueError, match="ace_top 2 is also in the hand"):
        K.evaluate(0b100, 2)


def test_batch_bad_input_raises():
    good = np.array([1, 2], dtype=np.uint64)
    with pytest.raises(ValueError, match="uint64"):
        K.all_bound_batch(good.astype(np.int64))
    with pytest.raises(ValueError, match="uint64"):
        K.all_bound_batch(good.reshape(2, 1))
    with pytest.raises(ValueError, match="shape"):
        K.all_bound_batch(good, np.array([-1]))
    with pytest.raises(ValueError, match="ace_top 9"):
        K.all_bound_batch(good, np.array([-1, 9]))
    with pytest.raises(ValueError, match="above 44"):
        K.evaluate_batch(np.array([1 << 50], dtype=np.uint64))
    with pytest.raises(ValueError, match="more than 9"):
        K.all_bound_batch(np.array([(1 << 10) - 1], dtype=np.uint64))
    with pytest.raises(ValueError, match="also in the hand"):
        K.all_bound_batch(np.array([1], dtype=np.uint64), np.array([0]))
    with pytest.raises(ValueError, match="integer"):
        K.all_bound_batch(good, np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="uint64"):
        K.is_set_batch(np.array([1.0]))


def test_tables_are_read_only_and_generated_in_the_package():
    assert K.NUM_PATTERNS == 25
    unions = list(K.generate_unions())
    assert len(unions) == len(set(unions))
    assert all(sum(u) <= 9 for u in unions)
    with pytest.raises(ValueError):
        K._CK_KEY[0, 0] = 1
