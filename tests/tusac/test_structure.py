"""Tu Sac's ``structure`` observation mode and per-action features (``tusac_env.structure``).

Hand-worked positions from the README's rules (rules choices 16, 18, 20, 22 and 25), a
brute-force count of every held card's outs on random positions, and the determinize
invariance: re-dealing every card the observer has not seen changes no observation (every
mode) and no action feature.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from setgames.game import rng_from_seed
from tests.tusac.helpers import hand, ttype
from tusac_env.layout import DISCARD0, HIT
from tusac_env.melds import MELDS, after_removal, khap_types, unseen_counts
from tusac_env.rules import TuSacGame
from tusac_env.structure import structure_block

CONFIGS = [{"num_players": n} for n in (2, 3, 4)]


def _types(text: str) -> set[int]:
    return {ttype(c) for c in text.split()}


def _block(game: TuSacGame, state, seat: int) -> dict:
    """``seat``'s structure block, unpacked by feature."""
    return game.obs_spec.unpack(game.observe(state, seat))


def _mid_game(game: TuSacGame, seed: int):
    """A position of a random game: 0 to 59 random moves from the deal of ``seed``."""
    state = game.new_state(rng_from_seed(seed))
    pick = random.Random(seed)
    for _ in range(pick.randrange(60)):
        legal = game.legal_actions(state)
        if not legal:
            break
        game.apply(state, pick.choice(legal))
    return state


def _four(game: TuSacGame, seat0: str, seat1: str = "", draw: str = ""):
    """A position with ``seat0`` and ``seat1`` private blocks, the others empty, seat 0 first."""
    n = game.num_players
    private = [hand(seat0), hand(seat1)] + [hand("")] * (n - 2)
    return game.position(private, [ttype(c) for c in draw.split()], first=0)


def test_unknown_mode_is_refused_naming_the_modes():
    for bad in ("pixels", "History", None, 1):
        with pytest.raises(ValueError, match=r"'cards', 'structure', 'history'"):
            TuSacGame(obs=bad)


def test_cards_mode_is_the_default_and_structure_extends_it():
    plain, cards, struct = TuSacGame(), TuSacGame(obs="cards"), TuSacGame(obs="structure")
    assert plain.obs_spec is not None and plain.config == cards.config and plain.config.obs == "cards"
    state = plain.new_state(rng_from_seed(4))
    a, b = plain.observe(state, 1), struct.observe(state, 1)
    assert b.size == struct.obs_spec.size > a.size == plain.obs_spec.size
    np.testing.assert_array_equal(b[:a.size], a)


def test_hand_worked_trash_outs_worst_and_components():
    # Rules choices 16 and 25: rK rG rM is a set, wN wN a pair; rR rC and yP gP are partial
    # (trash 4). Unseen: 4 minus own. rR: 3 rooks + 4 red knights; yP: 3 own + 4 rP + 4 wP.
    game = TuSacGame(num_players=4, obs="structure")
    state = _four(game, "rK rG rM rR rC yP gP wN wN", "yK")
    f = _block(game, state, 0)
    assert set(np.flatnonzero(f["trash_types"])) == _types("rR rC yP gP")
    assert f["outs"][ttype("rR")] == 7 and f["outs"][ttype("rC")] == 7
    assert f["outs"][ttype("yP")] == 11 and f["outs"][ttype("wN")] == 2
    assert set(np.flatnonzero(f["worst_types"])) == _types("rR rC")
    assert list(f["comp_trash"]) == [0, 2, 0, 0, 0, 0, 0, 0, 2]
    assert set(np.flatnonzero(f["settled"])) == _types("rK rG rM wN")
    assert not f["win_types"].any() and f["win_outs"] == 0 and f["waiting"] == 0
    assert set(np.flatnonzero(f["pair_types"])) == _types("wN")
    assert f["unseen"][ttype("wN")] == 2 and f["unseen"][ttype("yK")] == 4  # (seat 1's card is unseen)
    # 4 players: another may hold two of a non-king type with 2 unseen copies.
    assert f["pair_threat"][ttype("wN")] == 1 and f["pair_threat"][ttype("rK")] == 0
    assert not f["khui_threat"].any()  # nobody else holds a Khap


def test_hand_worked_waiting_hand_wins_on_the_knight():
    # Rules choices 7 and 20: rR rC is a waiting pair (trash 2); only a red knight wins.
    game = TuSacGame(num_players=3, obs="structure")
    state = _four(game, "rK rG rM rR rC", "gR gR gR")
    f = _block(game, state, 0)
    assert set(np.flatnonzero(f["win_types"])) == _types("rN") and f["win_outs"] == 4
    assert f["waiting"] == 1 and f["khui_outs"] == 0
    # Seat 1 holds a Khap (its count is public): a type with 3 copies unseen may be Khui'd.
    assert f["khui_threat"][ttype("rR")] == 1 and f["khui_threat"][ttype("rK")] == 1
    assert f["khui_threat"][ttype("gR")] == 0  # (4 unseen: seat 0 holds none to discard)
    g1 = _block(game, state, 1)
    assert g1["khui_outs"] == 1  # one green rook unseen by seat 1


def test_hand_worked_standing_with_a_quan():
    # Rules choices 18 and 22: four dealt kings are a Quan (8) in the public block; a win by
    # that player pays (3 + 8) * 2 + 10 from each loser.
    game = TuSacGame(num_players=2, obs="structure")
    state = _four(game, "rR rC", "gK gK gK gK yP")
    f = _block(game, state, 0)
    assert list(f["public_value"]) == [0, 8] and list(f["doubled"]) == [0, 1]
    assert list(f["stake"]) == [13, 32]
    assert f["pair_threat"].sum() == 0  # 2 players: the only other seat is the current one
    assert list(_block(game, state, 1)["stake"]) == [32, 13]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c['num_players']}p")
def test_outs_equal_a_brute_force_count_over_unseen_cards(config):
    game = TuSacGame(**config, obs="structure")
    for seed in range(40):
        state = _mid_game(game, seed)
        for seat in range(game.num_players):
            counts = state.private[seat]
            unseen = unseen_counts(state, seat)
            want = [0] * 28
            for t in range(28):
                if counts[t] in (1, 2):
                    want[t] = sum(unseen[u] for u in range(28)
                                  if any(t in used and after_removal(counts, used) is not None
                                         for _, _, used in MELDS[u]))
            f = _block(game, state, seat)
            assert list(f["outs"]) == want, (seed, seat)
            assert list(f["unseen"]) == unseen
            assert set(np.flatnonzero(f["worst_types"])) <= set(np.flatnonzero(f["trash_types"]))
            assert set(np.flatnonzero(f["pair_types"])) <= {t for t in range(28) if counts[t] == 2}
            assert f["khui_outs"] == sum(unseen[t] for t in khap_types(counts))


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c['num_players']}p")
def test_worst_types_are_the_find_trash_hint_when_discarding(config):
    game = TuSacGame(**config, obs="structure")
    for seed in range(30):
        state = _mid_game(game, seed)
        seat = state.current
        if seat >= 0 and game.worst_cards(state):
            f = _block(game, state, seat)
            assert set(np.flatnonzero(f["worst_types"])) == set(game.worst_cards(state))
            assert list(f["worst_types"]) == list(f["worst"])


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c['num_players']}p")
def test_action_features_follow_the_action(config):
    game = TuSacGame(**config, obs="structure")
    spec = game.action_spec
    for seed in range(30):
        state = _mid_game(game, seed)
        seat = state.current
        if seat < 0:
            continue
        rows = game.action_features(state, seat)
        assert rows.shape == (game.num_actions, spec.size) and rows.dtype == np.int8
        legal = game.legal_actions(state)
        assert set(np.flatnonzero(rows.any(1))) == set(legal)
        assert not game.action_features(state, (seat + 1) % game.num_players).any()
        for a in legal:
            row = spec.unpack(rows[a])
            twin = game.clone(state)
            game.apply(twin, a)
            if a >= DISCARD0 or game.is_over(twin):
                # After a discard (or a winning meld) the seat's own block is settled: its trash now.
                assert row["trash_after"] == (0 if game.is_over(twin) and twin.winner == seat
                                              else twin._trash[seat])
            if a < HIT:
                assert row["wins"] == int(game.is_over(twin) and twin.winner == seat)
                assert row["card"][state.active] == 1 and row["kind"][0] == 1
            elif a >= DISCARD0:
                assert row["card"][a - DISCARD0] == 1 and row["kind"][3] == 1


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c['num_players']}p")
def test_determinize_changes_no_observation_and_no_action_feature(config):
    games = [TuSacGame(**config, obs=m) for m in ("cards", "structure")]
    rng = rng_from_seed(11)
    for seed in range(25):
        state = _mid_game(games[0], seed)
        for seat in range(games[0].num_players):
            for _ in range(2):
                twin = games[0].determinize(state, seat, rng)
                for g in games:
                    np.testing.assert_array_equal(g.observe(twin, seat), g.observe(state, seat))
                np.testing.assert_array_equal(games[1].action_features(twin, seat),
                                              games[1].action_features(state, seat))


def test_the_block_is_the_reference_function():
    game = TuSacGame(num_players=3, obs="structure")
    state = _mid_game(game, 3)
    cards = game.obs_specs["cards"].size
    assert list(game.observe(state, 2)[cards:]) == structure_block(state, 2)


# ---------------------------------------------------------------- the compiled copies

_engine = pytest.importorskip("tusac_env._engine", reason="tusac_env._engine is not built")


@pytest.mark.parametrize("config", [*CONFIGS, {"num_players": 4, "penalty_rule": False, "first_player": 2}],
                         ids=lambda c: f"{c['num_players']}p-{c.get('first_player', 0)}")
def test_the_engine_equals_the_reference_on_random_positions(config):
    game = TuSacGame(**config, obs="structure")
    engine = _engine.Engine(game)
    for seed in range(60):
        state = _mid_game(game, seed + 100)
        engine.load(state)
        for seat in range(game.num_players):
            np.testing.assert_array_equal(engine.observe(seat), game.observe(state, seat))
            np.testing.assert_array_equal(engine.action_features(seat), game.action_features(state, seat))


def test_the_engine_observes_cards_unchanged_in_cards_mode():
    cards, struct = TuSacGame(num_players=3), TuSacGame(num_players=3, obs="structure")
    one, two = _engine.Engine(cards), _engine.Engine(struct)
    state = _mid_game(cards, 7)
    one.load(state)
    two.load(state)
    size = cards.obs_spec.size
    for seat in range(3):
        assert one.observe(seat).size == size
        np.testing.assert_array_equal(two.observe(seat)[:size], one.observe(seat))


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c['num_players']}p")
def test_the_batch_equals_the_reference_and_its_features_are_the_seat_to_acts(config):
    from setgames.batch import make_batch

    game = TuSacGame(**config, obs="structure")
    b = make_batch(game, 16, seed=5, opponents="greedy", learner_seat="rotate")
    b.reset()
    assert b.obs.shape == (16, game.obs_spec.size)
    rng = np.random.default_rng(3)
    out = np.zeros((16, game.num_actions, game.action_spec.size), np.int8)
    for _ in range(40):
        feats = b.action_features(out=out)
        assert feats is out
        for i in range(16):
            if b.seat[i] < 0:
                assert not out[i].any()
                continue
            state = b.state(i)
            np.testing.assert_array_equal(b.obs[i], game.observe(state, int(b.seat[i])))
            np.testing.assert_array_equal(out[i], game.action_features(state, int(b.seat[i])))
        b.step(b.sample(rng))
    with pytest.raises(ValueError, match="shape"):
        b.action_features(out=np.zeros((16, 3), np.int8))


def test_the_readme_tables_are_the_specs():
    from pathlib import Path

    from setgames.docs import sync_readme
    from setgames.spec import ACTION_FEATURES_BEGIN, ACTION_FEATURES_END, mode_markers

    readme = Path(__file__).resolve().parents[2] / "tusac_env" / "README.md"
    game = TuSacGame(num_players=4)
    game.obs_specs["structure"].check_readme(readme, *mode_markers("structure"))
    game.obs_specs["history"].check_readme(readme, *mode_markers("history"))
    game.action_spec.check_readme(readme, ACTION_FEATURES_BEGIN, ACTION_FEATURES_END)
    game.obs_spec.check_readme(readme)  # (the cards table keeps its plain markers)
    assert not sync_readme("tusac", check=True)
