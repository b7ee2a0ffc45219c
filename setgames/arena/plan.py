"""The games of an arena run, produced one at a time from their index.

A run of a billion games must start at once and stay small in memory, so no
list of games is ever built: :class:`Plan` holds only the shape of the run
(games, pairings, seatings, deals) and :meth:`Plan.task` turns a game index
into its coordinates and seeds by arithmetic. Every seed comes from the
master seed and those coordinates, which are a function of the index alone,
so a game is the same whichever executor, worker or chunk plays it.

Order is deal-major: deal 0 of every game and pairing, then deal 1, ...
(a game whose config needs fewer deals drops out once it has them all), so
a run stopped early still covers every pairing evenly.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from setgames.arena.seating import derive_seed

__all__ = ["GameTask", "Plan"]


@dataclass(frozen=True)
class GameTask:
    """One game of the run: where it sits in the round robin, and its seeds.

    Attributes:
        index: position in the run (game order).
        game_index: which of the run's games and configs.
        arena_game: that game and config (an :class:`~setgames.arena.ArenaGame`).
        game_name: its name (for seeds and records).
        pairing: index into the run's pairings.
        deal: deal number within the pairing.
        seating: index into the game's duplicate set of seatings.
        seat_bots: bot index per seat.
        seat_sides: 0 for side A, 1 for side B, per seat.
        deal_seed: seed of the deal.
        bot_seeds: seed of each seat's bot.
    """

    index: int
    game_index: int
    arena_game: Any
    game_name: str
    pairing: int
    deal: int
    seating: int
    seat_bots: tuple[int, ...]
    seat_sides: tuple[int, ...]
    deal_seed: int
    bot_seeds: tuple[int, ...]


@dataclass(frozen=True)
class Plan:
    """The shape of a run: enough to produce any of its games from the index.

    Attributes:
        arena_games: the games and configs (``ArenaGame``), in run order.
        names: their game names.
        seating_sets: per game, its duplicate set of seatings.
        deals: per game, the number of deals to play.
        pairings: the bot index pairs ``(a, b)``.
        seed: the master seed.
    """

    arena_games: tuple[Any, ...]
    names: tuple[str, ...]
    seating_sets: tuple[tuple[tuple[int, ...], ...], ...]
    deals: tuple[int, ...]
    pairings: tuple[tuple[int, int], ...]
    seed: int

    def _segments(self) -> list[tuple[int, int, int, tuple[int, ...]]]:
        # Deals [d0, d1) share one block layout: the games still playing at
        # those deals. One segment per distinct deal count, so a handful.
        out = []
        start = d0 = 0
        for d1 in sorted(set(self.deals)):
            if d1 <= d0:
                continue
            live = tuple(g for g, n in enumerate(self.deals) if n >= d1)
            block = sum(len(self.pairings) * len(self.seating_sets[g]) for g in live)
            out.append((start, d0, block, live))
            start += (d1 - d0) * block
            d0 = d1
        return out

    def __len__(self) -> int:
        """The number of games in the run."""
        sizes = zip(self.seating_sets, self.deals, strict=True)
        return sum(len(self.pairings) * len(s) * d for s, d in sizes)

    def task(self, index: int) -> GameTask:
        """Game ``index`` of the run.

        >>> plan = Plan(("g", "h"), ("g", "h"), (((0, 1), (1, 0)),) * 2, (2, 1), ((0, 1),), 0)
        >>> [(t.game_name, t.deal, t.seating) for t in plan.tasks(0, len(plan))]
        [('g', 0, 0), ('g', 0, 1), ('h', 0, 0), ('h', 0, 1), ('g', 1, 0), ('g', 1, 1)]
        """
        if not 0 <= index < len(self):
            raise IndexError(f"game {index} is not in a run of {len(self)} games")
        start, d0, block, live = next(seg for seg in reversed(self._segments()) if index >= seg[0])
        d, off = divmod(index - start, block)
        d += d0
        for g in live:
            size = len(self.pairings) * len(self.seating_sets[g])
            if off < size:
                break
            off -= size
        pi, k = divmod(off, len(self.seating_sets[g]))
        a, b = self.pairings[pi]
        sides = self.seating_sets[g][k]
        name = self.names[g]
        return GameTask(
            index=index, game_index=g, arena_game=self.arena_games[g], game_name=name,
            pairing=pi, deal=d, seating=k,
            seat_bots=tuple(a if s == 0 else b for s in sides), seat_sides=sides,
            deal_seed=derive_seed(self.seed, name, 0, d),
            bot_seeds=tuple(derive_seed(self.seed, name, 1, pi, d, k, seat) for seat in range(len(sides))),
        )

    def tasks(self, start: int, stop: int) -> Iterator[GameTask]:
        """Games ``start`` to ``stop - 1``, one at a time."""
        for i in range(start, stop):
            yield self.task(i)


def describe_indices(indices: Sequence[int], most: int = 10) -> str:
    """Game indices as short ranges: ``"3, 8-11"``; past ``most`` ranges, how many more.

    >>> describe_indices([8, 3, 9, 10, 11])
    '3, 8-11'
    >>> describe_indices([0, 2, 4, 6], most=2)
    '0, 2 and 2 more ranges'
    """
    parts: list[str] = []
    ordered = sorted(indices)
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    if len(parts) > most:
        return ", ".join(parts[:most]) + f" and {len(parts) - most} more ranges"
    return ", ".join(parts)
