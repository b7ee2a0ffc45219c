"""The compiled search written again on the rules layer, number for number: the reference the
C search is held to (``test_pimc.py``).

The C random numbers are numpy's PCG64 (``setgames/batch/_rng.pxd``), the C re-deals draw what
``game.determinize`` draws, and the compiled greedy bots break ties with the draws the Python
ones make; so one numpy generator, copied where the C code copies its stream, replays a search.
"""

from __future__ import annotations

import copy

import numpy as np

from setgames.bots.registry import greedy_class
from tests.setgames.batch.fresh import play_out


def _with_rng(bot, rng):
    bot.rng = rng
    return bot


def reference_search(game, state, seed: int, iters: int, z: float) -> tuple[int, list[int], np.ndarray]:
    """``(action, legal, values)`` of ``search(engine_of(state), iters=iters, seed=seed, z=z)``."""
    return reference_search_rng(game, state, np.random.Generator(np.random.PCG64(seed)), iters, z)


def reference_search_rng(game, state, rng, iters: int, z: float) -> tuple[int, list[int], np.ndarray]:
    """:func:`reference_search` drawing from (and advancing) the generator ``rng``, as the C
    search advances the stream it is given (a batch's search opponents: their slot's stream)."""
    seat = game.current_seat(state)
    legal = list(game.legal_actions(state))
    bot = greedy_class(game.name)(0)
    tie = copy.deepcopy(rng)
    prior = _with_rng(bot, tie).act(game, game.determinize(state, seat, tie), seat)
    rng.bit_generator.random_raw()
    kp = legal.index(prior)
    totals = np.zeros(len(legal))
    sumsq = np.zeros(len(legal))
    if len(legal) > 1:
        for _ in range(iters):
            deal = game.determinize(state, seat, rng)
            roll = copy.deepcopy(rng)
            rng.bit_generator.random_raw()
            now = np.array([play_out(game, deal, a, _with_rng(bot, copy.deepcopy(roll))) for a in legal])
            totals += now
            sumsq += (now - now[kp]) ** 2
        values = totals / iters
    else:
        values = totals
    best, top = kp, -np.inf
    for k in range(len(legal)):
        if k == kp or len(legal) == 1:
            continue
        d = values[k] - values[kp]
        var = max(sumsq[k] / iters - d * d, 0.0)
        if d > 0 and d * d * iters > z * z * var and values[k] > top:
            best, top = k, values[k]
    return legal[best], legal, values
