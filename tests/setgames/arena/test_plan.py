"""The lazy plan: every game from its index, the same as building the whole list."""

from __future__ import annotations

import tracemalloc

import pytest

from setgames.arena import ArenaGame, BotSpec, run_arena, seatings
from setgames.arena.plan import Plan, describe_indices
from setgames.arena.runner import MAX_GAMES_PER_PAIRING
from setgames.arena.seating import derive_seed
from tests.setgames.arena.test_runner import _interrupting_factory, _InterruptingBot


def _eager(plan: Plan) -> list[tuple]:
    # The arena's former construction: every task built up front, deal-major.
    out = []
    for d in range(max(plan.deals)):
        for gi, name in enumerate(plan.names):
            if d >= plan.deals[gi]:
                continue
            for pi, (a, b) in enumerate(plan.pairings):
                for k, sides in enumerate(plan.seating_sets[gi]):
                    out.append((gi, name, pi, d, k, tuple(a if s == 0 else b for s in sides), sides,
                                derive_seed(plan.seed, name, 0, d),
                                tuple(derive_seed(plan.seed, name, 1, pi, d, k, seat)
                                      for seat in range(len(sides)))))
    return out


@pytest.mark.parametrize("deals", [(3, 1, 2), (1, 1, 1), (2, 5, 5)])
def test_every_game_from_its_index_matches_the_full_list(deals):
    sets = (tuple(seatings(2)), tuple(seatings(3)), tuple(seatings(4)))
    plan = Plan(("g2", "g3", "g4"), ("g2", "g3", "g4"), sets, deals, ((0, 1), (0, 2), (1, 2)), 11)
    expected = _eager(plan)
    assert len(plan) == len(expected)
    got = [(t.game_index, t.game_name, t.pairing, t.deal, t.seating, t.seat_bots, t.seat_sides, t.deal_seed,
            t.bot_seeds) for t in plan.tasks(0, len(plan))]
    assert got == expected
    assert [t.index for t in plan.tasks(0, len(plan))] == list(range(len(plan)))
    with pytest.raises(IndexError):
        plan.task(len(plan))
    with pytest.raises(IndexError):
        plan.task(-1)


def test_describe_indices_joins_runs():
    assert describe_indices([]) == ""
    assert describe_indices([7]) == "7"
    assert describe_indices([5, 1, 2, 3, 9, 10]) == "1-3, 5, 9-10"


def test_the_largest_arena_starts_at_once_in_little_memory():
    from tests.setgames.toy_game import ToyGame

    # Two million games: built up front, their tasks alone would take hundreds of MB.
    _InterruptingBot.moves = 0
    bot = BotSpec("interrupting", "interrupting", (("after", 30),), factory=_interrupting_factory)
    tracemalloc.start()
    try:
        res = run_arena([ArenaGame.of(ToyGame)], ["random", bot], games_per_pairing=MAX_GAMES_PER_PAIRING,
                        seed=0, progress=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert res["interrupted"] and 0 < len(res["arenas"][0]["games"]) < 30
    assert res["arenas"][0]["deals_planned"] == MAX_GAMES_PER_PAIRING // 2
    assert peak < 20 * 2**20


@pytest.mark.parametrize("kwargs, match", [
    ({"games_per_pairing": MAX_GAMES_PER_PAIRING + 1}, "games per pairing 1000001 must be an integer from 1"),
    ({"games_per_pairing": 2.5}, "games per pairing 2.5"),
    ({"games_per_pairing": True}, "games per pairing True"),
    ({"workers": 10**6}, "workers 1000000 must be an integer from 1 to"),
    ({"executor": "cluster"}, "unknown executor 'cluster'"),
    ({"address": "127.0.0.1:6379"}, "is for the ray executor"),
])
def test_out_of_bounds_runs_are_refused(kwargs, match):
    from tests.setgames.toy_game import ToyGame

    with pytest.raises(ValueError, match=match):
        run_arena([ArenaGame.of(ToyGame)], ["random", "random"], progress=False, **kwargs)
