"""Tet Hsi's ``history`` observation: the cards vector, then the game's public record as event
rows (:mod:`setgames.history`: the block's layout, newest first, seats seen from the observer).

The reference the compiled step is held to: ``th_apply`` in ``tethsi_env/_engine.pyx`` pushes
exactly the rows :func:`history_rows` makes from the rules layer's ``state.events``. Each row is
*(kind, seat, card, arg)*; every event of the record is public (``tethsi_env/README.md``, rules
choice 7), so every one has its rows and no hidden card ever appears:

- ``discard`` (1): the mover, the center card it discarded, arg 0;
- ``take`` (2): the mover, the remaining card it took into its front, arg 0;
- ``nothing`` (3): the mover, the remaining card it left in the center, arg 0;
- ``set`` (4): three rows, the mover and each card of the Set put aside in the record's order
  (the two hand cards x < y, then the remaining card), arg the Set's kind 1..5 (Five, Bharg,
  Kvar, Ciao, Phen) on each;
- ``play`` (5): the mover, the hand card it played to the center, arg 0;
- ``reveal`` (6): the seat whose turn it ended, the card turned up from the pile, arg 0;
- ``win`` (7): the winner (its Set emptied its hand), no card, arg 0;
- ``tie`` (8): the seat whose turn found the pile empty, no card, arg 0.

The deal adds no row: its two center cards are in the cards vector, and the first turn's
discard and choice name both. Length: a game has at most 85 rows (rules choice 15 proves it:
at most 18 reveals, so 19 turns, at most four Sets before the winning one), so
:data:`HISTORY_LENGTH` is 85 and no row ever scrolls off: the block is perfect recall.

>>> from setgames.game import rng_from_seed
>>> from tethsi_env.rules import TetHsiGame
>>> game = TetHsiGame(obs="history")
>>> state = game.new_state(rng_from_seed(0))
>>> game.apply(state, 19)
>>> history_rows(state.events)
[(1, 0, 19, 0)]
"""

from __future__ import annotations

from collections.abc import Sequence

from setgames.cards import NUM_STANDARD
from setgames.history import Row, history_block, history_features
from setgames.kernels.tethsi import KIND_NAMES
from setgames.spec import ObsSpec
from tethsi_env.layout import OBS_SPEC, REASON_EMPTY_PILE, REASON_THIRD_SET

__all__ = ["HISTORY_FEATURES", "HISTORY_KINDS", "HISTORY_LENGTH", "HISTORY_SPEC", "history_bytes",
           "history_events", "history_rows"]

HISTORY_KINDS = ("discard", "take", "nothing", "set", "play", "reveal", "win", "tie")
# 18 reveals at most (the pile's cards), so 19 turns: 4 Set turns of 6 rows (discard, 3 Set cards,
# play, reveal), 14 take turns of 4 and the winning turn's 5 (discard, 3 Set cards, win).
HISTORY_LENGTH = 85
_CODE = {k: i for i, k in enumerate(HISTORY_KINDS, 1)}
_SET = _CODE["set"]
_ONE_CARD = {k: _CODE[k] for k in ("discard", "take", "nothing", "play", "reveal")}
_NO_CARD = {k: _CODE[k] for k in ("win", "tie")}
_KIND_CODE = {name: i + 1 for i, name in enumerate(KIND_NAMES)}

HISTORY_FEATURES = history_features(
    HISTORY_LENGTH, HISTORY_KINDS, 2, NUM_STANDARD,
    "a set row's kind of Set, 1 Five, 2 Bharg, 3 Kvar, 4 Ciao, 5 Phen; 0 for every other kind",
    arg_high=len(KIND_NAMES))
HISTORY_SPEC = ObsSpec([*OBS_SPEC.features, *HISTORY_FEATURES])


def history_rows(events: Sequence[tuple]) -> list[Row]:
    """The rows of the rules layer's public record ``events`` (oldest first), by the kinds of
    the module docstring.

    Raises:
        ValueError: an event of a kind the record does not have.
    """
    rows: list[Row] = []
    for e in events:
        name = e[0]
        if name in _ONE_CARD:
            rows.append((_ONE_CARD[name], e[1], e[2], 0))
        elif name == "set":
            kind = _KIND_CODE[e[5]]
            rows += [(_SET, e[1], e[2], kind), (_SET, e[1], e[3], kind), (_SET, e[1], e[4], kind)]
        elif name in _NO_CARD:
            rows.append((_NO_CARD[name], e[1], -1, 0))
        else:
            raise ValueError(f"event {e!r} is not of a Tet Hsi kind {HISTORY_KINDS}")
    return rows


def history_events(rows: Sequence[Row]) -> list[tuple]:
    """The record :func:`history_rows` made ``rows`` from (its inverse, so that a batch slot's
    ring gives its state's ``events`` back; the end reasons are the rules layer's)."""
    out: list[tuple] = []
    i = 0
    while i < len(rows):
        kind, seat, card, arg = rows[i]
        name = HISTORY_KINDS[kind - 1]
        if kind == _SET:
            out.append(("set", seat, card, rows[i + 1][2], rows[i + 2][2], KIND_NAMES[arg - 1]))
            i += 3
            continue
        if name == "win":
            out.append(("win", seat, REASON_THIRD_SET))
        elif name == "tie":
            out.append(("tie", seat, REASON_EMPTY_PILE))
        else:
            out.append((name, seat, card))
        i += 1
    return out


def history_bytes(state, seat: int) -> bytes:
    """``seat``'s history block of ``state`` (a :class:`~tethsi_env.rules.TetHsiState`): what
    :meth:`~tethsi_env.rules.TetHsiGame.observe` appends to the cards in the ``history`` mode."""
    return history_block(history_rows(state.events), HISTORY_LENGTH, seat, 2)
