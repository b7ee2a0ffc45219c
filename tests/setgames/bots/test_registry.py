"""Bots by name: options checked against each bot's parameters, budgets bounded."""

from __future__ import annotations

import pytest

from setgames.bots.ismcts import MAX_ITERATIONS, MAX_SECONDS
from setgames.bots.registry import make_bot, parse_bot_spec


@pytest.mark.parametrize("spec", ["random:seed=5", "greedy:seed=1", "ismcts:game_name=bharg"])
def test_a_spec_cannot_set_the_seed_or_game(spec):
    with pytest.raises(ValueError, match=r"bad option for bot '\w+': it has no option '(seed|game_name)'"):
        parse_bot_spec(spec)


@pytest.mark.parametrize(("name", "options", "listed"), [
    ("random", {"depth": 3}, "none"), ("greedy", {"temperature": 1.0}, "none"),
    ("ismcts", {"iteration": 5}, "iterations, seconds, c"),
])
def test_make_bot_refuses_an_option_the_bot_lacks_naming_the_ones_it_has(name, options, listed):
    with pytest.raises(ValueError, match=f"it has no option '{next(iter(options))}'; its options: {listed}"):
        make_bot(name, "tethsi", 0, **options)


@pytest.mark.parametrize(("options", "message"), [
    ({"iterations": 10**12}, f"iterations 1000000000000 must be an integer 1..{MAX_ITERATIONS}"),
    ({"iterations": 0}, "iterations 0 must be an integer"),
    ({"iterations": 2.5}, "iterations 2.5 must be an integer"),
    ({"iterations": True}, "iterations True must be an integer"),
    ({"seconds": 1e9}, "seconds 1000000000.0 must be a finite number in (0, 3600]"),
    ({"seconds": float("nan")}, "seconds nan must be a finite number"),
    ({"c": float("inf")}, "c inf must be a finite number"),
    ({"max_rollout_steps": 10**9}, "max_rollout_steps 1000000000 must be an integer 0..100000"),
    ({"prior_bias": "big"}, "prior_bias 'big' must be a finite number"),
])
def test_ismcts_budgets_and_constants_are_typed_and_bounded(options, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        make_bot("ismcts", "tethsi", 0, **options)


def test_ismcts_budgets_at_their_maximum_are_accepted_as_plain_values():
    bot = make_bot("ismcts", "tethsi", 0, iterations=MAX_ITERATIONS)
    assert bot.iterations == MAX_ITERATIONS and type(bot.iterations) is int
    bot = make_bot("ismcts", "tethsi", 0, seconds=int(MAX_SECONDS), c=1)
    assert bot.seconds == MAX_SECONDS and type(bot.seconds) is float and type(bot.c) is float
