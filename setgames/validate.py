"""Checks shared by the games' state validators (``<game>_env/validate.py``).

A validator is what stands between a state given by a caller or read from a
file and the compiled engines, which run with their bounds checks off: it
refuses, with one ``ValueError`` naming the field, anything whose ids, types,
lengths or counts the rules could not produce. Every helper raises
:class:`StateError` (a ``ValueError``) and returns the value it checked.

Types are strict: an integer field holds a Python ``int`` (an ``IntEnum``
member is one) and never a ``bool``, a float, a string or a numpy scalar;
a float field holds a finite ``int`` or ``float``. (Options and actions, which
callers type by hand, are checked more leniently by :mod:`setgames.checks`: a
numpy integer is converted there.)

>>> check_int(3, "seat", 0, 3)
3
>>> check_int(True, "seat", 0, 3)
Traceback (most recent call last):
...
setgames.validate.StateError: seat True must be an integer 0..3
>>> check_cards_once({"hand": [0, 2], "pile": [1]}, range(3))
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from setgames.checks import short_repr

__all__ = [
    "MAX_EVENTS",
    "StateError",
    "check_bool",
    "check_cards_once",
    "check_events",
    "check_float",
    "check_ids",
    "check_int",
    "check_list",
    "check_mask",
    "check_seat",
    "check_str",
    "legal_actions_consistent",
    "observer_seat",
]

# Events are kept, copied and written back, never read by a step: only their shape
# and size are bounded (a game of any of the three games logs far fewer).
MAX_EVENTS = 1 << 20
_MAX_STR = 200
_EVENT_SCALARS = (str, int, float, type(None))


class StateError(ValueError):
    """A state that the rules could not have produced (a ``ValueError``)."""


_show = short_repr  # one way to name a value in a message (safe for a huge int or a hostile repr)


def check_int(value: Any, name: str, lo: int, hi: int) -> int:
    """``value`` if it is an int (not a bool) with ``lo <= value <= hi``."""
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise StateError(f"{name} {_show(value)} must be an integer {lo}..{hi}")
    return value


def check_seat(value: Any, name: str, num_players: int, none_ok: bool = False) -> int:
    """A seat 0..n-1 (or -1 for none when ``none_ok``)."""
    return check_int(value, name, -1 if none_ok else 0, num_players - 1)


def check_bool(value: Any, name: str) -> bool:
    """``value`` if it is exactly True or False."""
    if not isinstance(value, bool):
        raise StateError(f"{name} {_show(value)} must be True or False")
    return value


def check_float(value: Any, name: str, bound: float = 1e300) -> float:
    """``value`` if it is an int or float (not a bool), finite, ``|value| <= bound``."""
    # (an int is compared as an int: 10**400 is no float, and math.isfinite would overflow)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            (isinstance(value, int) or math.isfinite(value)) and abs(value) <= bound):
        raise StateError(f"{name} {_show(value)} must be a finite number within +-{bound:g}")
    return value


def check_str(value: Any, name: str, choices: Iterable[str] | None = None, none_ok: bool = False
              ) -> str | None:
    """``value`` if it is a short str (one of ``choices`` when given), or None when ``none_ok``."""
    if value is None and none_ok:
        return None
    if not isinstance(value, str) or len(value) > _MAX_STR:
        raise StateError(f"{name} {_show(value)} must be a string")
    if choices is not None and value not in choices:
        raise StateError(f"{name} {_show(value)} must be one of {sorted(choices)}")
    return value


def check_list(value: Any, name: str, length: int | None = None, max_len: int | None = None) -> list:
    """``value`` if it is a list or tuple of ``length`` items (or at most ``max_len``)."""
    if not isinstance(value, (list, tuple)):
        raise StateError(f"{name} {_show(value)} must be a list")
    if length is not None and len(value) != length:
        raise StateError(f"{name} has {len(value)} entries, not {length}")
    if max_len is not None and len(value) > max_len:
        raise StateError(f"{name} has {len(value)} entries, more than {max_len}")
    return list(value)


def check_ids(value: Any, name: str, lo: int, hi: int, length: int | None = None,
              max_len: int | None = None) -> list[int]:
    """A list of ints in ``lo..hi`` (see :func:`check_list` for the length)."""
    items = check_list(value, name, length, max_len)
    # One pass without building names (loads run this on every pile); the named
    # pass only when something is wrong.
    for x in items:
        if type(x) is not int or not lo <= x <= hi:
            for i, y in enumerate(items):
                check_int(y, f"{name}[{i}]", lo, hi)
            break
    return items


def check_mask(value: Any, name: str, allowed: int) -> int:
    """A card bitmask (a non-negative int) with no bit outside ``allowed``."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise StateError(f"{name} {_show(value)} must be a non-negative integer card mask")
    stray = value & ~allowed
    if stray:
        bad = [i for i in range(stray.bit_length()) if stray >> i & 1][:8]
        raise StateError(f"{name} holds card bit(s) {bad} that are not cards of this deck")
    return value


def check_cards_once(zones: Mapping[str, Iterable[int]], deck: Iterable[int]) -> None:
    """Every card of ``deck`` exactly once over the ``zones`` (name -> card ids):
    card conservation. The ids must already be checked as ints."""
    where: dict[int, str] = {}
    expected = set(deck)
    for zone, cards in zones.items():
        for c in cards:
            if c not in expected:
                raise StateError(f"card {c} in {zone} is not a card of this deck")
            if c in where:
                raise StateError(f"card {c} is both in {where[c]} and in {zone}")
            where[c] = zone
    missing = sorted(expected - where.keys())
    if missing:
        raise StateError(f"card(s) {missing[:8]} are in no zone")


def check_events(value: Any, name: str = "events") -> list:
    """A list (at most :data:`MAX_EVENTS`) of events: lists or tuples of strings,
    numbers, None and lists of ints (what the games' records hold)."""
    items = check_list(value, name, max_len=MAX_EVENTS)
    for i, e in enumerate(items):
        if not isinstance(e, (list, tuple)) or not e or not isinstance(e[0], str):
            raise StateError(f"{name}[{i}] {_show(e)} must be a list starting with its kind")
        for x in e:
            if isinstance(x, list):
                if not all(isinstance(y, int) for y in x):
                    raise StateError(f"{name}[{i}] {_show(e)} holds a list of non-integers")
            elif not isinstance(x, _EVENT_SCALARS) or (isinstance(x, float) and not math.isfinite(x)):
                raise StateError(f"{name}[{i}] {_show(e)} holds {_show(x)}")
    return items


def observer_seat(seat: Any, num_players: int) -> int:
    """``seat`` as an int if it is a seat 0..n-1 (a numpy integer taken), else ``ValueError``.

    The slow path of the games' ``observe``: they test ``type(seat) is int`` and the
    range inline (a negative index would otherwise read the last seat's private view)."""
    if isinstance(seat, bool) or not (isinstance(seat, int) or (hasattr(seat, "__index__")
                                      and type(seat).__module__ == "numpy")):
        raise ValueError(f"seat {_show(seat)} is not a seat 0..{num_players - 1}")
    seat = int(seat)
    if not 0 <= seat < num_players:
        raise ValueError(f"seat {seat} is not a seat 0..{num_players - 1}")
    return seat


def legal_actions_consistent(legal: list[int], num_actions: int, over: bool) -> None:
    """The rules layer's legal list of a checked state: ascending distinct ids in
    range, empty exactly when the game is over (so a running game can move)."""
    if over:
        if legal:
            raise StateError(f"a finished game has legal actions {legal[:8]}")
        return
    if not legal:
        raise StateError("a running game where the player to act has no legal action")
    prev = -1
    for a in legal:
        if not isinstance(a, int) or not prev < a < num_actions:
            raise StateError(f"legal actions {legal[:8]} are not ascending ids 0..{num_actions - 1}")
        prev = a
