"""Bharg's numbers on the strength ladder (:mod:`setgames.bots.levels` reads them through
the registry): the epsilons of levels 2 to 4 and the gauntlet's configs (2 and 3 players)
with their references' ratings (ladder version 2, measured by ``python benchmarks/levels.py``)."""

from __future__ import annotations

from setgames.bots.levels import GameLadder

# Greedy beats random by about 600 Elo here, more than in the other games, so levels 2 to 4
# keep more random moves for four near-equal steps (docs/levels.md).
LADDER = GameLadder(
    epsilons=(0.8, 0.55, 0.3),
    gauntlet=(
        ((("num_players", 2),), {"level:1": 0.0, "level:2": 193.0, "level:3": 379.0, "level:4": 489.0,
                                 "level:5": 602.0, "level:6": 702.0, "ppo": 606.0}),
        ((("num_players", 3),), {"level:1": 0.0, "level:2": 163.0, "level:3": 337.0, "level:4": 467.0,
                                 "level:5": 583.0, "level:6": 676.0, "ppo": 634.0}),
    ),
)
