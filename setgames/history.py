"""The ``history`` observation mode's block: the public event sequence, newest first, from one
observer's seat, in the same layout for every game.

A game names its event kinds and maps each public event of its record to rows of four
numbers, *(kind, seat, card, arg)*, one card a row (an event of several cards takes one row
per card). The block keeps the last ``length`` rows, the newest first, as four columns of
``length`` entries each, then the count of rows so far:

- ``event_kind``: 1, 2, ... the kind's place in the game's list of kinds; 0 pads;
- ``event_seat``: who, seen from the observer: 1 the observer, 2 the seat after it in seat
  order, ...; 0 for an event of no seat (and padding);
- ``event_card``: the card's id + 1; 0 for none or a hidden card (and padding);
- ``event_arg``: the kind's own number (the game's table says what it is for each kind);
- ``event_count``: rows so far, capped at 127: more than ``length`` says the oldest rows
  scrolled off.

Only what every seat saw goes in: a game maps a private event (a card dealt or drawn face
down) to no row, or to a row whose card is 0. The columns are apart so that each has its
range in the spec's table; :func:`event_rows` gives the ``(..., length, 4)`` view a sequence
model reads. The compiled engines and batches write the same bytes from a record of byte
columns their steps push to (``setgames/_history.pxd``); this module is the reference they are
held to.

>>> rows = [(1, 0, 5, 0), (2, 1, -1, 3)]       # oldest first: seat 0 showed card 5, seat 1 did kind 2
>>> block = history_block(rows, length=3, observer=1, num_seats=2)
>>> list(block)                                  # kinds, seats, cards, args, count
[2, 1, 0, 1, 2, 0, 0, 6, 0, 3, 0, 0, 2]
>>> event_rows(np.frombuffer(block, np.int8), 3).tolist()
[[2, 1, 0, 3], [1, 2, 6, 0], [0, 0, 0, 0]]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from setgames.spec import Feature

__all__ = ["COLUMNS", "COUNT_CAP", "Row", "event_rows", "history_block", "history_features", "relative_seat"]

COLUMNS = ("event_kind", "event_seat", "event_card", "event_arg")
COUNT_CAP = 127  # the largest int8: event_count's bound
Row = tuple[int, int, int, int]  # (kind >= 1, seat or -1, card id or -1, arg): a game's event as a row


def history_features(length: int, kinds: Sequence[str], num_seats: int, num_cards: int, arg_doc: str,
                     arg_low: int = 0, arg_high: int = 127) -> tuple[Feature, ...]:
    """The block's features for a game: ``length`` rows of the game's ``kinds`` (their names,
    in the order of their codes), seats ``0..num_seats-1``, card ids ``0..num_cards-1``, and
    its ``arg`` column (``arg_doc``: what the number means per kind, with its range)."""
    if not 1 <= len(kinds) <= 127 or not 1 <= num_cards <= 126:
        raise ValueError("kinds and cards must fit int8 codes")
    names = ", ".join(f"{i} {k}" for i, k in enumerate(kinds, 1))
    return (
        Feature("event_kind", (length,), len(kinds),
                f"per event, newest first: its kind ({names}); 0 pads"),
        Feature("event_seat", (length,), num_seats,
                "per event: who, 1 for me, 2 for the seat after mine in seat order, and so on; "
                "0 for no seat"),
        Feature("event_card", (length,), num_cards,
                "per event: its card's id + 1; 0 for no card or a face-down one"),
        Feature("event_arg", (length,), arg_high, f"per event: {arg_doc}", low=arg_low),
        Feature("event_count", (), COUNT_CAP,
                f"rows so far (capped at {COUNT_CAP}); above {length} the oldest have scrolled off"),
    )


def relative_seat(seat: int, observer: int, num_seats: int) -> int:
    """``event_seat``'s code of ``seat`` seen from ``observer`` (0 for ``seat`` -1, no seat)."""
    return 0 if seat < 0 else 1 + (seat - observer) % num_seats


def history_block(rows: Sequence[Row], length: int, observer: int, num_seats: int) -> bytes:
    """The block of ``rows`` (a game's events as rows, oldest first) seen from ``observer``:
    the last ``length`` rows newest first as four columns, then ``event_count``."""
    cols = [bytearray(length) for _ in COLUMNS]
    for i, (kind, seat, card, arg) in enumerate(reversed(rows[-length:] if length else [])):
        cols[0][i] = kind
        cols[1][i] = relative_seat(seat, observer, num_seats)
        cols[2][i] = card + 1
        cols[3][i] = arg & 0xFF
    return b"".join(bytes(c) for c in cols) + bytes([min(len(rows), COUNT_CAP)])


def event_rows(block: np.ndarray, length: int) -> np.ndarray:
    """The ``(..., length, 4)`` rows (kind, seat, card, arg; newest first) of a block or of a batch of
    them (the block's ``4 * length + 1`` entries last), as a view where the layout allows."""
    block = np.asarray(block)
    cols = block[..., :4 * length].reshape((*block.shape[:-1], 4, length))
    return np.swapaxes(cols, -1, -2)
