"""Checks the three games' batch lockstep tests share (each test replays its batch in ``raw_env``)."""

from __future__ import annotations

import numpy as np


def check_greedy_actions(b, twins, experts):
    """``b.greedy_actions()`` is the Python greedy bot's move in every live slot (``experts[i]``
    playing slot ``i``'s position in its twin ``raw_env``) and moves nothing; returns the moves."""
    before = b.obs.copy(), b.mask.copy(), b.seat.copy()
    got = b.greedy_actions()
    for old, now in zip(before, (b.obs, b.mask, b.seat), strict=True):
        np.testing.assert_array_equal(old, now)
    for i, t in enumerate(twins):
        e = t.env
        if t.over():
            assert got[i] == 0
            continue
        assert got[i] == experts[i].act(e.game, e.game_state, e._seat_of[e.agent_selection]), i
    return got
