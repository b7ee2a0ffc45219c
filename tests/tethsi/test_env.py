"""Tet Hsi through PettingZoo: API and seed tests, illegal actions, outcome in
infos, README tables, golden ansi renders of scripted games."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import tethsi_env
from setgames.registry import env_class, game_class
from setgames.testing import check_final_infos
from tethsi_env import TetHsiGame, env, raw_env
from tethsi_env.layout import PLAY_START, SET_START, TAKE

README = Path(tethsi_env.__file__).with_name("README.md")


def test_api_test_passes_for_env_and_raw_env():
    api_test(env(), num_cycles=300)
    api_test(raw_env(), num_cycles=300)
    api_test(env(first_player="random"), num_cycles=100)


def test_seed_test_passes_for_env_and_raw_env():
    seed_test(env, num_cycles=100)
    seed_test(raw_env, num_cycles=100)


def test_metadata_agents_spaces_and_registry():
    e = raw_env()
    assert e.metadata["name"] == "tethsi_v0"
    assert set(e.metadata["render_modes"]) == {"ansi", "human", "svg", "rgb_array"}
    assert e.possible_agents == ["player_0", "player_1"]
    assert e.action_space("player_0").n == 704
    assert e.observation_space("player_1")["observation"].shape == (304,)
    assert game_class("tethsi") is TetHsiGame and env_class("tethsi") is raw_env
    assert TetHsiGame.name == "tethsi" and TetHsiGame.env_name == "tethsi_v0"


def test_bad_config_raises_at_construction():
    with pytest.raises(ValueError, match="first_player 3"):
        env(first_player=3)
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="pixels")
    with pytest.raises(TypeError):
        raw_env(players=3)


def test_illegal_action_raises_naming_it_and_leaves_state_unchanged():
    e = env()
    e.reset(seed=0)
    base = e.unwrapped
    before = base.game.to_json(base.game_state)
    with pytest.raises(ValueError, match=r"illegal action 36 \(take\); legal: 19 \(discard Penitent\)"):
        e.step(TAKE)
    assert base.game.to_json(base.game_state) == before
    with pytest.raises(ValueError, match="illegal action 36"):
        base.step(TAKE)


def test_terminate_option_ends_the_game_with_a_penalty():
    e = env(illegal_action="terminate")
    e.reset(seed=0)
    e.step(TAKE)
    assert all(e.terminations.values())
    assert e._cumulative_rewards == {"player_0": -1.0, "player_1": 0.0}
    assert e.infos["player_1"]["illegal_action"] is True


def _play(e, policy):
    while not (e.terminations[e.agent_selection] or e.truncations[e.agent_selection]):
        legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"]).tolist()
        e.step(policy(legal))


def test_outcome_and_rewards_in_infos_at_the_end():
    e = env()
    e.reset(seed=2)
    _play(e, _prefer_sets)
    info, out = e.infos["player_1"], e.outcome()
    assert out["winner"] == 0 and out["reason"] == "third set: hand emptied" and out["result"] == "win"
    assert info["winner"] == 0 and info["returns"].tolist() == [1.0, -1.0]
    assert info["set_counts"].tolist() == [len(out["sets"][0]), len(out["sets"][1])]
    assert len(out["sets"][0]) == 3
    assert e._cumulative_rewards == {"player_0": 1.0, "player_1": -1.0}
    e.reset(seed=5)
    _play(e, lambda legal: legal[1] if len(legal) > 1 and legal[1] == TAKE + 1 else legal[0])
    info, out = e.infos["player_0"], e.outcome()
    assert out["result"] == "tie" and out["reason"] == "draw pile empty at the reveal"
    assert info["winner"] == -1 and info["returns"].tolist() == [0.0, 0.0]
    assert e._cumulative_rewards == {"player_0": 0.0, "player_1": 0.0}


def test_final_infos_hold_fixed_shape_numbers_only():
    # Tianshou's buffer stores infos: ragged Sets lists or a None winner would break it.
    shapes = check_final_infos(env(), range(12))
    assert set(shapes) == {"action_mask", "winner", "returns", "set_counts", "turns", "first_player"}
    assert shapes["returns"] == ("array", "f", (2,)) and shapes["set_counts"] == ("array", "i", (2,))


def test_observation_says_whose_turn_and_which_decision():
    e = raw_env()
    e.reset(seed=1)
    spec = e.game.obs_spec
    o0, o1 = (spec.unpack(e.observe(a)["observation"]) for a in ("player_0", "player_1"))
    assert o0["my_turn"] == 1 and o1["my_turn"] == 0
    assert o0["phase"].tolist() == o1["phase"].tolist() == [1, 0, 0]
    e.step(int(np.flatnonzero(e.observe("player_0")["action_mask"])[0]))
    o0 = spec.unpack(e.observe("player_0")["observation"])
    assert o0["phase"].tolist() == [0, 1, 0] and o0["remaining"].sum() == 1
    assert not e.observe("player_1")["action_mask"].any()
    assert np.array_equal(e.infos["player_0"]["action_mask"], e.observe("player_0")["action_mask"])


def test_readme_tables_match_the_code():
    game = TetHsiGame()
    game.obs_spec.check_readme(README)
    text = README.read_text(encoding="utf-8")
    assert game.layout.markdown_table() in text


def test_human_render_prints(capsys):
    e = env(render_mode="human")
    e.reset(seed=11)
    assert e.render() is None
    assert "Tet Hsi, turn 1: player_0 to discard a center card" in capsys.readouterr().out


def _prefer_sets(legal):
    sets = [a for a in legal if SET_START <= a < PLAY_START]
    if sets:
        return sets[0]
    return TAKE if TAKE in legal else legal[0]


GOLDEN_MID = """\
Tet Hsi, turn 4: player_1 to discard a center card
Center: Painter [3SK], Merchant [9LK]
Draw pile: 15 cards, top first: CM, 6SY, CY, 4VL, 6LK, CS, 7ML, 7VY, 7SK, 9VY, 4MS, 5YK, CV, AL, 2VL
Discard pile: Betrayal [8YK], Crown of Leaves [CL], Crown of Knots [CK]
 player_0 (first)
    concealed (6): Ace of Suns [AS], Ace of Wyrms [AY], Ace of Knots [AK], Author [2MK], Diplomat [8MS], \
Pact [9MS]
    front: Ace of Waves [AV], Discovery [5SV]
    sets: -
>player_1
    concealed (7): Ace of Moons [AM], Desert [2SY], Journey [3MV], Savage [3LY], Forest [5ML], \
Lunatic [6MV], Mill [8VL]
    front: Battle [4YK]
    sets: -"""

GOLDEN_MID_VIEW_1 = """\
Tet Hsi, turn 4: player_1 to discard a center card  (view of player_1)
Center: Painter [3SK], Merchant [9LK]
Draw pile: 15 cards
Discard pile: Betrayal [8YK], Crown of Leaves [CL], Crown of Knots [CK]
 player_0 (first)
    concealed (6): hidden
    front: Ace of Waves [AV], Discovery [5SV]
    sets: -
>player_1
    concealed (7): Ace of Moons [AM], Desert [2SY], Journey [3MV], Savage [3LY], Forest [5ML], \
Lunatic [6MV], Mill [8VL]
    front: Battle [4YK]
    sets: -"""

GOLDEN_END = """\
Tet Hsi, turn 9: game over, player_0 wins (third set: hand emptied)
Center: -
Draw pile: 10 cards, top first: 3MV, 6SY, 5YK, AY, AM, 4VL, 3LY, 6MV, AV, CK
Discard pile: Ace of Suns [AS], Ace of Leaves [AL], Ace of Knots [AK], Painter [3SK], Discovery [5SV], \
Market [6LK], Chance Meeting [7ML], Castle [7SK], Darkness [9VY]
 player_0 (first)
    concealed (0): -
    front: -
    sets: Kvar: 4YK 8YK CY; Bharg: 2MK 2SY 2VL; Phen: CV CL 8VL
 player_1
    concealed (1): Pact [9MS]
    front: Crown of Suns [CS]
    sets: Ciao: 4MS 5ML CM; Bharg: 7VY 8MS 9LK"""


def test_golden_ansi_render_of_a_scripted_game():
    e = env(render_mode="ansi")
    e.reset(seed=11)
    script = ["discard Betrayal", "take", "play Crown of Leaves", "discard Crown of Leaves", "take",
              "play Crown of Knots", "discard Crown of Knots", "take", "play Merchant"]
    game = e.unwrapped.game
    for label in script:
        e.step(game.str_to_action(label))
    assert e.render() == GOLDEN_MID
    assert game.render(e.unwrapped.game_state, 1) == GOLDEN_MID_VIEW_1


def test_golden_ansi_render_of_a_won_game():
    e = env(render_mode="ansi")
    e.reset(seed=2)
    _play(e, _prefer_sets)
    assert e.render() == GOLDEN_END
