"""Tu Sac's ``history`` observation: the cards vector, then the game's public record as event
rows (:mod:`setgames.history`: the block's layout, newest first, seats seen from the observer).

The reference the compiled step is held to: ``ts_event`` and ``ts_meld_event`` in
``tusac_env/_engine.pyx`` push exactly the rows :func:`history_rows` makes from the rules
layer's ``state.events``. Each row is *(kind, seat, card, arg)*, the card a type id 0..27:

- ``deal`` (1): a seat dealt its hand, in deal order; no card (the hand is face down), arg the
  cards dealt (21 to the first player, 20 to the others);
- ``quan`` (2): a seat's Quan shown at the deal; the type, arg 1 (the set kind ``quan``);
- ``discard`` (3): the discarder and the card, arg 0;
- ``hit`` (4): the hitter and the card the hit turned up (-1 for the hit that draws the game:
  it turns nothing up), arg 0; the card it sent to the dead pile is the previous row's;
- ``pass`` (5): the seat that left the active card, the card, arg 0;
- ``claim`` (6): the claimer and the claimed card, arg 1 win, 2 Khui, 3 pair;
- ``meld`` (7): one row per card of the set put down (the record's order), the melder, arg the
  set kind 1..9 (``quan, khui, king, pair, triple, kgm, rcn, pawns3, pawns4``, the order of the
  ``public_sets`` feature);
- ``win`` (8): the winner and the winning card (-1 for a dealt hand), arg the hand value (capped
  at 127; a value is far below it);
- ``penalty`` (9): the discarder who pays for every loser (rules choice 24), no card, arg 0;
- ``draw`` (10): the game drawn, no seat, no card, arg the cards left in the draw pile.

Only what every seat saw: the dealt hands and the draw pile stay hidden (no row names a card
before it is face up). Left out (``tusac_env/README.md``, rules choice 28): the ``khaps``
announcements (the counts are the cards vector's ``khap_counts``, and they change only by a
Khui, which has its rows) and the ``pay`` lines of a game's end (they follow from the public end
and are the rewards).

Length: :data:`HISTORY_LENGTH` is 126 rows (rules choice 27). The draw pile only shrinks, so a
game's rows are bounded, but the bound the rules give is ``n + 230`` (232 to 234), above what a
block should hold, and games make far fewer: random play 63, 78, 85 rows on average for 2, 3, 4
players (p99 120, 141, 126), greedy play 47, 60, 74 (p99 86, 104, 117). 126 is the most that lets
``event_count`` (capped at 127) tell that rows scrolled off: 127 means more than 126 rows, the
oldest gone (0.5% to 4% of random games, 0.25% of greedy ones).

>>> from setgames.game import rng_from_seed
>>> from tusac_env.rules import TuSacGame
>>> game = TuSacGame(num_players=2, obs="history")
>>> state = game.new_state(rng_from_seed(0))
>>> history_rows(state.events)[:2]
[(1, 0, -1, 21), (1, 1, -1, 20)]
"""

from __future__ import annotations

from collections.abc import Sequence

from setgames.cards import NUM_TUSAC_TYPES
from setgames.history import COUNT_CAP, Row, history_block, history_features
from setgames.spec import ObsSpec
from tusac_env.observation import CLAIM_KINDS, make_obs_spec
from tusac_env.state import PUBLIC_KINDS

__all__ = ["HISTORY_KINDS", "HISTORY_LENGTH", "history_bytes", "history_rows", "make_history_spec"]

HISTORY_KINDS = ("deal", "quan", "discard", "hit", "pass", "claim", "meld", "win", "penalty", "draw")
HISTORY_LENGTH = 126
_CODE = {k: i for i, k in enumerate(HISTORY_KINDS, 1)}
_DEAL, _QUAN, _DISCARD, _HIT, _PASS, _CLAIM, _MELD, _WIN, _PENALTY, _DRAW = range(1, 11)
_SET_KIND = {k: i for i, k in enumerate(PUBLIC_KINDS, 1)}
_CLAIM_KIND = {k: i for i, k in enumerate(CLAIM_KINDS, 1)}
_PRIVATE = frozenset(("khaps", "pay"))  # left out (module docstring)

ARG_DOC = ("deal: cards dealt; quan, meld: the set kind (1 quan, 2 khui, 3 king, 4 pair, 5 triple, "
           "6 kgm, 7 rcn, 8 pawns3, 9 pawns4); claim: 1 win, 2 khui, 3 pair; win: the hand value "
           "(capped at 127); draw: cards left in the draw pile; else 0")


def make_history_spec(n: int) -> ObsSpec:
    """The ``history`` vector of ``n`` players: the cards vector, then the event block."""
    return ObsSpec([*make_obs_spec(n).features,
                    *history_features(HISTORY_LENGTH, HISTORY_KINDS, n, NUM_TUSAC_TYPES, ARG_DOC)])


def history_rows(events: Sequence[tuple]) -> list[Row]:
    """The rows of the rules layer's public record ``events`` (oldest first), by the kinds of
    the module docstring.

    Raises:
        ValueError: an event of a kind the record does not have.
    """
    rows: list[Row] = []
    for e in events:
        name = e[0]
        if name == "discard":
            rows.append((_DISCARD, e[1], e[2], 0))
        elif name == "meld":
            kind = _SET_KIND[e[2]]
            rows += [(_MELD, e[1], card, kind) for card in e[3]]
        elif name == "hit":
            rows.append((_HIT, e[1], e[2], 0))
        elif name == "pass":
            rows.append((_PASS, e[1], e[2], 0))
        elif name == "claim":
            rows.append((_CLAIM, e[1], e[3], _CLAIM_KIND[e[2]]))
        elif name == "deal":
            rows.append((_DEAL, e[1], -1, e[2]))
        elif name == "quan":
            rows.append((_QUAN, e[1], e[2], _SET_KIND["quan"]))
        elif name == "win":
            rows.append((_WIN, e[1], e[2], min(e[3], COUNT_CAP)))
        elif name == "penalty":
            rows.append((_PENALTY, e[1], -1, 0))
        elif name == "draw":
            rows.append((_DRAW, -1, -1, e[1]))
        elif name not in _PRIVATE:
            raise ValueError(f"event {e!r} is not of a Tu Sac kind")
    return rows


def history_bytes(state, seat: int) -> bytes:
    """``seat``'s history block of ``state`` (a :class:`~tusac_env.state.TuSacState`): what
    :meth:`~tusac_env.rules.TuSacGame.observe` appends to the cards in the ``history`` mode."""
    return history_block(history_rows(state.events), HISTORY_LENGTH, seat, state.num_players)
