"""Bharg through PettingZoo: API, seeding, fuzz invariants, observations, renders."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import bharg_env
from bharg_env import BhargGame, env, raw_env
from bharg_env.rules import DISCARD0, OBS_SPEC, make_layout
from setgames.game import rng_from_seed
from setgames.registry import env_class, game_class
from setgames.spec import ACTION_FEATURES_BEGIN, ACTION_FEATURES_END, mode_markers
from setgames.testing import (
    check_env_mask_matches_rules,
    check_final_infos,
    check_random_play,
    game_fingerprint,
    global_rng_untouched,
    play_env_randomly,
)
from tests.bharg.helpers import check_conservation, check_observation_bytes, make_state

ROOT = Path(__file__).resolve().parents[2]
# every config combination: players x excuse x pawns x courts x (target, reward)
CONFIGS = [
    {"num_players": n, "excuse": e, "pawns": p, "courts": c, "target_score": t, "reward": r}
    for n, e, p, c in itertools.product((2, 3), (False, True), (False, True), (False, True))
    for t, r in ((None, "score"), (25, "win"))
]


def _id(cfg: dict) -> str:
    return "-".join(f"{k[:3]}{v}" for k, v in cfg.items())


@pytest.mark.parametrize("cfg", CONFIGS, ids=_id)
def test_api_test_and_seed_test(cfg):
    api_test(raw_env(**cfg), num_cycles=60)
    api_test(env(**cfg), num_cycles=60)
    seed_test(lambda: env(**cfg), num_cycles=60)


def test_metadata_agents_and_registry():
    e = raw_env(num_players=3)
    assert e.metadata["name"] == "bharg_v0"
    assert set(e.metadata["render_modes"]) == {"ansi", "human", "svg", "rgb_array"}
    assert e.possible_agents == ["player_0", "player_1", "player_2"]
    assert game_class("bharg") is BhargGame and env_class("bharg") is raw_env
    assert bharg_env.__all__ == ["BhargGame", "env", "raw_env"]


def _per_step(game, state):
    check_conservation(game, state)
    check_observation_bytes(game, state)


@pytest.mark.parametrize("cfg", [
    {}, {"num_players": 3}, {"excuse": True, "pawns": True, "courts": True},
    {"num_players": 3, "excuse": True, "pawns": True, "target_score": 20, "reward": "win"},
    {"target_score": 30, "max_turns": 60},
], ids=_id)
def test_random_play_fuzz_keeps_every_invariant(cfg):
    game = BhargGame(**cfg)
    # win/loss mode pays -1 to each loser (bharg_env/README.md, rules choice 5): zero-sum only
    # with two players
    zero_sum = cfg.get("reward") != "win" or game.num_players == 2
    assert check_random_play(game, range(6), per_step=_per_step, check_every=3, zero_sum=zero_sum) > 0


@pytest.mark.parametrize("cfg", [
    {}, {"num_players": 3, "excuse": True, "courts": True},
    {"num_players": 3, "pawns": True, "target_score": 20, "max_turns": 40},
], ids=_id)
def test_observation_bytes_patched_by_apply_equal_a_fresh_build_every_step(cfg):
    game = BhargGame(**cfg)
    events = set()
    for seed in range(8):
        st = game.new_state(rng_from_seed(seed))
        rng = np.random.default_rng(seed)
        while not game.is_over(st):
            check_observation_bytes(game, st)
            legal = game.legal_actions(st)
            game.apply(st, legal[int(rng.integers(len(legal)))])
        check_observation_bytes(game, st)
        events |= {"ace discarded" if e[0] == "discard" and e[2] < 6 else e[0] for e in st.events}
    assert {"reshuffle", "take", "ace discarded", "discard"} <= events


def test_observation_bytes_are_derived_data_outside_equality_and_json():
    game = BhargGame(num_players=3)
    st = game.new_state(rng_from_seed(4))
    fresh = game.clone(st)
    before = game.observe(st, 1)
    game.apply(st, game.legal_actions(st)[0])  # st now carries derived data, fresh none
    game.apply(fresh, game.legal_actions(fresh)[0])
    assert fresh == st and game.to_json(fresh) == game.to_json(st)
    twin = game.clone(st)
    assert twin == st
    seen = [game.observe(st, s).tolist() for s in range(3)]
    for _ in range(2):  # the clone moves on alone (a discard, then a draw)
        game.apply(twin, game.legal_actions(twin)[-1])
    assert [game.observe(st, s).tolist() for s in range(3)] == seen
    check_observation_bytes(game, st)
    check_observation_bytes(game, twin)
    loaded = game.from_json(game.to_json(st))
    assert loaded == st and set(game.to_json(st)) == {
        "hands", "known", "deck", "discard", "aces", "seat", "phase", "turn", "round", "scores",
        "rewards", "seed", "draws", "winner", "reason", "truncated", "round_points", "events"}
    assert np.array_equal(game.observe(loaded, 1), game.observe(st, 1))
    det = game.determinize(st, 0, np.random.default_rng(0))
    assert np.array_equal(game.observe(det, 0), game.observe(st, 0))
    check_observation_bytes(game, det)
    view = game.observe(st, 1)
    view[0] = 1 - view[0]  # the returned array is the caller's own
    assert game.observe(st, 1)[0] != view[0] and before.shape == view.shape


@pytest.mark.parametrize("n", [2, 3])
def test_observations_follow_hand_made_states_whose_hand_sizes_differ(n):
    # apply() keeps the opponents' hand sizes in a table built from the hands
    # at the first observe; a state laid out by hand (odd hand sizes, the actor
    # mid-turn) must still be seen as the hands really are, at every step.
    game = BhargGame(num_players=n)
    rng = np.random.default_rng(n)
    for start_phase in (0, 1):
        ids = rng.permutation(36).tolist()
        sizes = [3, 5, 4][:n]
        sizes[0] += start_phase  # seat 0 to discard holds one card more
        hands, pos = [], 0
        for k in sizes:
            hands.append(ids[pos:pos + k])
            pos += k
        # (odd hand sizes are no state a deal reaches: built unchecked, for the rules layer)
        st = make_state(game, hands, deck=ids[pos:pos + 12], discard=ids[pos + 12:pos + 15], aces=[],
                        phase=start_phase, fill="none", check=False)
        for _ in range(30):
            check_observation_bytes(game, st)
            for s in range(n):
                size_view = game.observe(st, s)[OBS_SPEC.slices["opp_hand_size"]].tolist()
                assert size_view[: n - 1] == [st.hands[(s + j) % n].bit_count() for j in (1, 2)][: n - 1]
            legal = game.legal_actions(st)
            if not legal:
                break
            game.apply(st, legal[int(rng.integers(len(legal)))])


def test_random_play_reaches_reshuffles_wins_and_truncations():
    game = BhargGame()
    kinds = set()
    for seed in range(40):
        st = game.new_state(rng_from_seed(seed))
        rng = np.random.default_rng(seed)
        while not game.is_over(st):
            legal = game.legal_actions(st)
            game.apply(st, legal[int(rng.integers(len(legal)))])
        kinds |= {e[0] for e in st.events}
        kinds.add("truncated" if game.is_truncated(st) else "won")
    assert {"reshuffle", "win", "truncated", "won", "ace_pile", "take"} <= kinds


@pytest.mark.parametrize("cfg", [{}, {"num_players": 3, "pawns": True, "target_score": 15}], ids=_id)
def test_env_mask_matches_rules(cfg):
    for seed in range(3):
        check_env_mask_matches_rules(env(**cfg), seed, max_steps=20_000)


def test_games_reproduce_across_processes():
    code = ("from bharg_env import BhargGame; from setgames.testing import game_fingerprint; "
            "print(game_fingerprint(BhargGame(num_players=3, pawns=True, target_score=20), 5))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == game_fingerprint(BhargGame(num_players=3, pawns=True, target_score=20), 5)


def test_different_seeds_give_different_deals():
    g = BhargGame()
    deals = {tuple(g.new_state(rng_from_seed(s)).hands) for s in range(20)}
    assert len(deals) == 20
    e = env()
    e.reset(seed=1)
    a = e.observe("player_0")["observation"].copy()
    e.reset(seed=2)
    assert not np.array_equal(a, e.observe("player_0")["observation"])


def test_global_rng_untouched():
    with global_rng_untouched():
        e = env(num_players=3, excuse=True, target_score=10)
        e.reset(seed=3)
        for _agent in e.agent_iter(max_iter=3000):
            obs, _, term, trunc, _ = e.last()
            e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        e.reset()


def test_illegal_action_raises_and_leaves_the_state_unchanged():
    e = raw_env()
    e.reset(seed=0)
    before = e.game.to_json(e.game_state)
    msg = r"illegal action 2 \(discard Ace of Moons\); legal: 0 \(draw deck\)"
    with pytest.raises(ValueError, match=msg):
        e.step(DISCARD0)
    assert e.game.to_json(e.game_state) == before
    w = env()
    w.reset(seed=0)
    with pytest.raises(ValueError, match="outside the action space"):
        w.step(99)


def test_terminate_option_ends_the_game_with_a_penalty():
    e = env(illegal_action="terminate")
    e.reset(seed=0)
    e.step(DISCARD0)  # discarding before drawing is illegal
    assert all(e.terminations.values())
    assert e._cumulative_rewards["player_0"] == -1.0 and e._cumulative_rewards["player_1"] == 0.0
    assert e.infos["player_1"]["illegal_action"] is True


def test_rewards_reach_the_agents_at_the_end():
    e = env()
    total, info = play_env_randomly(e, seed=11)
    assert sum(total.values()) == 0
    assert list(total.values()) == info["returns"].tolist() == e.outcome()["returns"]


@pytest.mark.parametrize("config", [{}, {"num_players": 3, "pawns": True}, {"target_score": 40}])
def test_final_infos_hold_fixed_shape_numbers_only(config):
    shapes = check_final_infos(env(**config), range(10))
    n = config.get("num_players", 2)
    assert set(shapes) == {"action_mask", "winner", "truncated", "round", "scores", "round_points", "returns"}
    assert shapes["returns"] == ("array", "f", (n,)) and shapes["scores"] == ("array", "i", (n,))


def test_observation_matches_the_state_feature_by_feature():
    g = BhargGame(num_players=3, target_score=40)
    st = g.new_state(rng_from_seed(6))
    rng = np.random.default_rng(1)
    for _ in range(150):
        if g.is_over(st):
            break
        for seat in range(3):
            o = OBS_SPEC.unpack(g.observe(st, seat))
            assert np.flatnonzero(o["hand"]).tolist() == [c for c in range(45) if st.hands[seat] >> c & 1]
            assert np.flatnonzero(o["ace_top"]).tolist() == st.aces[-1:]
            assert np.flatnonzero(o["ace_pile"]).tolist() == sorted(st.aces[:-1])
            assert np.flatnonzero(o["discard_top"]).tolist() == st.discard[-1:]
            assert np.flatnonzero(o["discard_pile"]).tolist() == sorted(st.discard[:-1])
            for k in (1, 2):
                other = (seat + k) % 3
                assert o["opp_hand_size"][k - 1] == st.hands[other].bit_count()
                assert np.flatnonzero(o["opp_known"][k - 1]).tolist() == [
                    c for c in range(45) if st.known[other] >> c & 1]
            assert o["deck_size"] == len(st.deck)
            assert o["phase"].tolist() == [st.phase == 0, st.phase == 1]
            assert o["to_act"].tolist() == [(st.seat - seat) % 3 == k for k in range(3)]
            assert o["scores"].tolist() == [min(st.scores[(seat + k) % 3], 40) for k in range(3)]
            assert o["turns_left"] == min(200 - st.turn, 127)
        legal = g.legal_actions(st)
        g.apply(st, legal[int(rng.integers(len(legal)))])


def test_two_player_observation_leaves_the_second_opponent_slot_empty():
    g = BhargGame()
    o = OBS_SPEC.unpack(g.observe(g.new_state(rng_from_seed(0)), 1))
    assert o["opp_hand_size"].tolist() == [7, 0] and o["opp_known"][1].sum() == 0
    assert o["scores"].tolist() == [0, 0, 0]


def test_readme_tables_match_the_code():
    readme = ROOT / "bharg_env" / "README.md"
    OBS_SPEC.check_readme(readme)
    assert make_layout().markdown_table() in readme.read_text(encoding="utf-8")
    game = BhargGame()
    game.obs_specs["structure"].check_readme(readme, *mode_markers("structure"))
    game.obs_specs["history"].check_readme(readme, *mode_markers("history"))
    game.action_spec.check_readme(readme, ACTION_FEATURES_BEGIN, ACTION_FEATURES_END)
    with pytest.raises(AssertionError, match="differs from the spec"):
        OBS_SPEC.check_readme(readme, *mode_markers("structure"))  # the markers hold another table


GOLDEN_FULL = """\
Bharg, 2 players, round 1, turn 0/200
To act: player_0 (draw)
Ace Pile: empty
Discard: 6LK (0 under)
Deck: 21 cards
> player_0: AY 5YK 7SK 8VL 9MS 9VY CS
  player_1: AM AV AK 3LY 4VL 8MS 8YK"""

GOLDEN_SEAT1_LATER = """\
Bharg, 2 players, round 1, turn 1/200
To act: player_1 (discard)
Ace Pile: empty
Discard: CS (0 under)
Deck: 20 cards
  player_0: [7 cards] known: 6LK
> player_1: AM AV AK 2MK 3LY 4VL 8MS 8YK"""


def test_golden_ansi_renders():
    e = raw_env(render_mode="ansi")
    e.reset(seed=0)
    assert e.render() == GOLDEN_FULL
    g = e.game
    e.step(1)  # player_0 takes the 6LK
    e.step(DISCARD0 + 31)  # and discards the Crown of Suns
    e.step(0)  # player_1 draws from the deck
    assert g.render(e.game_state, seat=1) == GOLDEN_SEAT1_LATER


def test_human_render_prints(capsys):
    e = raw_env(render_mode="human")
    e.reset(seed=0)
    assert e.render() is None
    assert capsys.readouterr().out.strip() == GOLDEN_FULL
