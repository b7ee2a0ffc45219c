"""Tests of setgames.kernels.tusac against a brute-force oracle and the rule text.

The oracle (``tests/setgames/kernels/tusac_oracle.py``) never imports the
kernel: it lists every valid Tu Sac set over the 28 types (``tusac_env/README.md``,
rules choice 16) and searches the whole count vector (no colour split, no tables).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from setgames.kernels import tusac
from tests.setgames.kernels.tusac_oracle import (
    ALL_SETS,
    CANNON,
    GREEN,
    GUARD,
    KING,
    KNIGHT,
    MINISTER,
    PAWN,
    RED,
    ROOK,
    SET_KINDS,
    SET_VALUE,
    WHITE,
    YELLOW,
    N,
    _fits,
    _minus,
    _vec,
    oracle_trash,
    oracle_value,
    tt,
)


def private(counts: list[int], khaps: list[int]) -> tuple[int, ...]:
    return tuple(c - 3 * (t in khaps) for t, c in enumerate(counts))


def oracle_min_trash(counts, khaps=()):
    return oracle_trash(private(counts, list(khaps)))


def oracle_max_value(counts, khaps=()):
    v = oracle_value(private(counts, list(khaps)))
    return None if v is None else v + 3 * len(khaps)


def oracle_discards(counts, khaps=()):
    v = private(counts, list(khaps))
    t0 = oracle_trash(v)
    return [t for t in range(N) if v[t] and oracle_trash(_minus(v, _vec([t]))) == t0 - 1]


def oracle_outs(counts, unseen, khaps=()):
    v = private(counts, list(khaps))
    out = [0] * N
    for t in range(N):
        if not v[t]:
            continue
        for u in range(N):
            for _, _, s in ALL_SETS:
                if not s[u]:
                    continue
                rest = _minus(s, _vec([u]))  # the private cards of the meld
                if rest[t] and _fits(rest, v):
                    out[t] += unseen[u]
                    break
    return out


def oracle_worst(counts, unseen, khaps=()):
    cands = oracle_discards(counts, khaps)
    if not cands:
        return []
    o = oracle_outs(counts, unseen, khaps)
    low = min(o[t] for t in cands)
    return [t for t in cands if o[t] == low]


# ---------------------------------------------------------------- strategies


def hand(*types: int) -> list[int]:
    return list(_vec(list(types)))


KINGS = [tt(c, KING) for c in range(4)]
PAWNS = [tt(c, PAWN) for c in range(4)]


@st.composite
def hands(draw):
    """(counts, khaps): empty, dealt 20/21-card, pawn-heavy, king-heavy or any counts."""
    style = draw(st.sampled_from(["empty", "deal", "deal", "pawns", "kings", "any"]))
    if style == "empty":
        counts = [0] * N
    elif style == "any":
        counts = draw(st.lists(st.integers(0, 4), min_size=N, max_size=N))
    elif style == "deal":
        cards = draw(st.lists(st.integers(0, 4 * N - 1), min_size=20, max_size=21, unique=True))
        counts = hand(*(c // 4 for c in cards))
    else:
        heavy = PAWNS if style == "pawns" else KINGS + [t + 1 for t in KINGS] + [t + 2 for t in KINGS]
        pool = st.one_of(st.sampled_from(heavy), st.integers(0, N - 1))
        types = draw(st.lists(pool, max_size=20))
        counts = [min(4, c) for c in hand(*types)]
    eligible = [t for t in range(N) if counts[t] >= 3]
    khaps = draw(st.lists(st.sampled_from(eligible), unique=True)) if eligible else []
    return counts, khaps


unseen_st = st.lists(st.integers(0, 4), min_size=N, max_size=N)
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------- rule-text cases


def test_single_king_is_a_set():
    assert tusac.min_trash(hand(tt(WHITE, KING))) == 0
    assert tusac.max_value(hand(tt(WHITE, KING))) == 1
    assert tusac.min_trash(hand(tt(WHITE, GUARD))) == 1


def test_identical_cards_make_pairs_triples_quads():
    for n, value in ((2, 0), (3, 1), (4, 1)):
        counts = hand(*[tt(GREEN, CANNON)] * n)
        assert tusac.min_trash(counts) == 0
        assert tusac.max_value(counts) == value
        kind = {2: "pair", 3: "triple", 4: "quad"}[n]
        assert tusac.best_arrangement(counts) == [(kind, (tt(GREEN, CANNON),) * n)]


def test_king_guard_minister_of_one_colour():
    assert tusac.min_trash(hand(tt(RED, KING), tt(RED, GUARD), tt(RED, MINISTER))) == 0
    # Mixed colours: the king stands alone, guard and minister are trash.
    assert tusac.min_trash(hand(tt(RED, KING), tt(YELLOW, GUARD), tt(RED, MINISTER))) == 2


def test_rook_cannon_knight_of_one_colour():
    assert tusac.min_trash(hand(tt(GREEN, ROOK), tt(GREEN, CANNON), tt(GREEN, KNIGHT))) == 0
    assert tusac.min_trash(hand(tt(GREEN, ROOK), tt(WHITE, CANNON), tt(GREEN, KNIGHT))) == 3


def test_three_or_four_pawns_of_different_colours():
    assert tusac.min_trash(hand(*PAWNS[:3])) == 0
    assert tusac.max_value(hand(*PAWNS[:3])) == 1
    assert tusac.max_value(hand(*PAWNS)) == 2
    assert tusac.best_arrangement(hand(*PAWNS)) == [("pawns4", tuple(PAWNS))]
    # Two pawns of one colour and one of another are not a pawn set.
    assert tusac.min_trash(hand(PAWNS[0], PAWNS[0], PAWNS[1])) == 1


def test_waiting_hands_have_two_trash():
    # The pair-priority exception's hands (tusac_env/README.md, rules choices 7 and 20):
    # exactly 2 trash cards.
    assert tusac.min_trash(hand(tt(RED, PAWN), tt(GREEN, PAWN))) == 2
    assert tusac.min_trash(hand(tt(RED, ROOK), tt(RED, CANNON))) == 2
    assert tusac.min_trash(hand(tt(RED, ROOK), tt(RED, KNIGHT))) == 2
    assert tusac.min_trash(hand(tt(RED, CANNON), tt(RED, KNIGHT))) == 2


def test_khap_is_never_broken():
    counts = hand(*[tt(RED, ROOK)] * 3, tt(RED, CANNON), tt(RED, KNIGHT))
    assert tusac.min_trash(counts) == 0  # RCN + a pair of rooks
    assert tusac.min_trash(counts, [tt(RED, ROOK)]) == 2  # the Khap rooks join no RCN
    assert tusac.trash_discards(counts, [tt(RED, ROOK)]) == [tt(RED, CANNON), tt(RED, KNIGHT)]


def test_khap_plus_one_matching_card():
    rook = tt(RED, ROOK)
    assert tusac.min_trash(hand(*[rook] * 4), [rook]) == 1  # the fourth rook is alone
    assert tusac.trash_discards(hand(*[rook] * 4), [rook]) == [rook]
    king = tt(YELLOW, KING)
    assert tusac.min_trash(hand(*[king] * 4), [king]) == 0  # the fourth king stands alone
    assert tusac.max_value(hand(*[king] * 4), [king]) == 3 + 1
    assert tusac.best_arrangement(hand(*[king] * 4), [king]) == [("khap", (king,) * 3), ("king", (king,))]


def test_khap_is_never_trash():
    counts = hand(*[tt(WHITE, GUARD)] * 3, tt(RED, GUARD))
    assert tusac.min_trash(counts, [tt(WHITE, GUARD)]) == 1
    assert tusac.trash_discards(counts, [tt(WHITE, GUARD)]) == [tt(RED, GUARD)]
    assert tusac.outs(counts, [4] * N, [tt(WHITE, GUARD)])[tt(WHITE, GUARD)] == 0


def test_set_values_khap_four_pawns_pair_and_others():
    # Khap 3, four pawns 2, a pair 0, every other set 1 (tusac_env/README.md, rules choice 22).
    g = tt(GREEN, MINISTER)
    counts = hand(g, g, g, *PAWNS, tt(RED, ROOK), tt(RED, ROOK), tt(RED, KING))
    assert tusac.max_value(counts, [g]) == 3 + 2 + 0 + 1
    assert tusac.max_value(counts) == 1 + 2 + 0 + 1  # an undeclared triple is worth 1
    # Two kings are worth more as two single kings than as a pair.
    assert tusac.max_value(hand(KINGS[0], KINGS[0])) == 2


def test_max_value_none_when_trash_remains():
    assert tusac.max_value(hand(tt(RED, GUARD))) is None
    assert tusac.best_arrangement(hand(tt(RED, GUARD))) is None
    assert tusac.max_value([0] * N) == 0
    assert tusac.best_arrangement([0] * N) == []


def test_outs_hand_worked():
    counts = hand(tt(RED, PAWN), tt(YELLOW, PAWN))
    o = tusac.outs(counts, [4] * N)
    # red pawn: 4 red (pair) + green and white (the yellow pawn makes the third
    # colour); a yellow active card would need a third colour already held.
    assert o[tt(RED, PAWN)] == 12
    assert o[tt(YELLOW, PAWN)] == 12
    assert sum(o) == 24


def test_worst_discards_penalty_rule_case():
    # Rook + cannon wait on the knight; a lone red guard waits only on its own pair.
    counts = hand(tt(RED, ROOK), tt(RED, CANNON), tt(WHITE, GUARD))
    unseen = [4] * N
    unseen[tt(WHITE, GUARD)] = 1
    assert tusac.trash_discards(counts) == [tt(RED, ROOK), tt(RED, CANNON), tt(WHITE, GUARD)]
    assert tusac.worst_discards(counts, unseen) == [tt(WHITE, GUARD)]
    assert tusac.worst_discards(hand(KINGS[0]), unseen) == []


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("counts", "khaps", "match"),
    [
        ([0] * 27 + [5], (), r"counts\[27\].*= 5"),
        ([-1] + [0] * 27, (), r"counts\[0\].*= -1"),
        ([0] * 27, (), "28 entries, got 27"),
        ([0] * 29, (), "28 entries, got 29"),
        ([0.5] + [0] * 27, (), r"counts\[0\].*0.5"),
        ([0] * 28, (3,), "khap type 3 .*held 0 times"),
        ([2] * 28, [5], "khap type 5 .*held 2 times"),
        ([3] * 28, [5, 5], "khap type 5 .*twice"),
        ([3] * 28, [28], "khap type 28"),
        ([3] * 28, [-1], "khap type -1"),
        ([9] * 28, [5], r"counts\[0\].*= 9"),
        (np.zeros((2, 28), int), (), "1-D"),
    ],
)
def test_bad_input_raises_value_error(counts, khaps, match):
    for fn in (tusac.min_trash, tusac.max_value, tusac.trash_discards, tusac.best_arrangement):
        with pytest.raises(ValueError, match=match):
            fn(counts, khaps)
    for fn in (tusac.outs, tusac.worst_discards):
        with pytest.raises(ValueError, match=match):
            fn(counts, [0] * N, khaps)


def test_bad_unseen_raises():
    with pytest.raises(ValueError, match=r"unseen\[4\].*= 7"):
        tusac.outs(hand(3), [0, 0, 0, 0, 7] + [0] * 23)
    with pytest.raises(ValueError, match="unseen"):
        tusac.outs_batch(np.zeros((2, N), np.int8), np.zeros((3, N), np.int8))


def test_other_integer_inputs_accepted():
    counts = np.array(hand(*[tt(RED, ROOK)] * 3, tt(RED, CANNON)), np.int64)
    assert tusac.min_trash(counts, np.array([tt(RED, ROOK)])) == 1
    assert tusac.min_trash(tuple(counts.tolist()), {tt(RED, ROOK)}) == 1
    assert tusac.min_trash(list(counts), (t for t in [tt(RED, ROOK)])) == 1


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: (np.zeros((3, 27), np.int8), None), r"shape \(B, 28\)"),
        (lambda: (np.zeros(28, np.int8), None), r"shape \(B, 28\)"),
        (lambda: (np.zeros((3, 28), np.float64), None), "integer dtype"),
        (lambda: (np.zeros((3, 28), bool), None), "integer dtype"),
        (lambda: ([[0] * 28], None), "numpy array"),
        (lambda: (np.full((3, 28), 5, np.int64), None), r"counts\[0, 0\].*= 5"),
        (lambda: (np.full((3, 28), -1, np.int8), None), r"counts\[0, 0\].*= -1"),
        (lambda: (np.zeros((3, 28), np.int8), np.zeros((3, 28), np.int8)), "bool array"),
        (lambda: (np.zeros((3, 28), np.int8), np.ones((3, 28), bool)), r"khap\[0, 0\].*held 0 times"),
    ],
)
def test_bad_batch_input_raises_value_error(make, match):
    counts, khap = make()
    for fn in (tusac.min_trash_batch, tusac.max_value_batch, tusac.trash_discards_batch):
        with pytest.raises(ValueError, match=match):
            fn(counts, khap)
    for fn in (tusac.outs_batch, tusac.worst_discards_batch):
        with pytest.raises(ValueError, match=match):
            fn(counts, np.zeros((3, N), np.int8), khap)


# ---------------------------------------------------------------- oracle properties


@FAST
@given(hands())
def test_min_trash_matches_oracle(h):
    counts, khaps = h
    assert tusac.min_trash(counts, khaps) == oracle_min_trash(counts, khaps)


@FAST
@given(hands())
def test_max_value_matches_oracle(h):
    counts, khaps = h
    assert tusac.max_value(counts, khaps) == oracle_max_value(counts, khaps)


@FAST
@given(hands())
def test_best_arrangement_is_a_best_partition(h):
    counts, khaps = h
    arr = tusac.best_arrangement(counts, khaps)
    best = oracle_max_value(counts, khaps)
    if best is None:
        assert arr is None
        return
    covered = [0] * N
    for kind, types in arr:
        assert kind == "khap" or (kind, types) in SET_KINDS
        if kind == "khap":
            assert len(set(types)) == 1 and len(types) == 3 and types[0] in khaps
        for t in types:
            covered[t] += 1
    assert covered == counts
    assert sorted(t[0] for k, t in arr if k == "khap") == sorted(khaps)
    assert sum(SET_VALUE[k] for k, _ in arr) == best


@FAST
@given(hands())
def test_trash_discards_match_oracle(h):
    counts, khaps = h
    got = tusac.trash_discards(counts, khaps)
    assert got == oracle_discards(counts, khaps)
    # Invariant: a hand with trash always has a trash-lowering discard.
    assert bool(got) == (tusac.min_trash(counts, khaps) > 0)


@FAST
@given(hands(), unseen_st)
def test_outs_and_worst_discards_match_oracle(h, unseen):
    counts, khaps = h
    assert tusac.outs(counts, unseen, khaps) == oracle_outs(counts, unseen, khaps)
    assert tusac.worst_discards(counts, unseen, khaps) == oracle_worst(counts, unseen, khaps)


def _batch_arrays(hs, dtype):
    counts = np.array([c for c, _ in hs], dtype).reshape(-1, N)
    khap = np.zeros(counts.shape, bool)
    for i, (_, ks) in enumerate(hs):
        khap[i, ks] = True
    return counts, khap


def _all_batch(counts, unseen, khap):
    return (
        tusac.min_trash_batch(counts, khap),
        tusac.max_value_batch(counts, khap),
        tusac.trash_discards_batch(counts, khap),
        tusac.outs_batch(counts, unseen, khap),
        tusac.worst_discards_batch(counts, unseen, khap),
    )


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(hands(), unseen_st), max_size=12),
    st.sampled_from([np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64]),
)
def test_batch_equals_scalar(items, dtype):
    hs = [h for h, _ in items]
    counts, khap = _batch_arrays(hs, dtype)
    unseen = np.array([u for _, u in items], dtype).reshape(-1, N)
    trash, value, disc, outs, worst = _all_batch(counts, unseen, khap)
    assert trash.shape == value.shape == (len(hs),)
    assert disc.shape == outs.shape == worst.shape == (len(hs), N)
    assert disc.dtype == worst.dtype == np.bool_
    for i, ((c, ks), u) in enumerate(zip(hs, unseen.tolist(), strict=True)):
        assert trash[i] == tusac.min_trash(c, ks)
        v = tusac.max_value(c, ks)
        assert value[i] == (-1 if v is None else v)
        assert np.flatnonzero(disc[i]).tolist() == tusac.trash_discards(c, ks)
        assert outs[i].tolist() == tusac.outs(c, u, ks)
        assert np.flatnonzero(worst[i]).tolist() == tusac.worst_discards(c, u, ks)
    # The same hands in a batch too big for the row-by-row path give the same rows.
    reps = tusac.SMALL_BATCH // max(1, len(hs)) + 1
    big = _all_batch(np.tile(counts, (reps, 1)), np.tile(unseen, (reps, 1)), np.tile(khap, (reps, 1)))
    for small_result, big_result in zip((trash, value, disc, outs, worst), big, strict=True):
        assert big_result.dtype == small_result.dtype
        assert np.array_equal(big_result, np.tile(small_result, (reps,) + (1,) * (small_result.ndim - 1)))


def test_batch_accepts_views_and_fortran_order():
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 5, (60, N)).astype(np.int8)
    expected = [tusac.min_trash(c) for c in counts.tolist()]
    assert tusac.min_trash_batch(counts[7:50]).tolist() == expected[7:50]
    assert tusac.min_trash_batch(counts[::3]).tolist() == expected[::3]
    assert tusac.min_trash_batch(np.asfortranarray(counts)).tolist() == expected
    assert tusac.min_trash_batch(counts.astype(">i4")).tolist() == expected  # non-native byte order
    wide = np.zeros((60, N + 3), np.int16)
    wide[:, 1 : N + 1] = counts
    assert tusac.min_trash_batch(wide[:, 1 : N + 1]).tolist() == expected
    before = counts.copy()
    khap = counts >= 3
    tusac.trash_discards_batch(counts, khap)
    tusac.worst_discards_batch(counts, counts, khap)
    assert np.array_equal(counts, before)  # inputs are never written


def test_generic_index_path_equals_multiply_shift_path():
    # The plain base-5 path serves big-endian machines; it must agree bit for bit.
    rng = np.random.default_rng(5)
    x = rng.integers(0, 5, (300, N)).astype(np.uint8)
    fast_idx, fast_pawn = tusac._indices(x)
    slow_idx, slow_pawn = tusac._indices_generic(x)
    assert all(np.array_equal(a, b) for a, b in zip(fast_idx, slow_idx, strict=True))
    assert np.array_equal(fast_pawn, slow_pawn)
    assert np.array_equal(tusac._discards_x(x), tusac._discards_generic(x))


def test_batch_without_khap_equals_scalar_on_random_deals():
    rng = np.random.default_rng(7)
    deck = np.repeat(np.arange(N), 4)
    counts = np.stack([np.bincount(rng.permutation(deck)[:20], minlength=N) for _ in range(500)])
    unseen = rng.integers(0, 5, counts.shape)
    trash = tusac.min_trash_batch(counts)
    value = tusac.max_value_batch(counts)
    disc = tusac.trash_discards_batch(counts)
    outs = tusac.outs_batch(counts, unseen)
    worst = tusac.worst_discards_batch(counts, unseen)
    for i, c in enumerate(counts.tolist()):
        u = unseen[i].tolist()
        assert trash[i] == tusac.min_trash(c)
        assert value[i] == (tusac.max_value(c) if trash[i] == 0 else -1)
        assert np.flatnonzero(disc[i]).tolist() == tusac.trash_discards(c)
        assert outs[i].tolist() == tusac.outs(c, u)
        assert np.flatnonzero(worst[i]).tolist() == tusac.worst_discards(c, u)
    # Spot-check the scalar path against the oracle on the same deals.
    for c in counts[:40].tolist():
        assert tusac.min_trash(c) == oracle_min_trash(c)


def test_batch_of_zero_hands():
    empty = np.zeros((0, N), np.int8)
    assert tusac.min_trash_batch(empty).shape == (0,)
    assert tusac.worst_discards_batch(empty, empty).shape == (0, N)


def test_generic_outs_path_equals_byte_lane_path():
    rng = np.random.default_rng(6)
    x = rng.integers(0, 5, (300, N)).astype(np.uint8)
    x[rng.random(x.shape) < 0.4] = 0
    u = rng.integers(0, 5, (300, N)).astype(np.uint8)
    assert np.array_equal(tusac._outs_x(x, u), tusac._outs_generic(x, u))
