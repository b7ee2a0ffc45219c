"""The history block's layout (setgames.history): newest first, seats seen from the observer,
the oldest rows scrolling off, the count capped; hand-worked cases."""

from __future__ import annotations

import numpy as np
import pytest

from setgames.history import COUNT_CAP, event_rows, history_block, history_features, relative_seat
from setgames.spec import ObsSpec


def test_relative_seat_puts_the_observer_first_and_follows_seat_order():
    # four seats seen from seat 2: itself 1, seat 3 next, then 0, then 1; no seat stays 0
    assert [relative_seat(s, 2, 4) for s in (2, 3, 0, 1, -1)] == [1, 2, 3, 4, 0]


def test_the_newest_row_comes_first_and_the_rest_is_padding():
    rows = [(1, 0, 0, 0), (2, 1, 9, -3), (3, -1, -1, 7)]
    block = np.frombuffer(history_block(rows, 5, observer=0, num_seats=2), np.int8)
    assert block.size == 4 * 5 + 1
    assert event_rows(block, 5).tolist() == [[3, 0, 0, 7], [2, 2, 10, -3], [1, 1, 1, 0], [0, 0, 0, 0],
                                             [0, 0, 0, 0]]
    assert block[-1] == 3


def test_the_oldest_rows_scroll_off_and_the_count_says_so():
    rows = [(1, i % 2, i % 40, 0) for i in range(200)]
    block = np.frombuffer(history_block(rows, 4, observer=1, num_seats=2), np.int8)
    assert [r[2] - 1 for r in event_rows(block, 4).tolist()] == [199 % 40, 198 % 40, 197 % 40, 196 % 40]
    assert block[-1] == COUNT_CAP


def test_event_rows_reads_a_batch_of_blocks():
    blocks = np.stack([np.frombuffer(history_block([(1, s, s, s)], 2, 0, 3), np.int8) for s in range(3)])
    assert event_rows(blocks, 2)[:, 0].tolist() == [[1, 1, 1, 0], [1, 2, 2, 1], [1, 3, 3, 2]]


def test_the_features_lay_out_the_block_and_bound_each_column():
    spec = ObsSpec(history_features(6, ("take", "discard"), num_seats=3, num_cards=45,
                                    arg_doc="0", arg_low=-1, arg_high=5))
    assert spec.size == 4 * 6 + 1
    assert [f.high for f in spec.features] == [2, 3, 45, 5, COUNT_CAP]
    assert "1 take, 2 discard" in spec.features[0].doc
    with pytest.raises(ValueError):
        history_features(6, (), 2, 36, "")
