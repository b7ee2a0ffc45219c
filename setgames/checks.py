"""Type and range checks for what callers and files hand the library: options,
actions, seeds, bot budgets and files on disk.

One rule everywhere: an integer is a Python ``int`` or a numpy integer
(converted to ``int``, so that configs and records stay JSON), never a bool, a
float or a string; a real number is also finite and in a documented range.
A refusal is a one-line ``ValueError`` naming the option and the value; nothing
is clamped or rounded.

>>> check_int("max_turns", np.int64(5), 1, 10)
5
>>> check_int("max_turns", 2.0, 1, 10)
Traceback (most recent call last):
ValueError: max_turns 2.0 must be an integer 1..10
>>> as_action(np.array(3))
3
"""

from __future__ import annotations

import json
import math
import os
import re
from typing import Any

import numpy as np

__all__ = [
    "MAX_RECORD_BYTES",
    "MAX_SEED",
    "NUMPY_INTEGER_TYPES",
    "as_action",
    "check_bool",
    "check_choice",
    "check_int",
    "check_real",
    "check_seed",
    "decode_text",
    "is_integer",
    "parse_json",
    "printable",
    "read_text",
    "short_repr",
]

MAX_SEED = 2**63 - 1  # seeds live in 0..2**63-1, numpy's PCG64 takes them whole
# The most bytes one record (a records-file line, or a save file) may take. A record is a
# few hundred bytes to a few kB (a few characters an action; a round at a
# max_turns cap of 10000 turns is about 100 kB); 8 MB is far beyond any game, and keeps a
# hostile file (/dev/zero, a line without end) from being read into memory.
MAX_RECORD_BYTES = 8 * 2**20


# The numpy integer scalar types, for a set lookup on the per-step path (a
# ``type(x) in`` test costs a sixth of the isinstance checks of as_action).
NUMPY_INTEGER_TYPES = frozenset(
    t for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
                np.intc, np.uintc, np.longlong, np.ulonglong, np.intp, np.uintp))


# C0 and C1 controls (ESC starts a terminal's escape sequences) and the bidirectional overrides,
# which reorder what a terminal or a page shows.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: Any) -> str:
    r"""``text`` with every control character replaced by ``?``: a name from a file printed to
    a terminal must not move the cursor, clear the screen or recolour what follows.

    >>> printable("greedy\x1b[2J\x07"), printable("a\nb")
    ('greedy?[2J?', 'a?b')
    """
    return _CONTROLS.sub("?", str(text))


def short_repr(value: Any, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters, safe for any value (a huge
    int, whose decimal form Python refuses past 4300 digits, is named by its size)."""
    if isinstance(value, int) and value.bit_length() > 128:
        return f"<an integer of {value.bit_length()} bits>"
    try:
        text = repr(value)
    except Exception:  # a hostile __repr__: name the type only
        return f"<a {type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_integer(value: Any) -> bool:
    """True for a Python int or numpy integer that is not a bool."""
    return (isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)))


def as_action(value: Any) -> int:
    """``value`` as an action id: a Python int, a numpy integer or a 0-d integer
    array (not a bool); range and legality are the caller's to check.

    Raises:
        ValueError: anything else, naming it.
    """
    if type(value) is int:
        return value
    if type(value) in NUMPY_INTEGER_TYPES:
        return int(value)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if is_integer(value):
        return int(value)
    raise ValueError(f"action {short_repr(value)} is not an integer action id "
                     "(a Python or numpy integer, or a 0-d integer array)")


def check_int(name: str, value: Any, lo: int, hi: int) -> int:
    """``value`` as an int in ``lo..hi`` (a numpy integer is converted).

    Raises:
        ValueError: a non-integer (bool, float, str, ...) or one out of range.
    """
    if not is_integer(value) or not lo <= value <= hi:
        raise ValueError(f"{name} {short_repr(value)} must be an integer {lo}..{hi}")
    return int(value)


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a bool (Python or numpy); anything else (0, 1, "yes") is refused."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} {short_repr(value)} must be True or False")
    return bool(value)


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    """``value`` as one of the string ``choices`` (a ``str`` equal to one of them)."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} {short_repr(value)} must be one of {', '.join(map(repr, choices))}")
    return str(value)


def check_real(name: str, value: Any, lo: float, hi: float, lo_open: bool = False) -> float:
    """``value`` as a finite float in ``[lo, hi]`` (``(lo, hi]`` with ``lo_open``):
    a Python or numpy int or float, not a bool or a string."""
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    if ok:
        try:
            x = float(value)
        except OverflowError:  # an int beyond a double
            ok = False
        else:
            ok = math.isfinite(x) and (lo < x if lo_open else lo <= x) and x <= hi
    if not ok:
        left = "(" if lo_open else "["
        raise ValueError(f"{name} {short_repr(value)} must be a finite number in {left}{lo:g}, {hi:g}]")
    return x


def check_seed(value: Any, name: str = "seed") -> int:
    """``value`` as a seed: an integer 0..2**63-1."""
    if not is_integer(value) or not 0 <= value <= MAX_SEED:
        raise ValueError(f"{name} {short_repr(value)} must be an integer 0..2**63-1")
    return int(value)


def read_text(path: str | os.PathLike, limit: int = MAX_RECORD_BYTES) -> str:
    """The UTF-8 text of the file at ``path``, read through at most ``limit`` bytes.

    Raises:
        ValueError: a file larger than ``limit`` (``/dev/zero`` included) or not UTF-8 text.
        OSError: the file cannot be opened or read.
    """
    where = os.fspath(path)
    with open(where, "rb") as f:
        data = f.read(limit + 1)
    return decode_text(data, repr(where), limit)


def decode_text(data: bytes, where: str, limit: int = MAX_RECORD_BYTES) -> str:
    """``data`` (at most ``limit`` bytes, read from ``where``) as text.

    Raises:
        ValueError: more than ``limit`` bytes, a NUL byte, or bytes that are not UTF-8.
    """
    if len(data) > limit:
        raise ValueError(f"{where} is larger than {limit:,} bytes: not a record")
    if b"\0" in data:
        raise ValueError(f"{where} is not a text file (it holds NUL bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{where} is not a text file (not UTF-8)") from None


def parse_json(text: str, where: str) -> Any:
    """``json.loads(text)``, every failure a one-line ``ValueError`` naming ``where``
    (bad JSON, an integer of more digits than Python converts, nesting too deep)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: not valid JSON ({exc.msg})") from None
    except ValueError as exc:  # an integer beyond Python's 4300-digit conversion limit
        raise ValueError(f"{where}: not a usable JSON value ({str(exc).splitlines()[0]})") from None
    except RecursionError:
        raise ValueError(f"{where}: JSON nested too deep") from None
