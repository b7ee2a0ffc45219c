"""Tet Hsi's numbers on the strength ladder (:mod:`setgames.bots.levels` reads them through
the registry): the epsilons of levels 2 to 4 and the gauntlet's config with its references'
ratings (ladder version 2, measured by ``python benchmarks/levels.py``)."""

from __future__ import annotations

from setgames.bots.levels import GameLadder

# Chosen so that levels 2 to 4 split the Elo between random and greedy (about 500) into
# four near-equal steps; the search's edge over greedy is small here (docs/levels.md).
LADDER = GameLadder(
    epsilons=(0.7, 0.45, 0.2),
    gauntlet=(
        ((), {"level:1": 0.0, "level:2": 77.0, "level:3": 217.0, "level:4": 370.0,
              "level:5": 497.0, "level:6": 549.0, "ppo": 538.0}),
    ),
)
