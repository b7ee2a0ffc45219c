"""The exec: bot protocol: what a seat is sent, and the example bot that imports no setgames."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from setgames.bots.base import BotFault, RandomBot
from setgames.bots.external import PROTOCOL_VERSION, ExternalBot
from setgames.game import rng_from_seed
from setgames.registry import make_game

ROOT = Path(__file__).resolve().parents[3]
BOTS = Path(__file__).resolve().parent / "external_bots"


def test_each_decision_carries_exactly_the_seats_view(tmp_path):
    log = tmp_path / "messages.jsonl"
    game = make_game("bharg")
    bot = ExternalBot(5, command=f"{sys.executable} {BOTS / 'record.py'} {log}")
    other = RandomBot(1)
    state = game.new_state(rng_from_seed(11))
    sent = []
    try:
        bot.set_clock(1500.0, None)
        bot.start_game(game, 1)
        while not game.is_over(state):
            seat = game.current_seat(state)
            if seat == 1:
                sent.append((np.asarray(game.observe(state, 1)).tolist(), game.legal_actions(state),
                             game.render(state, 1), json.loads(json.dumps(game.events(state)))))
                action = bot.act(game, state, 1)
                assert action == game.legal_actions(state)[0]
            else:
                action = other.act(game, state, seat)
            game.apply(state, action)
    finally:
        bot.close()
    messages = [json.loads(line) for line in log.read_text().splitlines()]
    assert messages[0] == {"type": "hello", "protocol": PROTOCOL_VERSION}
    assert messages[1] == {"type": "new_game", "game": "bharg", "version": game.version,
                           "config": json.loads(json.dumps(game.config_dict())), "seat": 1, "players": 2,
                           "num_actions": game.num_actions, "seed": 5}
    acts = messages[2:-1]
    assert messages[-1] == {"type": "quit"} and len(acts) == len(sent) > 3
    for ply, (msg, (obs, legal, view, history)) in enumerate(zip(acts, sent, strict=True)):
        assert msg["type"] == "act" and msg["ply"] == ply and msg["seat"] == 1
        assert msg["observation"] == obs and msg["view"] == view and msg["history"] == history
        assert msg["legal"] == [[a, game.action_to_str(a)] for a in legal]
        assert msg["time_left_ms"] == {"move": 1500.0, "game": None}
    # what seat 1 may not see is not in its view: seat 0's hand is hidden there
    assert game.render(state, 1) != game.render(state, None)


def test_the_example_bot_imports_only_the_standard_library():
    tree = ast.parse((ROOT / "examples" / "external_bot.py").read_text())
    names = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
             for alias in node.names}
    names |= {node.module.split(".")[0] for node in ast.walk(tree)
              if isinstance(node, ast.ImportFrom) and node.module}
    assert names and names <= set(sys.stdlib_module_names), names


def test_a_faulty_program_is_restarted_for_the_next_game():
    game = make_game("tethsi")
    bot = ExternalBot(0, command=f"{sys.executable} {BOTS / 'slow.py'} 0")
    try:
        for deal in range(2):
            state = game.new_state(rng_from_seed(deal))
            bot.start_game(game, game.current_seat(state))
            first = bot._proc.pid
            bot._proc.kill()
            bot._proc.wait()
            with pytest.raises(BotFault) as fault:
                bot.act(game, state, game.current_seat(state))
            assert fault.value.reason == "crashed" and "signal 9" in fault.value.detail
            assert bot._proc is None
        bot.start_game(game, 0)
        assert bot._proc.pid != first
    finally:
        bot.close()
