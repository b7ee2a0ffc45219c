"""The game registry: a game outside ``setgames/`` gets every tool its descriptor names."""

from __future__ import annotations

import functools
import io
import subprocess
import sys

import pytest

from setgames import registry
from setgames.bots import make_bot
from setgames.bots.hooks import game_hooks
from setgames.bots.ismcts import IsmctsBot
from setgames.game import rng_from_seed
from setgames.play.repl import Repl
from setgames.play.session import Session
from tests.setgames import toy_descriptor
from tests.setgames.toy_game import ToyGame


@pytest.fixture
def toy_registered():
    registry.register(toy_descriptor.DESCRIPTOR)
    toy_descriptor.CALLS.update(prior=0, tokens=0)
    yield toy_descriptor.DESCRIPTOR
    registry.unregister("toy")


@functools.cache
def mover_wins(pile: int) -> bool:
    """Brute force: does the player to move win with ``pile`` tokens left (take 1 or 2, last wins)?"""
    return any(pile - k == 0 or (pile - k > 0 and not mover_wins(pile - k)) for k in (1, 2))


def test_builtin_games_are_listed_with_their_titles_and_parts():
    assert registry.game_names()[:3] == ("tethsi", "bharg", "tusac")
    assert [registry.game_title(n) for n in registry.game_names()[:3]] == ["Tet Hsi", "Bharg", "Tu Sac"]
    for name in ("tethsi", "bharg", "tusac"):
        assert registry.game_class(name).name == name
        assert registry.env_class(name)().game.name == name
        assert make_bot("greedy", name, 0).name == "greedy"
        assert game_hooks(name).prior is not None
    assert registry.describe("tusac").table_tools is not None


def test_unknown_game_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        registry.describe("chess")
    with pytest.raises(TypeError):
        registry.register({"name": "x"})


def test_core_imports_no_game_package():
    code = ("import sys, setgames.bots, setgames.arena, setgames.play.repl, setgames.wrappers, "
            "setgames.records;"
            "print(sorted(m for m in sys.modules if m.split('.')[0].endswith('_env')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_registered_toy_game_gets_its_greedy_bot(toy_registered):
    game = ToyGame()
    bot = make_bot("greedy", "toy", 0)
    assert isinstance(bot, toy_descriptor.GreedyToyBot)
    for pile in range(1, 10):
        state = game.new_state(rng_from_seed(0))
        state.pile = pile
        action = bot.act(game, state, 0)
        if mover_wins(pile):  # the bot's move must leave the opponent a lost pile
            assert pile - (action + 1) == 0 or not mover_wins(pile - (action + 1))


def test_unregistered_game_has_no_greedy_bot():
    with pytest.raises(ValueError, match="no greedy bot for game 'toy'"):
        make_bot("greedy", "toy", 0)


def test_registered_toy_game_lends_its_hooks_to_the_search(toy_registered):
    game = ToyGame()
    assert game_hooks("toy") is toy_descriptor.HOOKS
    for pile in (4, 5, 7, 8):
        state = game.new_state(rng_from_seed(1))
        state.pile = pile
        action = IsmctsBot(3, game_name="toy").act(game, state, 0)
        assert not mover_wins(pile - (action + 1))
    assert toy_descriptor.CALLS["prior"] >= 4  # the search asked the game's prior at every root


def test_registered_toy_game_plays_at_the_terminal_with_its_table_tools(toy_registered):
    seed = next(s for s in range(100) if ToyGame().new_state(rng_from_seed(s)).pile % 3)
    session = Session(ToyGame(), "toy", seed, 0, "greedy", hint_bot="greedy")
    pile = session.state.pile
    good = toy_descriptor.winning_take(pile)  # a pile that is no multiple of 3 has a winning move
    bad = 1 - good
    script = f"help\ntokens\n{bad + 1}\nn\n{good + 1}\n"
    out = io.StringIO()
    repl = Repl(session, inp=io.StringIO(script), out=out, color=False, sleep=lambda s: None)
    repl.run()
    text = out.getvalue()
    assert "tokens        how many tokens are left" in text
    assert f"{pile} tokens left" in text and toy_descriptor.CALLS["tokens"] == 1
    assert f"take {bad + 1} hands the win over" in text and "Take it anyway? [y/N]" in text
    assert "Not taken." in text
    assert session.actions[0] == good  # the declined move was not played, the good one was
    assert f"you): take {good + 1}\n  {pile - good - 1} left" in text  # the game's event line
