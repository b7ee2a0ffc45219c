"""Tu Sac's numbers on the strength ladder (:mod:`setgames.bots.levels` reads them through
the registry): the epsilons of levels 2 to 4 and the gauntlet's configs (2, 3 and 4 players)
with their references' ratings (ladder version 2, measured by ``python benchmarks/levels.py``)."""

from __future__ import annotations

from setgames.bots.levels import GameLadder

# Greedy beats random by much less here (about 150-220 Elo) than in the other games (430-620),
# so the steps between levels are the narrow ones, and the search's edge over greedy is small
# (docs/levels.md gives every measured step).
LADDER = GameLadder(
    epsilons=(0.8, 0.5, 0.25),
    gauntlet=(
        ((("num_players", 2),), {"level:1": 0.0, "level:2": 70.0, "level:3": 132.0, "level:4": 166.0,
                                 "level:5": 220.0, "level:6": 233.0, "ppo": 226.0}),
        ((("num_players", 3),), {"level:1": 0.0, "level:2": 36.0, "level:3": 106.0, "level:4": 139.0,
                                 "level:5": 193.0, "level:6": 215.0, "ppo": 204.0}),
        ((("num_players", 4),), {"level:1": 0.0, "level:2": 29.0, "level:3": 87.0, "level:4": 112.0,
                                 "level:5": 168.0, "level:6": 185.0, "ppo": 161.0}),
    ),
)
