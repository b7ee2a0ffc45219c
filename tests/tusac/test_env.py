"""The Tu Sac environment: PettingZoo API, seeding, random-play fuzz, renders."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from setgames.cards import NUM_TUSAC_TYPES
from setgames.game import rng_from_seed
from setgames.testing import (
    check_env_mask_matches_rules,
    check_final_infos,
    check_random_play,
    game_fingerprint,
    global_rng_untouched,
    play_env_randomly,
)
from tests.tusac.helpers import hand, pile
from tusac_env import TuSacGame, env, raw_env
from tusac_env.layout import LAYOUT

CONFIGS = [(n, p) for n in (2, 3, 4) for p in (True, False)]
README = Path(__file__).resolve().parents[2] / "tusac_env" / "README.md"


@pytest.mark.parametrize(("n", "penalty"), CONFIGS)
def test_api_test(n, penalty):
    api_test(raw_env(num_players=n, penalty_rule=penalty), num_cycles=300)
    api_test(env(num_players=n, penalty_rule=penalty), num_cycles=100)


@pytest.mark.parametrize(("n", "penalty"), CONFIGS)
def test_seed_test(n, penalty):
    seed_test(lambda: env(num_players=n, penalty_rule=penalty), num_cycles=100)


# Independent set definitions for the invariant (not imported from the code under test).
def _valid_set(kind: str, tt: list[int]) -> bool:
    colors = {t // 7 for t in tt}
    pieces = sorted(t % 7 for t in tt)
    same = len(set(tt)) == 1
    return {
        "quan": len(tt) == 4 and same, "khui": len(tt) == 4 and same,
        "king": len(tt) == 1 and pieces == [0], "pair": len(tt) == 2 and same,
        "triple": len(tt) == 3 and same,
        "kgm": pieces == [0, 1, 2] and len(colors) == 1,
        "rcn": pieces == [3, 4, 5] and len(colors) == 1,
        "pawns3": pieces == [6, 6, 6] and len(colors) == 3,
        "pawns4": pieces == [6, 6, 6, 6] and len(colors) == 4,
    }[kind]


def tusac_invariants(game, state) -> None:
    """112 cards conserved, public blocks of valid sets, no private four of a kind,
    payments summing to zero and matching the returns."""
    total = [0] * NUM_TUSAC_TYPES
    for s in range(state.num_players):
        assert max(state.private[s]) <= 3, "private block holds four of a kind"
        for t in range(NUM_TUSAC_TYPES):
            total[t] += state.private[s][t] + state.dead[t]  # dead counted n times, fixed below
        for kind, tt in state.public[s]:
            assert _valid_set(kind, tt), (kind, tt)
            for t in tt:
                total[t] += 1
    for t in range(NUM_TUSAC_TYPES):
        total[t] -= (state.num_players - 1) * state.dead[t]
    for t in state.draw:
        total[t] += 1
    if state.active >= 0:
        total[state.active] += 1
    assert total == [4] * NUM_TUSAC_TYPES, total
    net = [0] * state.num_players
    for payer, payee, amount, _ in state.payments:
        assert amount > 0 and payer != payee
        net[payer] -= amount
        net[payee] += amount
    scale = game.config.reward_scale
    assert sum(net) == 0
    if game.is_over(state):
        assert list(game.returns(state)) == [v * scale for v in net]


@pytest.mark.parametrize(("n", "penalty"), CONFIGS)
def test_random_play_fuzz_with_invariants(n, penalty):
    game = TuSacGame(num_players=n, penalty_rule=penalty, first_player="random", reward_scale=0.5)
    assert check_random_play(game, range(12), per_step=tusac_invariants) > 0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_env_mask_matches_rules(n):
    for seed in range(4):
        check_env_mask_matches_rules(env(num_players=n), seed)


def test_cross_process_reproducibility():
    game = TuSacGame(num_players=3, first_player="random")
    here = [game_fingerprint(game, seed) for seed in (1, 2)]
    code = (
        "from setgames.testing import game_fingerprint; from tusac_env import TuSacGame; "
        "g = TuSacGame(num_players=3, first_player='random'); "
        "print([game_fingerprint(g, s) for s in (1, 2)])"
    )
    root = str(Path(__file__).resolve().parents[2])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root,
                         check=True).stdout
    assert out.strip() == str(here) and here[0] != here[1]


def test_global_rng_untouched():
    with global_rng_untouched():
        e = env(num_players=4)
        e.reset(seed=3)
        for _ in range(60):
            if not e.agents:
                break
            obs, _, term, trunc, _ = e.last()
            e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        game = TuSacGame()
        state = game.new_state(rng_from_seed(5))
        game.determinize(state, 1, np.random.default_rng(0))


def test_two_seeds_give_two_deals():
    game = TuSacGame()
    assert game.new_state(rng_from_seed(1)).private != game.new_state(rng_from_seed(2)).private


def test_illegal_action_raises_and_leaves_state_unchanged():
    e = raw_env()
    e.reset(seed=0)
    before = json.dumps(e.game.to_json(e.game_state))
    legal = e.game.legal_actions(e.game_state)
    bad = next(a for a in range(LAYOUT.n) if a not in legal)
    with pytest.raises(ValueError, match=rf"illegal action {bad} .*; legal: "):
        e.step(bad)
    assert json.dumps(e.game.to_json(e.game_state)) == before


def test_terminate_option_ends_the_game():
    e = env(illegal_action="terminate")
    e.reset(seed=0)
    offender = e.agent_selection
    e.step(LAYOUT.start("hit"))  # the first player must discard
    assert all(e.terminations.values()) and e.infos[offender]["illegal_action"] is True
    assert e._cumulative_rewards[offender] == -1.0


def test_rewards_and_outcome_info_at_the_end():
    e = env(num_players=3)
    total, info = play_env_randomly(e, seed=11)
    game, state = e.unwrapped.game, e.unwrapped.game_state
    assert [total[a] for a in e.possible_agents] == list(game.returns(state))
    out = e.outcome()
    assert out["reason"] in ("win", "draw", "first_hand_win") and "payments" in out
    assert info["returns"].tolist() == out["scores"] and info["net_payments"].tolist() == out["net_payments"]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_final_infos_hold_fixed_shape_numbers_only(players):
    # Tianshou's buffer stores infos: the ragged payments list or a None
    # winner on a draw would break it; draws and wins must give one shape.
    shapes = check_final_infos(env(num_players=players), range(10))
    assert set(shapes) == {"action_mask", "winner", "value", "amount", "penalized",
                           "winning_card_from", "net_payments", "returns"}
    assert shapes["returns"] == ("array", "f", (players,)) and shapes["winner"] == ("int",)


def test_observation_table_in_readme_matches_spec():
    sizes = [TuSacGame(num_players=n).obs_spec.size for n in (2, 3, 4)]
    assert sizes[1] - sizes[0] == sizes[2] - sizes[1] > 0  # per-player rows grow with n
    TuSacGame(num_players=4).obs_spec.check_readme(README)


def test_action_table_in_readme_matches_layout():
    assert LAYOUT.markdown_table() in README.read_text(encoding="utf-8")


def test_labels_round_trip_through_the_parser():
    game = TuSacGame()
    for a in range(game.num_actions):
        assert game.str_to_action(game.action_to_str(a)) == a
    assert game.action_to_str(game.str_to_action("meld red rook+cannon+knight")) == \
        "meld red rook+cannon+knight"
    assert game.str_to_action("discard green pawn") == LAYOUT.start("discard") + 2 * 7 + 6


def test_determinize_keeps_public_facts():
    game = TuSacGame()
    state = game.new_state(rng_from_seed(4))
    for _ in range(30):
        legal = game.legal_actions(state)
        if not legal:
            break
        game.apply(state, legal[-1])
    for seed in range(5):
        det = game.determinize(state, state.current if state.current >= 0 else 0,
                               np.random.default_rng(seed))
        assert det.public == state.public and det.dead == state.dead
        assert [sum(p) for p in det.private] == [sum(p) for p in state.private]
        assert [len(k) for k in det._khaps] == [len(k) for k in state._khaps]
        assert len(det.draw) == len(state.draw)
        tusac_invariants(game, det)


# The draw pile: the 11 cards given to position() on top of the 85 it fills in under them
# (112 - 16 dealt - 11), so 96 at the start: 95 after the first hit, 93 after the third.
GOLDEN_MID = """Tu Sac, 4 players, first player_0; draw pile 95; dead: yP
 player_0 private (3): yN gP wK; khaps 0; trash 2
   public: -
 player_1 private (3): yR gC gN; khaps 0; trash 3
   public: -
 player_2 private (1): wN; khaps 0; trash 1
   public: triple rC rC rC
*player_3 private (2): wR wC; khaps 0; trash 2
   public: khui yC yC yC yC
last claim: khui by player_3
player_3 to discard"""

GOLDEN_FINAL = """Tu Sac, 4 players, first player_0; draw pile 93; dead: yR yP wR
 player_0 private (3): yN gP wK; khaps 0; trash 2
   public: -
 player_1 private (0): -; khaps 0; trash 0
   public: rcn gR gC gN
 player_2 private (0): -; khaps 0; trash 0
   public: triple rC rC rC | pair wN wN
 player_3 private (1): wC; khaps 0; trash 1
   public: khui yC yC yC yC
last claim: win by player_2
game over: player_2 wins on wN, hand value 1, 14 per loser
  player_0 pays player_2 14 (win)
  player_1 pays player_2 14 (win)
  player_3 pays player_2 14 (win)
  player_0 pays player_3 6 (khui)
  player_1 pays player_3 6 (khui)
  player_2 pays player_3 6 (khui)
  net: player_0 -20, player_1 -20, player_2 +36, player_3 +4"""

GOLDEN_FINAL_SEAT0 = """Tu Sac, 4 players, first player_0; draw pile 93; dead: yR yP wR
 player_0 private (3): yN gP wK; khaps 0; trash 2
   public: -
 player_1 private (0): ?; khaps 0
   public: rcn gR gC gN
 player_2 private (0): ?; khaps 0
   public: triple rC rC rC | pair wN wN
 player_3 private (1): ?; khaps 0
   public: khui yC yC yC yC
last claim: win by player_2
game over: player_2 wins on wN, hand value 1, 14 per loser
  player_0 pays player_2 14 (win)
  player_1 pays player_2 14 (win)
  player_3 pays player_2 14 (win)
  player_0 pays player_3 6 (khui)
  player_1 pays player_3 6 (khui)
  player_2 pays player_3 6 (khui)
  net: player_0 -20, player_1 -20, player_2 +36, player_3 +4"""


def test_golden_ansi_render_of_a_scripted_game_with_claims():
    e = raw_env(render_mode="ansi")
    game = e.game
    state = game.position(
        [hand("rC yN gP wK"), hand("gN gC yR"), hand("rC rC yP wN"), hand("yC yC yC wR wC")],
        pile("yC gR wN gG gM wM wG wG wM gG gM"),
    )
    e.set_game_state(state)
    script = ["discard red cannon", "discard yellow pawn", "hit", "discard white rook", "hit",
              "pass", "meld green rook+cannon+knight", "discard yellow rook", "hit"]
    for i, label in enumerate(script):
        assert e.agent_selection == f"player_{e.game_state.current}"  # (the env's state: a snapshot)
        e.step(game.str_to_action(label))
        if i == 2:
            assert e.render() == GOLDEN_MID
    assert e.render() == GOLDEN_FINAL
    assert game.render(e.game_state, 0) == GOLDEN_FINAL_SEAT0
    assert e.rewards == {"player_0": -20.0, "player_1": -20.0, "player_2": 36.0, "player_3": 4.0}


@pytest.mark.parametrize("engine", [None, False])
def test_first_hand_win_pays_out_when_the_game_starts(engine):
    # tusac_env/README.md, rules choices 19 and 22: the first player wins at once with no trash;
    # value 1 (kgm) -> (3 + 1) + 10 = 14.
    e = raw_env(num_players=2, engine=engine)
    state = e.game.position([hand("rK rG rM gP gP"), hand("rC wK yP")], pile("gG gM wM wG wG wM gG gM"))
    e.set_game_state(state)
    assert all(e.terminations.values()) and e.outcome()["reason"] == "first_hand_win"
    assert e.infos["player_0"]["winner"] == 0 and e.infos["player_1"]["returns"].tolist() == [14.0, -14.0]
    assert e._cumulative_rewards == {"player_0": 14.0, "player_1": -14.0}
