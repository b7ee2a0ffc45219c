"""The shared checks of setgames.validate, on hand-worked values."""

from __future__ import annotations

import numpy as np
import pytest

from setgames.validate import (
    StateError,
    check_bool,
    check_cards_once,
    check_events,
    check_float,
    check_ids,
    check_int,
    check_list,
    check_mask,
    check_str,
    legal_actions_consistent,
    observer_seat,
)


@pytest.mark.parametrize("bad", [True, False, 1.0, "1", None, np.int64(1), 4, -1, 10**30, [1]])
def test_check_int_takes_only_ints_in_range(bad):
    with pytest.raises(StateError):
        check_int(bad, "x", 0, 3)


def test_check_int_takes_int_subclasses_but_not_bool():
    import enum

    class E(enum.IntEnum):
        A = 2

    assert check_int(E.A, "x", 0, 3) is E.A
    assert check_int(0, "x", 0, 3) == 0 and check_int(3, "x", 0, 3) == 3


@pytest.mark.parametrize(("value", "ok"), [
    (1.5, True), (-3, True), (0, True), (float("nan"), False), (float("inf"), False), (True, False),
    (10**400, False), (1e301, False), ("1", False), (None, False),
])
def test_check_float(value, ok):
    if ok:
        assert check_float(value, "x") == value
    else:
        with pytest.raises(StateError):
            check_float(value, "x")


def test_check_ids_names_the_bad_entry():
    assert check_ids((0, 5, 2), "pile", 0, 5) == [0, 5, 2]
    with pytest.raises(StateError, match=r"pile\[2\] 6 must be an integer 0..5"):
        check_ids([0, 5, 6], "pile", 0, 5)
    with pytest.raises(StateError, match=r"pile\[1\] True"):
        check_ids([0, True], "pile", 0, 5)
    with pytest.raises(StateError, match="3 entries, not 2"):
        check_ids([0, 1, 2], "pile", 0, 5, length=2)
    with pytest.raises(StateError, match="more than 2"):
        check_ids([0, 1, 2], "pile", 0, 5, max_len=2)
    with pytest.raises(StateError, match="must be a list"):
        check_list("012", "pile")


def test_check_mask():
    assert check_mask(0b101, "hand", 0b111) == 0b101
    with pytest.raises(StateError, match=r"bit\(s\) \[3, 70\]"):
        check_mask(1 << 3 | 1 << 70 | 1, "hand", 0b111)
    for bad in (-1, True, 1.0, "5"):
        with pytest.raises(StateError):
            check_mask(bad, "hand", 0b111)


def test_check_cards_once_finds_duplicates_strays_and_missing_cards():
    check_cards_once({"a": [0, 2], "b": [1]}, range(3))
    with pytest.raises(StateError, match="card 2 is both in a and in b"):
        check_cards_once({"a": [0, 2], "b": [1, 2]}, range(3))
    with pytest.raises(StateError, match="card 7 in b is not a card"):
        check_cards_once({"a": [0, 2], "b": [1, 7]}, range(3))
    with pytest.raises(StateError, match=r"card\(s\) \[1\] are in no zone"):
        check_cards_once({"a": [0, 2]}, range(3))


def test_check_str_and_bool():
    assert check_str("win", "r", ("win", "")) == "win"
    assert check_str(None, "r", none_ok=True) is None
    for bad in (None, 5, "x" * 201):
        with pytest.raises(StateError):
            check_str(bad, "r")
    with pytest.raises(StateError, match="one of"):
        check_str("lose", "r", ("win",))
    assert check_bool(False, "b") is False
    with pytest.raises(StateError):
        check_bool(0, "b")


def test_check_events():
    events = [("deal", 0, 8), ["meld", 1, "pair", [3, 3]], ("tie", 1, None, 0.5)]
    assert check_events(events) == events
    for bad in ([("deal", {"a": 1})], [()], [(5, "x")], ["deal"], [("x", [1.5])], [("x", float("nan"))], 5):
        with pytest.raises(StateError):
            check_events(bad)


def test_legal_actions_consistent():
    legal_actions_consistent([0, 3, 9], 10, over=False)
    legal_actions_consistent([], 10, over=True)
    for legal, over in (([], False), ([1], True), ([3, 3], False), ([3, 1], False), ([-1, 2], False),
                        ([10], False)):
        with pytest.raises(StateError):
            legal_actions_consistent(legal, 10, over)


def test_observer_seat():
    assert observer_seat(np.int64(2), 3) == 2 and type(observer_seat(np.int64(2), 3)) is int
    for bad in (-1, 3, True, 1.0, "1", None, np.float64(1.0)):
        with pytest.raises(ValueError, match="seat"):
            observer_seat(bad, 3)
