"""The expert's targets (:mod:`setgames.learn.expert`), position by position against the rule
written out; numpy only, so they run without torch."""

from __future__ import annotations

import numpy as np

from setgames.learn.expert import anchor_moves, search_moves, search_policy, search_value


def _positions(seed, n=500, width=9):
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(n, width)).astype(np.float32)
    legal = rng.random((n, width)) < 0.6
    legal[np.arange(n), rng.integers(width, size=n)] = True
    anchor = np.array([rng.choice(np.flatnonzero(row)) for row in legal])
    return values, legal, anchor


def test_search_moves_take_the_best_legal_value_unless_the_anchor_is_within_the_margin():
    values, legal, anchor = _positions(0)
    for margin in (0.0, 0.3):
        got = search_moves(values, legal, anchor, margin)
        for i in range(len(values)):  # the rule, position by position
            ids = np.flatnonzero(legal[i])
            best = ids[np.argmax(values[i, ids])]
            want = best if values[i, best] > values[i, anchor[i]] + margin else anchor[i]
            assert got[i] == want
        soft = search_policy(values, legal, anchor, margin, 1e-3)  # a cold soft target is the hard one
        assert np.allclose(soft.sum(-1), 1) and not soft[~legal].any()
        assert (soft.argmax(-1) == got).all()


def test_a_different_anchor_changes_the_move_only_inside_the_margin():
    values, legal, greedy = _positions(1)
    other = np.array([np.flatnonzero(row)[-1] for row in legal])
    margin = 0.5
    a, b = search_moves(values, legal, greedy, margin), search_moves(values, legal, other, margin)
    best = np.where(legal, values, -np.inf).max(-1)
    rows = np.arange(len(values))
    clear = (best > values[rows, greedy] + margin) & (best > values[rows, other] + margin)
    assert (a[clear] == b[clear]).all()  # a clearly better move is taken from either anchor
    assert (a != b).any()  # and inside the margin each anchor keeps its own move
    argbest = np.where(legal, values, -np.inf).argmax(-1)
    assert ((a == greedy) | (a == argbest)).all() and ((b == other) | (b == argbest)).all()


def test_the_search_value_is_the_value_of_the_searchs_move():
    values, legal, anchor = _positions(2)
    moves = search_moves(values, legal, anchor, 0.2)
    got = search_value(values, moves)
    assert got.dtype == np.float32
    for i in range(len(values)):
        assert got[i] == values[i, moves[i]]
        assert got[i] >= values[i, anchor[i]]  # the search never takes a worse move than its anchor


def test_anchor_moves_are_the_policys_legal_argmax():
    rng = np.random.default_rng(3)
    logits = rng.normal(size=(300, 7)) * 3
    legal = rng.random((300, 7)) < 0.4
    legal[np.arange(300), rng.integers(7, size=300)] = True
    got = anchor_moves(logits, legal)
    for i in range(300):
        ids = np.flatnonzero(legal[i])
        assert got[i] == ids[np.argmax(logits[i, ids])]
