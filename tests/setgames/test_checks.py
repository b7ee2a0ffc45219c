"""The input checks: integers, bools, choices, reals, seeds, actions and bounded reads."""

from __future__ import annotations

import json
from decimal import Decimal

import numpy as np
import pytest

from setgames.checks import (
    MAX_SEED,
    as_action,
    check_bool,
    check_choice,
    check_int,
    check_real,
    check_seed,
    read_text,
    short_repr,
)


@pytest.mark.parametrize("value", [3, np.int8(3), np.int64(3), np.uint16(3)])
def test_check_int_accepts_python_and_numpy_integers_as_python_ints(value):
    out = check_int("n", value, 1, 5)
    assert type(out) is int and out == 3
    assert json.dumps({"n": out}) == '{"n": 3}'


@pytest.mark.parametrize("value", [True, False, np.bool_(True), 3.0, np.float64(3), "3", b"3",
                                   Decimal(3), None, [3], np.array([3]), 0, 6, 10**400])
def test_check_int_refuses_non_integers_and_out_of_range(value):
    with pytest.raises(ValueError, match=r"^n .* must be an integer 1\.\.5$"):
        check_int("n", value, 1, 5)


def test_check_bool_refuses_ints_and_strings():
    assert check_bool("b", np.bool_(True)) is True and check_bool("b", False) is False
    for bad in (0, 1, "yes", None, 1.0):
        with pytest.raises(ValueError, match="must be True or False"):
            check_bool("b", bad)


def test_check_choice_wants_an_equal_string():
    assert check_choice("r", np.str_("win"), ("score", "win")) == "win"
    for bad in ("Win", 1, None, ["win"], b"win"):
        with pytest.raises(ValueError, match="must be one of 'score', 'win'"):
            check_choice("r", bad, ("score", "win"))


@pytest.mark.parametrize("value", [1, 2.5, np.float32(0.5), np.int64(7), 1e6])
def test_check_real_accepts_finite_numbers_in_range(value):
    out = check_real("x", value, 0.0, 1e6, lo_open=True)
    assert type(out) is float and out == float(value)


@pytest.mark.parametrize("value", [0, 0.0, -1, 1e6 + 1, 10**400, 1e308, float("inf"), float("nan"),
                                   True, "1", Decimal("1.5"), None, np.array(1.0)])
def test_check_real_refuses_bools_strings_infinities_and_out_of_range(value):
    with pytest.raises(ValueError, match=r"must be a finite number in \(0, 1e\+06\]"):
        check_real("x", value, 0.0, 1e6, lo_open=True)


def test_check_seed_bounds_are_those_of_the_generator():
    assert check_seed(0) == 0 and check_seed(np.uint64(MAX_SEED)) == MAX_SEED
    for bad in (-1, MAX_SEED + 1, 1.0, "5", True, None, 10**400):
        with pytest.raises(ValueError, match=r"must be an integer 0\.\.2"):
            check_seed(bad)


@pytest.mark.parametrize("value", [15, np.int64(15), np.uint8(15), np.array(15), np.array(15, np.int16)])
def test_as_action_takes_integers_and_0d_integer_arrays(value):
    a = as_action(value)
    assert type(a) is int and a == 15


@pytest.mark.parametrize("value", [15.99, 15.0, "15", b"15", Decimal("15.5"), True, np.bool_(False),
                                   float("inf"), None, np.array([15]), np.array(15.0), [15]])
def test_as_action_refuses_floats_strings_bytes_decimals_bools_and_arrays(value):
    with pytest.raises(ValueError, match="is not an integer action id"):
        as_action(value)


def test_short_repr_names_huge_integers_by_size_and_cuts_long_text():
    assert short_repr(10**5000) == f"<an integer of {(10**5000).bit_length()} bits>"
    assert len(short_repr("x" * 1000)) == 40 and short_repr(-5) == "-5"


def test_read_text_reads_a_small_file_and_refuses_big_nul_and_binary(tmp_path):
    ok = tmp_path / "ok.json"
    ok.write_text('{"a": "é"}\n', encoding="utf-8")
    assert read_text(ok) == '{"a": "é"}\n'
    big = tmp_path / "big"
    big.write_bytes(b"x" * 1001)
    with pytest.raises(ValueError, match="is larger than"):
        read_text(big, limit=1000)
    assert read_text(big, limit=1001) == "x" * 1001
    with pytest.raises(ValueError, match="is larger than"):
        read_text("/dev/zero", limit=10_000)
    nul = tmp_path / "nul"
    nul.write_bytes(b"{}\0")
    with pytest.raises(ValueError, match="NUL"):
        read_text(nul)
    latin = tmp_path / "latin"
    latin.write_bytes(b"\xe9t\xe9")
    with pytest.raises(ValueError, match="not a text file"):
        read_text(latin)
