"""The strength levels (level:1 ... level:6) and the epsilon option that builds levels 2 and 3."""

from __future__ import annotations

import pytest

from setgames.arena import BotSpec, run_arena
from setgames.bots import levels
from setgames.bots.epsilon import EpsilonBot
from setgames.bots.registry import make_bot, parse_bot_spec
from setgames.bots.specs import is_builtin_spec, make_any_bot, parse_any_spec
from setgames.cli import main
from setgames.registry import GAME_NAMES


@pytest.mark.parametrize("game_name", GAME_NAMES)
@pytest.mark.parametrize("number", range(1, len(levels.LEVELS) + 1))
def test_every_level_builds_in_every_game_as_its_table_entry(game_name, number):
    target, options = parse_any_spec(f"level:{number}")
    bot = make_any_bot(target, game_name, 0, **options)
    name, options = parse_bot_spec(levels.level_spec(number, game_name))
    expected = make_bot(name, game_name, 0, **options)
    assert type(bot) is type(expected)
    if isinstance(bot, EpsilonBot):
        assert bot.epsilon == expected.epsilon and type(bot.inner) is type(expected.inner)


def test_levels_are_numbered_named_and_span_random_to_the_default_search():
    assert [lv.number for lv in levels.LEVELS] == list(range(1, 7))
    assert len({lv.name for lv in levels.LEVELS}) == 6 and levels.LEVELS[0].name == "Beginner"
    for game_name in GAME_NAMES:
        assert levels.level_spec(1, game_name) == "random"
        assert levels.level_spec(5, game_name) == "greedy"  # the anchored scale's 1000
        assert levels.level_spec(6, game_name).startswith("search")  # the strongest bot there is
    assert levels.bot_title("level:6") == f"level:6 {levels.LEVELS[5].name}"


def test_the_anchors_and_every_reference_have_a_rating_in_every_config():
    keys = [levels.config_key(name, config) for name, config in levels.GAUNTLET_CONFIGS]
    assert sorted(keys) == sorted(levels.REFERENCE_ELO)
    for key in keys:
        table = levels.REFERENCE_ELO[key]
        assert set(table) == set(levels.REFERENCES), key
        assert table["level:1"] == 0.0, key  # level 1 (random) is where the Elo counts from
        assert table["level:5"] > 0.0, key  # greedy is above random: the anchored scale's unit
    assert set(levels.RATING_ANCHORS) <= set(levels.REFERENCES)


@pytest.mark.parametrize("text", ["level:0", "level:7", "level:x", "level:", "level:2,epsilon=0.1",
                                  "level:1.5"])
def test_a_bad_level_is_refused_in_one_line(text):
    with pytest.raises(ValueError, match=r"level:1 .* to level:6"):
        parse_any_spec(text)


def test_a_level_is_a_builtin_spec_that_saves_and_the_lobby_may_name():
    assert is_builtin_spec("level:3") and parse_any_spec("level:3") == ("level", {"n": 3})
    assert BotSpec.parse("level:5").label == "level:5"


def test_a_level_outside_the_ladders_games_is_refused():
    with pytest.raises(ValueError, match="defined for tethsi, bharg, tusac"):
        levels.level_spec(2, "toy")


def test_arena_plays_levels_and_the_table_names_them(capsys, tmp_path):
    status = main(["arena", "--game", "tethsi", "--bots", "level:1", "level:4", "--games", "2",
                   "--workers", "1", "--out", str(tmp_path), "--no-progress"])
    out = capsys.readouterr().out
    assert status == 0 and "level:1 vs level:4" in out


def test_level_bots_play_a_short_arena_in_every_game():
    res = run_arena(["tethsi", "bharg", "tusac"], ["level:2", "level:3"], games_per_pairing=2, seed=3)
    assert all(a["pairings"][0]["games"] == 2 for a in res["arenas"])
