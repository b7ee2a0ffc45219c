"""Tet Hsi's observation modes: the ``obs`` option, the ``structure`` block (``tethsi_env.structure``)
against hand-worked positions and a brute-force count over every triple of the deck (read by the
tests' own oracle, not the kernel), the compiled engine against the reference, and the
``determinize`` invariance (re-dealing the cards a seat has not seen changes none of its views).
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from setgames.engine import engine_class
from setgames.game import rng_from_seed
from setgames.obs import DEFAULT_OBS
from tests.tethsi.decktet_oracle import oracle_kind
from tests.tethsi.positions import c, position
from tethsi_env.history import HISTORY_SPEC
from tethsi_env.layout import OBS_SPEC, Phase
from tethsi_env.rules import TetHsiGame
from tethsi_env.structure import BLOCK_SPEC, PAIRS_CAP, STRUCTURE_SPEC

MODES = ("cards", "structure")
# Every Set of the deck by the oracle's literal reading of the kinds (README, "Rules summary").
ORACLE_SETS = [frozenset(t) for t in itertools.combinations(range(36), 3) if oracle_kind(*t)]


def block(game: TetHsiGame, state, seat: int) -> dict:
    """The structure block of ``seat``'s observation, by feature name."""
    return BLOCK_SPEC.unpack(game.observe(state, seat)[OBS_SPEC.size:])


def random_positions(game: TetHsiGame, seeds: range, every: int = 1):
    """States along random games (take and set chosen often, so that fronts and Sets build up)."""
    for seed in seeds:
        state = game.new_state(rng_from_seed(seed))
        pick = random.Random(seed)
        n = 0
        while True:
            if n % every == 0:
                yield state
            legal = game.legal_actions(state)
            if not legal:
                break
            sets = legal[2:] if state.phase == Phase.CHOOSE else []
            if sets and pick.random() < 0.7:
                a = pick.choice(sets)
            elif state.phase == Phase.CHOOSE and pick.random() < 0.6:
                a = legal[0]  # take
            else:
                a = pick.choice(legal)
            game.apply(state, a)
            n += 1


# ------------------------------------------------------------------ the option
def test_obs_defaults_to_cards_and_cards_stays_the_old_vector():
    game = TetHsiGame()
    assert game.config.obs == DEFAULT_OBS == "cards"
    assert game.obs_spec is OBS_SPEC
    assert game.obs_specs == {"cards": OBS_SPEC, "structure": STRUCTURE_SPEC, "history": HISTORY_SPEC}
    assert game.config_dict() == {"first_player": 0}  # records and weights keep their config
    s = TetHsiGame(obs="structure")
    assert s.obs_spec is STRUCTURE_SPEC and s.config_dict() == {"first_player": 0, "obs": "structure"}
    assert TetHsiGame(**s.config_dict()).config == s.config
    state = game.new_state(rng_from_seed(4))
    for seat in (0, 1):
        np.testing.assert_array_equal(s.observe(state, seat)[:OBS_SPEC.size], game.observe(state, seat))


def test_unknown_mode_is_refused_naming_the_modes():
    for bad in ("pixels", "History", None, 1):
        with pytest.raises(ValueError, match=r"is not one of the modes \('cards', 'structure', 'history'\)"):
            TetHsiGame(obs=bad)


def test_structure_spec_is_the_cards_then_the_block():
    names = [f.name for f in OBS_SPEC.features + BLOCK_SPEC.features]
    assert [f.name for f in STRUCTURE_SPEC.features] == names
    assert STRUCTURE_SPEC.size == OBS_SPEC.size + BLOCK_SPEC.size


def test_the_structure_env_passes_the_pettingzoo_tests_and_stays_in_its_box():
    from functools import partial

    from pettingzoo.test import api_test, seed_test

    from tethsi_env.env import env, raw_env

    api_test(env(obs="structure"), num_cycles=200)
    seed_test(partial(raw_env, obs="structure"), num_cycles=50)
    e = raw_env(obs="structure", first_player="random")
    box = e.observation_space("player_0")["observation"]
    for seed in range(5):
        e.reset(seed=seed)
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            assert box.contains(obs["observation"])
            legal = np.flatnonzero(obs["action_mask"])
            e.step(None if term or trunc else int(legal[seed % len(legal)]))


# ------------------------------------------------------------------ hand-worked positions
def test_a_pair_with_one_out():
    # Seat 0 holds the Ace and Crown of Moons; the Mountain (Moons, Suns), in seat 1's hand, is the
    # only card seat 0 has not seen. Ace + Crown of A + a number card of A is a Five (README,
    # "Rules summary"), so the pair has one out. The Merchant (Leaves, Knots) and the Cave (Waves,
    # Wyrms) in the center complete nothing of it (AAAA with Leaves-Knots or Waves-Wyrms is no Ciao).
    game = TetHsiGame(obs="structure")
    s = position(["AM", "CM"], ["4MS"], ["9LK", "7VY"])
    b = block(game, s, 0)
    am, cm, mountain = c("AM"), c("CM"), c("4MS")
    assert b["my_card_in_set"].sum() == 0
    assert (b["my_card_partners"][am], b["my_card_partners"][cm], b["my_card_partners"].sum()) == (1, 1, 2)
    assert (b["my_card_outs"][am], b["my_card_outs"][cm], b["my_card_outs"].sum()) == (1, 1, 2)
    assert b["my_completes"][mountain] == 1 and b["my_completes"].sum() == 1
    assert (b["my_outs"], b["my_open_pairs"], b["opp_open_pairs"]) == (1, 1, 0)
    assert b["opp_threat"].sum() == b["opp_half_threat"].sum() == 0
    assert (b["my_hand_size"], b["opp_hand_size"], b["unseen_count"], b["result"]) == (2, 1, 1, 0)
    # Seat 1 sees the Mountain in its hand and seat 0's two cards unseen: a single card forms no pair.
    b1 = block(game, s, 1)
    assert b1["my_card_partners"].sum() == b1["my_card_outs"].sum() == 0
    assert b1["my_completes"][am] == b1["my_completes"][cm] == 0
    assert (b1["my_outs"], b1["my_open_pairs"], b1["unseen_count"], b1["opp_hand_size"]) == (0, 0, 2, 2)


def test_the_outs_a_center_card_would_bring():
    # Mountain (Moons, Suns) in my hand, the Cave (Waves, Wyrms) in the center, the Merchant
    # (Leaves, Knots) unseen: the three show all six suits, a Bharg; taking the Cave would give a
    # pair with one out. Every other card is on the discard pile.
    game = TetHsiGame(obs="structure")
    s = position(["4MS"], ["9LK"], ["7VY"], phase=Phase.CHOOSE, remaining="7VY")
    b = block(game, s, 0)
    assert b["center_outs"][c("7VY")] == 1 and b["center_outs"].sum() == 1
    assert b["my_completes"].sum() == 0 and b["my_outs"] == 0


def test_three_hand_cards_in_a_set():
    # Ace, Crown of Moons and the Mountain in one hand: a Five in hand (each card is in it).
    game = TetHsiGame(obs="structure")
    s = position(["AM", "CM", "4MS", "9LK"], ["7VY"], ["2VL", "3LY"])
    b = block(game, s, 0)
    assert [int(b["my_card_in_set"][c(n)]) for n in ("AM", "CM", "4MS", "9LK")] == [1, 1, 1, 0]


def test_what_the_opponents_front_threatens():
    # Seat 1's front holds the Ace and Crown of Suns: a number card of Suns completes a Five, so
    # seat 0's Mountain (Moons, Suns) and seat 1's concealed Diplomat (Moons, Suns) each complete
    # that pair; the Forest (Moons, Leaves) does not (SSSS with Moons-Leaves is no Ciao). With the
    # unseen Diplomat, the Mountain also completes the Kvars Ace of Suns + Diplomat + Mountain and
    # Crown of Suns + Diplomat + Mountain (an AA card and two number cards both {A, B}).
    game = TetHsiGame(obs="structure")
    s = position(["4MS", "5ML"], ["8MS"], ["9LK", "7VY"], front1=("AS", "CS"))
    b = block(game, s, 0)
    mountain, forest, diplomat = c("4MS"), c("5ML"), c("8MS")
    assert (b["opp_threat"][mountain], b["opp_threat"][forest], b["opp_threat"][diplomat]) == (1, 0, 1)
    assert b["opp_threat"].sum() == 2 and b["opp_open_pairs"] == 1
    assert b["opp_half_threat"][mountain] == 2 and b["opp_half_threat"].sum() == 2
    assert (b["opp_hand_size"], b["unseen_count"]) == (3, 1)


def test_result_once_the_third_set_wins():
    game = TetHsiGame(obs="structure")
    s = position(["4MS", "8MS"], ["3LY"], ["AM"], ["9LK"], phase=Phase.CHOOSE, remaining="AM",
                 sets0=(("2MK", "2SY", "2VL"), ("AV", "CV", "5SV")))
    game.apply(s, game.str_to_action("set Mountain + Diplomat"))
    assert s.winner == 0
    assert block(game, s, 0)["result"] == 1 and block(game, s, 1)["result"] == -1


# ------------------------------------------------------------------ brute force
def brute_force(state, seat: int) -> dict[str, list[int] | int]:
    """Every structure feature by its definition, over the oracle's Sets and Python sets of cards."""
    opp = seat ^ 1
    cards = lambda m: {i for i in range(36) if m >> i & 1}  # noqa: E731
    hand = cards(state.concealed[seat] | state.front[seat])
    front = cards(state.front[opp])
    center = cards(state.center)
    seen = hand | front | center | cards(state.discard | state.set_cards[0] | state.set_cards[1])
    unseen = set(range(36)) - seen
    avail = unseen | center
    live = hand | avail
    out = {f.name: [0] * 36 for f in BLOCK_SPEC.features if f.shape}
    open_mine, open_opp, outs = set(), set(), set()
    for t in ORACLE_SETS:
        for z in t:
            x, y = sorted(t - {z})
            if {x, y} <= hand and z in avail:
                open_mine.add((x, y))
                out["my_completes"][z] += 1
                if z in unseen:
                    outs.add(z)
                    out["my_card_outs"][x] += 1
                    out["my_card_outs"][y] += 1
            if z in center and ((x in hand and y in unseen) or (y in hand and x in unseen)):
                out["center_outs"][z] += 1
            if {x, y} <= front and z in live:
                open_opp.add((x, y))
                out["opp_threat"][z] += 1
            if z in hand | center and ((x in front and y in unseen) or (y in front and x in unseen)):
                out["opp_half_threat"][z] += 1
            if z in hand and {x, y} <= hand:
                out["my_card_in_set"][z] = 1
    for x, y in open_mine:
        out["my_card_partners"][x] += 1
        out["my_card_partners"][y] += 1
    over = state.phase == Phase.OVER and state.winner >= 0
    out.update(my_outs=len(outs), my_open_pairs=min(len(open_mine), PAIRS_CAP),
               opp_open_pairs=min(len(open_opp), PAIRS_CAP), my_hand_size=len(hand),
               opp_hand_size=(state.concealed[opp] | state.front[opp]).bit_count(),
               unseen_count=len(unseen), result=(1 if state.winner == seat else -1) if over else 0)
    return out


def test_structure_equals_a_brute_force_count_on_random_positions():
    game = TetHsiGame(obs="structure")
    checked, fronts = 0, 0
    for state in random_positions(game, range(40), every=3):
        for seat in (0, 1):
            got = block(game, state, seat)
            want = brute_force(state, seat)
            for name, value in want.items():
                np.testing.assert_array_equal(got[name], value, err_msg=name)
            checked += 1
            fronts += bool(state.front[seat ^ 1])
    assert checked > 1000 and fronts > 300  # positions with a front to threaten from


# ------------------------------------------------------------------ hidden information
@pytest.mark.parametrize("obs", MODES)
def test_determinize_changes_no_observation(obs):
    game = TetHsiGame(obs=obs)
    rng = np.random.default_rng(7)
    eng_cls = engine_class(game)
    for state in random_positions(game, range(25), every=2):
        for seat in (0, 1):
            want = game.observe(state, seat)
            for _ in range(2):
                twin = game.determinize(state, seat, rng)
                np.testing.assert_array_equal(game.observe(twin, seat), want)
                if eng_cls is not None:
                    eng = eng_cls(game)
                    eng.load(twin)
                    np.testing.assert_array_equal(eng.observe(seat), want)


# ------------------------------------------------------------------ the compiled engine
@pytest.mark.parametrize("first_player", [0, 1, "random"])
def test_engine_structure_equals_the_reference(first_player):
    from setgames.testing import check_engine_matches_rules

    game = TetHsiGame(first_player=first_player, obs="structure")
    if engine_class(game) is None:
        pytest.skip("tethsi_env._engine is not built")
    assert check_engine_matches_rules(game, range(60)) > 2000


# ------------------------------------------------------------------ per-action features
def after_position(game: TetHsiGame, state, action: int):
    """The position right after ``action``, before any reveal: the draw pile moved into the
    opponent's concealed hand (the cards the seat has not seen stay the same), so that the
    end of the turn finds the pile empty and reveals nothing."""
    twin = game.clone(state)
    opp = state.seat ^ 1
    for card in twin.pile:
        twin.concealed[opp] |= 1 << card
    twin.pile = []
    twin._obs = None
    game.apply(twin, action)
    return twin


def brute_force_row(game: TetHsiGame, state, action: int) -> list[int]:
    """An action's row from the brute-force structure of the position after it."""
    seat = state.seat
    after = after_position(game, state, action)
    b = brute_force(after, seat)
    center = [z for z in range(36) if after.center >> z & 1]
    kind = game.layout.decode(action)[0]
    card = action if kind == "discard" else action - 668 if kind == "play" else state.remaining
    made = after.sets[seat][len(state.sets[seat]):]
    hand = after.concealed[seat] | after.front[seat]
    return [*(int(kind == k) for k in ("discard", "take", "nothing", "set", "play")), card,
            made[0][3] + 1 if made else 0, int(bool(made) and not hand),
            sum(b["my_completes"][z] for z in center), min(sum(b["center_outs"][z] for z in center), 127),
            b["my_open_pairs"], b["my_outs"],
            min(sum(b["my_card_outs"]) // 2, 127),
            sum(1 for z in range(36) if hand >> z & 1 and b["my_card_partners"][z] == 0),
            sum(b["opp_threat"][z] for z in center), sum(b["opp_half_threat"][z] for z in center),
            b["my_hand_size"], len(after.sets[seat])]


def test_action_rows_equal_the_brute_force_structure_after_each_action():
    game = TetHsiGame()
    checked, kinds = 0, set()
    for state in random_positions(game, range(25), every=2):
        if game.is_over(state):
            continue
        seat = state.seat
        rows = game.action_features(state, seat)
        legal = game.legal_actions(state)
        assert not rows[[a for a in range(game.num_actions) if a not in legal]].any()
        assert not game.action_features(state, seat ^ 1).any()
        for a in legal:
            assert rows[a].tolist() == brute_force_row(game, state, a), game.action_to_str(a)
            kinds.add(game.layout.decode(a)[0])
            checked += 1
    assert checked > 1500 and kinds == {"discard", "take", "nothing", "set", "play"}


def test_the_winning_set_row():
    # Seat 0 holds Mountain and Diplomat with two Sets put aside; the remaining Ace of Moons makes
    # a Kvar with them (an Ace of A and two number cards both {A, B}) that empties the hand.
    game = TetHsiGame()
    s = position(["4MS", "8MS"], ["3LY"], ["AM"], ["9LK"], phase=Phase.CHOOSE, remaining="AM",
                 sets0=(("2MK", "2SY", "2VL"), ("AV", "CV", "5SV")))
    row = dict(zip([f.name for f in game.action_spec.features],
                   game.action_features(s, 0)[game.str_to_action("set Mountain + Diplomat")].tolist(),
                   strict=True))
    assert (row["is_set"], row["card"], row["set_kind"], row["wins"]) == (1, c("AM"), 1 + 2, 1)
    assert (row["hand_size_after"], row["sets_after"], row["my_open_pairs_after"]) == (0, 3, 0)


@pytest.mark.parametrize("obs", MODES)
def test_determinize_changes_no_action_row(obs):
    game = TetHsiGame(obs=obs)
    rng = np.random.default_rng(3)
    for state in random_positions(game, range(15), every=2):
        if game.is_over(state):
            continue
        want = game.action_features(state, state.seat)
        twin = game.determinize(state, state.seat, rng)
        np.testing.assert_array_equal(game.action_features(twin, state.seat), want)


def test_engine_and_batch_action_features_equal_the_reference():
    eng_cls = engine_class(TetHsiGame())
    if eng_cls is None:
        pytest.skip("tethsi_env._engine is not built")
    from setgames.batch import make_batch

    for first_player in (0, 1, "random"):
        game = TetHsiGame(first_player=first_player, obs="structure")
        for state in random_positions(game, range(8)):
            eng = eng_cls(game)
            eng.load(state)
            for seat in (0, 1):
                np.testing.assert_array_equal(eng.action_features(seat), game.action_features(state, seat))
        b = make_batch(game, 40, seed=5)
        b.reset()
        rng = np.random.default_rng(0)
        out = np.zeros((40, game.num_actions, game.action_spec.size), np.int8)
        for _ in range(120):
            assert b.action_features(out) is out
            for i in range(40):
                state = b.state(i)
                seat = game.current_seat(state)
                want = game.action_features(state, seat) if seat >= 0 else 0 * out[i]
                np.testing.assert_array_equal(out[i], want)
            b.step(b.sample(rng))
        with pytest.raises(ValueError, match="int8 array of shape"):
            b.action_features(np.zeros((40, 3), np.int8))


# ------------------------------------------------------------------ documentation
def test_readme_tables_equal_the_specs():
    from pathlib import Path

    import tethsi_env
    from setgames.docs import sync_readme
    from setgames.spec import ACTION_FEATURES_BEGIN, ACTION_FEATURES_END, mode_markers

    readme = Path(tethsi_env.__file__).with_name("README.md")
    game = TetHsiGame()
    game.obs_specs["structure"].check_readme(readme, *mode_markers("structure"))
    game.obs_specs["history"].check_readme(readme, *mode_markers("history"))
    game.action_spec.check_readme(readme, ACTION_FEATURES_BEGIN, ACTION_FEATURES_END)
    game.obs_spec.check_readme(readme)  # the cards table keeps its markers
    assert not sync_readme("tethsi", check=True)
