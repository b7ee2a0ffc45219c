"""How a pairing of two bots fills the seats of a game, and how seeds are derived.

Seating rule (any player count): the two bots A and B alternate around the
table, A B A B ..., and a *duplicate set* is every distinct rotation of that
pattern and of its complement (B A B A ...). Each deal (one seed) is played
once per seating of the set, so over a set each bot sits in every seat
equally often and plays the same cards as its opponent did:

- 2 players: AB, BA (2 games per deal);
- 3 players: ABA, BAA, AAB, BAB, ABB, BBA (6 games per deal; each bot holds
  two seats in half of them);
- 4 players: ABAB, BABA (2 games per deal; partners sit opposite).

Seeds: every deal seed and every bot seed comes from the master seed
through :func:`derive_seed` (a ``numpy`` ``SeedSequence`` over the master
seed, the game name and the game's coordinates in the run), so a game's
seeds do not depend on which worker plays it or in what order.
"""

from __future__ import annotations

import zlib

import numpy as np

__all__ = ["SEATING_RULE", "derive_seed", "seatings"]

SEATING_RULE = ("bots A and B alternate around the table (A B A B ...); each deal is played once "
                "per distinct rotation of that pattern and of its complement, so both bots sit in "
                "every seat equally often on the same cards")


def seatings(num_players: int) -> list[tuple[int, ...]]:
    """The duplicate set of seatings: per seat, 0 for bot A, 1 for bot B.

    >>> seatings(2)
    [(0, 1), (1, 0)]
    >>> seatings(3)
    [(0, 1, 0), (1, 0, 0), (0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 0)]
    >>> seatings(4)
    [(0, 1, 0, 1), (1, 0, 1, 0)]
    """
    if num_players < 2:
        raise ValueError(f"a pairing needs at least 2 seats, not {num_players!r}")
    base = tuple(i % 2 for i in range(num_players))
    out: list[tuple[int, ...]] = []
    for pattern in (base, tuple(1 - x for x in base)):
        for k in range(num_players):
            rotated = pattern[k:] + pattern[:k]
            if rotated not in out:
                out.append(rotated)
    return out


def derive_seed(master: int, game_name: str, *coords: int) -> int:
    """A seed in ``[0, 2**63)`` from the master seed, a game name and integer coordinates.

    >>> derive_seed(0, "cards", 1) == derive_seed(0, "cards", 1) != derive_seed(0, "cards", 2)
    True
    """
    entropy = [int(master), zlib.crc32(game_name.encode()), *(int(c) for c in coords)]
    return int(np.random.SeedSequence(entropy).generate_state(1, np.uint64)[0] >> np.uint64(1))
