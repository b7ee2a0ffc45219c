"""Bharg's ``history`` observation: the cards vector, then the game's public record as event
rows (:mod:`setgames.history`: the block's layout, newest first, seats seen from the observer).

The reference the compiled paths are held to: the batch's step and the engine push exactly the
rows :func:`history_rows` makes from the rules layer's ``state.events`` (through
``bh_history_push`` in ``bharg_env/_engine.pyx``). Each row is *(kind, seat, card, arg)*; every
event of the record is public except which card a deck draw brought, so no hidden card appears
(``bharg_env/README.md``, rules choice 18):

- ``deal`` (1): a round's deal; the seat that plays first, no card, arg the round number
  (capped at 127);
- ``ace_pile`` (2): a card turned up by the deal that went on the Ace Pile; no seat, the Ace;
- ``start_discard`` (3): the card turned up that started the discard pile; no seat, the card;
- ``draw`` (4): the mover drew from the deck, face down: no card;
- ``take`` (5): the mover took the discard pile's top card, the card;
- ``discard`` (6): the mover discarded the card (an Ace goes on the Ace Pile), the card;
- ``reshuffle`` (7): the empty deck was refilled from under the piles' tops; no seat, no
  card, arg the cards shuffled in (the next row is the draw that triggered it);
- ``win`` (8): the winner of a round, no card, arg the points it scored (capped at 127);
- ``turn_limit`` (9): the round hit ``max_turns`` and ended drawn; no seat, no card, arg the
  round number (capped at 127).

A game is a whole match in match play: the rows run on across its rounds (each new round a
``deal`` row), and a new game starts the block afresh.

Length: Bharg games have no bound (a round runs to ``max_turns``, a match repeats rounds), so
the block keeps the last :data:`HISTORY_LENGTH` rows and older ones scroll off. Rows per game
(rules choice 18; 2,000 one-round games a line, default ``max_turns`` 200): random self-play
2 players mean 226, p99 409, max 410 and 3 players mean 205, p99 410, max 412 (two thirds run
past 120 rows, most to the turn limit); greedy self-play 2 players mean 20, p99 49, max 70 and
3 players mean 24, p99 63, max 119; a random seat against greedy ones 2 players mean 29, p99 91,
max 182 and 3 players mean 28, p99 80, max 119. 120 rows hold every greedy-level round seen
and, being under :data:`setgames.history.COUNT_CAP` (127), leave ``event_count`` able to say
that rows scrolled off (a count above 120). Match play runs on past it (greedy to 50 points:
2 players mean 173, 3 players mean 100 rows), the current round and the last ones in view.

>>> history_rows([("deal", 1, 0), ("start_discard", 20), ("draw", 0), ("discard", 0, 9)])
[(1, 0, -1, 1), (3, -1, 20, 0), (4, 0, -1, 0), (6, 0, 9, 0)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from setgames.cards import NUM_DECKTET
from setgames.history import Row, history_block, history_features

__all__ = ["HISTORY_FEATURES", "HISTORY_KINDS", "HISTORY_LENGTH", "history_bytes",
           "history_rows"]

HISTORY_KINDS = ("deal", "ace_pile", "start_discard", "draw", "take", "discard", "reshuffle", "win",
                 "turn_limit")
HISTORY_LENGTH = 120  # rows kept; the measurements in the module docstring
ARG_CAP = 127  # the round number and the points, as int8
_CODE = {k: i for i, k in enumerate(HISTORY_KINDS, 1)}
_DEAL, _ACE, _START, _DRAW, _TAKE, _DISCARD, _RESHUFFLE, _WIN, _LIMIT = (_CODE[k] for k in HISTORY_KINDS)


HISTORY_FEATURES = history_features(
    HISTORY_LENGTH, HISTORY_KINDS, 3, NUM_DECKTET,
    "deal: the round number; reshuffle: the cards shuffled into the deck; win: the points "
    f"scored; turn_limit: the round number (each capped at {ARG_CAP}); 0 for every other kind",
    arg_high=ARG_CAP)
"""The ``history`` mode: :data:`bharg_env.rules.OBS_SPEC`'s cards vector, then the rows."""


def history_rows(events: Sequence[tuple]) -> list[Row]:
    """The rows of the rules layer's public record ``events`` (oldest first), by the kinds of
    the module docstring.

    Raises:
        ValueError: an event of a kind the record does not have.
    """
    rows: list[Row] = []
    add = rows.append
    for e in events:
        name = e[0]
        if name == "draw":
            add((_DRAW, e[1], -1, 0))
        elif name == "discard":
            add((_DISCARD, e[1], e[2], 0))
        elif name == "take":
            add((_TAKE, e[1], e[2], 0))
        elif name == "deal":
            add((_DEAL, e[2], -1, min(e[1], ARG_CAP)))
        elif name == "ace_pile":
            add((_ACE, -1, e[1], 0))
        elif name == "start_discard":
            add((_START, -1, e[1], 0))
        elif name == "reshuffle":
            add((_RESHUFFLE, -1, -1, min(e[1], ARG_CAP)))
        elif name == "win":
            add((_WIN, e[2], -1, min(e[3], ARG_CAP)))
        elif name == "turn_limit":
            add((_LIMIT, -1, -1, min(e[1], ARG_CAP)))
        else:
            raise ValueError(f"no history row for the event {e!r}")
    return rows


def history_bytes(state: Any, seat: int) -> bytes:
    """The history block of ``seat``'s view of ``state`` (``4 * HISTORY_LENGTH + 1`` bytes)."""
    n = len(state.hands)
    return history_block(history_rows(state.events), HISTORY_LENGTH, seat, n)
