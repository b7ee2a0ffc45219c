"""Every bot spec form (built-in, module:Name, plug-in, exec:) and every refusal, in one line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from setgames.arena import BotSpec, run_arena
from setgames.bots.base import RandomBot
from setgames.bots.external import ExternalBot
from setgames.bots.ismcts import IsmctsBot
from setgames.bots.specs import bot_listing, is_builtin_spec, make_any_bot, parse_any_spec
from setgames.cli import main, split_bot_specs
from setgames.play.session import LoadError, Session
from setgames.records import make_record
from setgames.registry import make_game
from tests.setgames.bots.faulty_bots import FirstLegalBot

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "external_bot.py"
FAULTY = "tests.setgames.bots.faulty_bots"


def _build(spec, game="tethsi", seed=0):
    target, options = parse_any_spec(spec)
    return make_any_bot(target, game, seed, **options)


def _cli_error(argv, capsys, match):
    status = main(argv)
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1 and lines[0].startswith("setgames: error: "), err
    assert match in lines[0], lines[0]


@pytest.mark.parametrize("text, target, options", [
    ("greedy", "greedy", {}),
    ("ismcts:iterations=5,c=0.5", "ismcts", {"iterations": 5, "c": 0.5}),
    ("pkg.mod:Name", "pkg.mod:Name", {}),
    ("pkg.mod:Outer.Inner:depth=3", "pkg.mod:Outer.Inner", {"depth": 3}),
    ("myplugin:level=2", "myplugin", {"level": 2}),
    ("exec:./engine --hash 16,fast", "exec:./engine --hash 16,fast", {}),
])
def test_each_form_parses(text, target, options):
    assert parse_any_spec(text) == (target, options)


@pytest.mark.parametrize("text", [":Name", "mod:Na me", "greedy:seed=3", "mod:Name:=1"])
def test_bad_spec_text_is_refused(text):
    with pytest.raises(ValueError):
        _build(text)


def test_builtin_class_and_factory_specs_build_the_right_bots():
    assert isinstance(_build("random"), RandomBot)
    assert isinstance(_build("ismcts:iterations=3"), IsmctsBot)
    bot = _build(f"{FAULTY}:FirstLegalBot:offset=2")
    assert isinstance(bot, FirstLegalBot) and bot.offset == 2
    assert isinstance(_build(f"{FAULTY}:first_factory:offset=1"), FirstLegalBot)
    # A class whose __init__ takes game_name is given it.
    assert _build("setgames.bots.ismcts:IsmctsBot:iterations=3").game_name == "tethsi"
    assert isinstance(_build(f"exec:{sys.executable} {EXAMPLE}"), ExternalBot)


@pytest.mark.parametrize("spec, match", [
    ("no_such_module_xyz:Bot", "no module named 'no_such_module_xyz'"),
    (f"{FAULTY}:Missing", "has no 'Missing'"),
    (f"{FAULTY}:NotABot", "is not a setgames.bots.Bot subclass"),
    (f"{FAULTY}:not_a_bot", "returned a str, not a setgames.bots.Bot"),
    (f"{FAULTY}:FirstLegalBot:depth=3", "it has no option 'depth'"),
    ("no_such_plugin", "unknown bot 'no_such_plugin'"),
    ("exec:./no/such/engine", "exec: command './no/such/engine' not found"),
    ("exec:", "exec: needs a command"),
])
def test_refusals_are_one_line_before_any_game(spec, match, capsys, tmp_path):
    _cli_error(["arena", "--game", "tethsi", "--bots", "random", spec, "--out", str(tmp_path)], capsys, match)
    assert not list(tmp_path.iterdir())  # refused before the run wrote anything


def test_module_spec_plays_in_the_arena_on_worker_processes(tmp_path):
    res = run_arena(["tethsi"], ["random", BotSpec.parse(f"{FAULTY}:FirstLegalBot:offset=1")],
                    games_per_pairing=2, workers=2, executor="local", out=tmp_path)
    bots = json.loads((tmp_path / "results.json").read_text())["bots"]
    assert bots[1] == {"label": f"{FAULTY}:FirstLegalBot:offset=1", "name": f"{FAULTY}:FirstLegalBot",
                       "options": {"offset": 1}}
    assert res["arenas"][0]["pairings"][0]["games"] == 2 and res["arenas"][0]["forfeits"] == {}


def _fake_distribution(root: Path, entries: dict[str, str]) -> None:
    """An installed distribution as importlib.metadata finds it: a dist-info folder on sys.path."""
    info = root / "fakebots-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fakebots\nVersion: 1.0\n")
    lines = "".join(f"{name} = {value}\n" for name, value in entries.items())
    (info / "entry_points.txt").write_text(f"[setgames.bots]\n{lines}")


def test_plugins_are_found_listed_and_built(tmp_path, monkeypatch, capsys):
    _fake_distribution(tmp_path, {"firstplug": f"{FAULTY}:FirstLegalBot",
                                  "brokenplug": "no_such_module_xyz:Bot",
                                  "greedy": f"{FAULTY}:FirstLegalBot"})
    monkeypatch.syspath_prepend(str(tmp_path))
    rows = {name: (where, desc) for name, where, desc in bot_listing() if where != "built-in"}
    assert rows["firstplug"] == (f"{FAULTY}:FirstLegalBot", FirstLegalBot.__doc__.splitlines()[0])
    assert rows["brokenplug"][1].startswith("fails to import: ModuleNotFoundError")
    assert "hidden by the built-in" in rows["greedy"][1]
    bot = _build("firstplug:offset=1")
    assert isinstance(bot, FirstLegalBot) and bot.offset == 1
    assert type(_build("greedy")).__module__.startswith("tethsi_env")  # built-ins win
    assert main(["bots"]) == 0
    out = capsys.readouterr().out
    assert "firstplug" in out and "brokenplug" in out and "random" in out and "exec:COMMAND" in out
    _cli_error(["arena", "--game", "tethsi", "--bots", "random", "brokenplug", "--out", str(tmp_path / "o")],
               capsys, "plug-in bot 'brokenplug' (no_such_module_xyz:Bot) fails to import")


def test_exec_items_keep_their_commas_on_the_command_line():
    assert split_bot_specs(["random,greedy", "exec:./bot --opts a,b=1"]) == [
        "random", "greedy", "exec:./bot --opts a,b=1"]


def test_saves_name_builtin_bots_only():
    assert is_builtin_spec("greedy") and is_builtin_spec("ismcts:iterations=9")
    for spec in ("exec:/bin/sh -c 'rm -rf ~'", f"{FAULTY}:FirstLegalBot", "firstplug"):
        assert not is_builtin_spec(spec)
        rec = make_record("tethsi", 0, {}, 1, [], seats=["human", spec])
        rec["opponents"] = spec
        with pytest.raises(LoadError, match="cannot be played: unknown bot"):
            Session.from_record(rec, lambda name, **config: make_game(name, **config))
