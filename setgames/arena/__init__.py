"""Round-robin arena between bots, with honest intervals and ratings.

>>> from setgames.arena import seatings
>>> seatings(2)
[(0, 1), (1, 0)]
"""

from setgames.arena.runner import RESULTS_FILE, TIMING_FILE, ArenaGame, BotSpec, run_arena, side_score
from setgames.arena.seating import SEATING_RULE, derive_seed, seatings
from setgames.arena.table import format_results

__all__ = [
    "RESULTS_FILE",
    "SEATING_RULE",
    "TIMING_FILE",
    "ArenaGame",
    "BotSpec",
    "derive_seed",
    "format_results",
    "run_arena",
    "seatings",
    "side_score",
]
