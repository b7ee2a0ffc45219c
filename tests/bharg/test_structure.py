"""The ``obs`` option and the ``structure`` observation (bharg_env/structure.py).

Hand-worked positions from the README's rules (rules summary "Sets", "Bound",
"Scoring"; rules choices 11-13), an independent brute force of every count (the
arrangements of disjoint sets listed with ``sets_in_hand``, not the binding kernel),
and the ``determinize`` invariance (nothing hidden leaks into any mode).
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from bharg_env.rules import OBS_SPEC, BhargConfig, BhargGame
from bharg_env.structure import unseen_cards
from setgames.bits import bit_list
from setgames.cards import BHARG_VALUES, DECKTET_SUIT_MASKS, EXCUSE_ID
from setgames.game import rng_from_seed
from setgames.kernels.bharg import is_set, sets_in_hand
from tests.bharg.helpers import cards, make_state

CONFIGS = [{}, {"num_players": 3}, {"excuse": True, "pawns": True, "courts": True},
           {"num_players": 3, "excuse": True, "pawns": True}, {"target_score": 20}]


def block(game: BhargGame, state, seat: int) -> dict:
    """The structure block of ``seat``'s observation, by feature name."""
    return game.obs_spec.unpack(game.observe(state, seat))


# ----------------------------------------------------------------- the obs option
def test_obs_option_defaults_to_cards_and_refuses_unknown_modes():
    assert BhargGame().config.obs == "cards" and BhargGame().obs_spec is OBS_SPEC
    assert set(BhargGame().obs_specs) == {"cards", "structure", "history"}
    with pytest.raises(ValueError,
                       match=r"obs 'pixels' is not one of the modes \('cards', 'structure', 'history'\)"):
        BhargGame(obs="pixels")
    with pytest.raises(ValueError, match="is not one of the modes"):
        BhargConfig(obs=3)
    # a config without the key (records written before the option) still loads
    assert BhargConfig(**{k: v for k, v in BhargGame().config_dict().items() if k != "obs"}).obs == "cards"


def test_structure_starts_with_the_cards_vector():
    for cfg in CONFIGS:
        cards_game, game = BhargGame(**cfg), BhargGame(**cfg, obs="structure")
        assert game.obs_spec.size == OBS_SPEC.size + sum(f.size for f in game.obs_spec.features[12:])
        rng = random.Random(1)
        state = game.new_state(rng_from_seed(3))
        for _ in range(60):
            if game.is_over(state):
                break
            for s in range(game.num_players):
                o = game.observe(state, s)
                assert o.dtype == np.int8 and o.shape == (game.obs_spec.size,)
                assert np.array_equal(o[:OBS_SPEC.size], cards_game.observe(state, s))
                assert ((o >= game.obs_spec.low) & (o <= game.obs_spec.high)).all()
            game.apply(state, rng.choice(game.legal_actions(state)))


# ----------------------------------------------------------------- hand-worked positions
# Positions of a few cards (rules layer only: no deal makes hands this small); the cards
# placed nowhere are unseen by seat 0, as the deck and the opponents' hidden cards are.
def _position(game, hand, discard, aces=(), opp=(), known=()):
    return make_state(game, [list(hand), list(opp)], deck=[], discard=list(discard), aces=list(aces),
                      known=[[], list(known)], fill="none", check=False)


def test_three_sixes_and_a_crown_without_an_ace_pile():
    # The three 6s show every suit once (a set, rules choice 11); the Crown of Moons is
    # unbound (rules choice 12) and is what the hand concedes (10, rules choice 13). Only the
    # Ace and the Crown of Waves, drawn in, make a set with it (with 6SY and 6LK: M+V+SY+LK;
    # the Lunatic 6MV shows Moons too), and then the Lunatic drops out: 4 bound, never more
    # than the 3 and the card drawn (so no ways). The 6s' outs are their sets' other
    # versions: 6MV + 6LK with the Desert (2SY), 6MV + 6SY with the Merchant (9LK), 6SY +
    # 6LK with the Journey (3MV), and 6SY + 6LK + CM with either V card.
    game = BhargGame(obs="structure")
    six_mv, six_sy, six_lk, cm = cards("Lunatic", "Penitent", "Market", "Crown of Moons")
    state = _position(game, [six_mv, six_sy, six_lk, cm], cards("Castle"))
    b = block(game, state, 0)
    assert (b["bound"], b["all_bound"], b["unbound_value"], b["ways"]) == (3, 0, 10, 0)
    def card(c):
        return b["card_need"][c], b["card_trash"][c], b["card_in_set"][c], b["card_outs"][c]

    assert [card(c) for c in (six_mv, six_sy, six_lk, cm)] == [(3, 0, 1, 2), (3, 0, 1, 4), (3, 0, 1, 4),
                                                                (0, 1, 0, 2)]
    assert b["unseen"] == 36 - 4 - 1
    assert b["top_gain"] == 0  # Castle 7SK makes no set with these
    assert b["card_need"].sum() == 9 and b["card_outs"].sum() == 12


def test_an_ace_pile_top_binds_by_suit():
    # The Ace of Moons on top binds the Lunatic (6MV) and the Crown of Moons (rules choice 12).
    # Without the Lunatic, 6SY + 6LK + CM lack Waves: only the Crown stays bound (need 3);
    # without 6SY or 6LK the two Moons cards stay (need 2); without the Crown the 6s (need 1).
    # The Cave (7VY) fits no set: unbound, trash, what the hand concedes.
    game = BhargGame(obs="structure")
    six_mv, six_sy, six_lk, cm, cave = cards("Lunatic", "Penitent", "Market", "Crown of Moons", "Cave")
    state = _position(game, [six_mv, six_sy, six_lk, cm, cave], cards("Soldier"), aces=cards("Ace of Moons"),
                      opp=cards("Diplomat", "Mill"), known=cards("Diplomat", "Mill"))
    b = block(game, state, 0)
    assert [b["card_need"][c] for c in (six_mv, six_sy, six_lk, cm, cave)] == [3, 2, 2, 1, 0]
    assert [b["card_trash"][c] for c in (six_mv, six_sy, six_lk, cm, cave)] == [0, 0, 0, 0, 1]
    assert (b["bound"], b["all_bound"], b["unbound_value"]) == (4, 0, 7)
    # the opponent's known 8MS (bound by the Moons Ace) and 8VL (unbound, 8)
    assert list(b["opp_bound"]) == [1, 0] and list(b["opp_unbound_value"]) == [8, 0]
    assert b["card_feeds"].sum() == 0 and b["top_gain"] == 0  # Soldier 5YK binds nothing more


def test_a_card_that_completes_an_opponents_known_cards_feeds_it():
    # 8MS + 8VL (known: taken from the discard pile) want a YK card: my Battle (4YK) would
    # make them a set; the discard top Origin (2VL) makes CM + CS + 2VL + 4YK, a set of four.
    game = BhargGame(obs="structure")
    battle, cm, cs = cards("Battle", "Crown of Moons", "Crown of Suns")
    known = cards("Diplomat", "Mill")
    state = _position(game, [battle, cm, cs], cards("Origin"), opp=[*known, *cards("Forest")], known=known)
    b = block(game, state, 0)
    assert b["card_feeds"][battle] == 1 and b["card_feeds"][cm] == b["card_feeds"][cs] == 0
    assert b["opp_bound"][0] == 0 and b["opp_unbound_value"][0] == 16
    assert b["bound"] == 0 and b["top_gain"] == 4


# ----------------------------------------------------------------- brute force
def _arrangements(hand: int, ace: int) -> list[int]:
    """The bound cards of every collection of disjoint sets of ``hand`` (README rules
    choices 11-12), listed from ``sets_in_hand`` and unions, not from the kernel."""
    anchors = 0 if ace < 0 else sum(1 << c for c in bit_list(hand) if DECKTET_SUIT_MASKS[c] >> ace & 1)
    always = anchors | (hand & 1 << EXCUSE_ID)
    sets = sets_in_hand(hand)
    out = []

    def rec(i: int, used: int) -> None:
        out.append(used | always)
        for j in range(i, len(sets)):
            if not sets[j] & used:
                rec(j + 1, used | sets[j])

    rec(0, 0)
    return out


def _sets_of(cards: list[int]) -> list[set[int]]:
    """Every subset of ``cards`` that is a set, by trying each one (``is_set``, rules choice 11)."""
    return [set(sub) for k in range(3, min(6, len(cards)) + 1) for sub in itertools.combinations(cards, k)
            if is_set(sum(1 << c for c in sub))]


def _brute(hand: int, ace: int) -> tuple[int, int, list[int]]:
    """(B, U, the bound masks of the arrangements binding the most) by enumeration."""
    arr = _arrangements(hand, ace)
    best = max(m.bit_count() for m in arr)
    low = min(sum(BHARG_VALUES[c] for c in bit_list(hand & ~m)) for m in arr)
    return best, low, [m for m in arr if m.bit_count() == best]


def expected_block(game: BhargGame, state, seat: int) -> dict:
    """Every structure feature from the brute force and the definitions of the module docstring."""
    n = game.num_players
    hand = state.hands[seat]
    ace = state.aces[-1] if state.aces else -1
    unseen = unseen_cards(game, state, seat)
    b0, u0, _ = _brute(hand, ace)
    out = {k: np.zeros(45, np.int64) for k in ("card_need", "card_trash", "card_in_set", "card_outs",
                                               "card_feeds")}
    opps = [(seat + j) % n for j in range(1, n)]
    opp = [_brute(state.known[o], ace)[:2] if state.known[o] else (0, 0) for o in opps]
    for c in bit_list(hand):
        b, u, _ = _brute(hand & ~(1 << c), ace)
        out["card_need"][c] = b0 - b
        out["card_trash"][c] = BHARG_VALUES[c] > 0 and u == u0 - BHARG_VALUES[c]
        out["card_in_set"][c] = any(c in s for s in _sets_of(bit_list(hand)))
        out["card_outs"][c] = sum(any(c in s and x in s for s in _sets_of(bit_list(hand | 1 << x)))
                                  for x in bit_list(unseen))
        out["card_feeds"][c] = sum(_brute(state.known[o] | 1 << c, ace)[0] >= opp[j][0] + 2
                                   for j, o in enumerate(opps) if state.known[o])
    out.update(bound=b0, all_bound=int(b0 == hand.bit_count()), unbound_value=u0,
               ways=sum(_brute(hand | 1 << x, ace)[0] > b0 + 1 for x in bit_list(unseen)),
               unseen=unseen.bit_count(),
               top_gain=_brute(hand | 1 << state.discard[-1], ace)[0] - b0 if state.discard else 0,
               opp_bound=[o[0] for o in opp] + [0] * (3 - n),
               opp_unbound_value=[o[1] for o in opp] + [0] * (3 - n))
    return out


def random_positions(game: BhargGame, seed: int, games: int, every: int = 1):
    """States met in random play (both phases, every seat to act), ``every``-th one."""
    rng = random.Random(seed)
    k = 0
    for g in range(games):
        state = game.new_state(rng_from_seed(seed * 1000 + g))
        while not game.is_over(state):
            if k % every == 0:
                yield state
            k += 1
            game.apply(state, rng.choice(game.legal_actions(state)))


@pytest.mark.parametrize("config", CONFIGS)
def test_structure_equals_the_brute_force_on_random_positions(config):
    game = BhargGame(**config, obs="structure")
    checked = 0
    for state in random_positions(game, 7, 3, every=7):
        for seat in range(game.num_players):
            got, want = block(game, state, seat), expected_block(game, state, seat)
            for name, value in want.items():
                assert np.array_equal(np.asarray(got[name]), np.asarray(value)), (name, seat,
                                                                                  game.render(state))
        checked += 1
        if checked >= 25:
            break
    assert checked >= 10


# ----------------------------------------------------------------- nothing hidden
@pytest.mark.parametrize("config", CONFIGS)
def test_determinize_changes_no_observation(config):
    games = [BhargGame(**config, obs=mode) for mode in ("cards", "structure")]
    rng = np.random.default_rng(4)
    for i, state in enumerate(random_positions(games[0], 11, 4, every=5)):
        if i >= 30:
            break
        for seat in range(games[0].num_players):
            twin = games[0].determinize(state, seat, rng)
            assert twin.hands != state.hands or twin.deck != state.deck or len(state.deck) < 2
            for game in games:
                assert np.array_equal(game.observe(twin, seat), game.observe(state, seat))


# ----------------------------------------------------------------- the compiled block
@pytest.mark.parametrize("config", CONFIGS)
def test_the_compiled_engine_writes_the_reference_block(config):
    _engine = pytest.importorskip("bharg_env._engine", reason="bharg_env._engine is not built")
    pytest.importorskip("bharg_env._structure", reason="bharg_env._structure is not built")
    game = BhargGame(**config, obs="structure")
    engine = _engine.Engine(game)
    checked = 0
    for state in random_positions(game, 21, 12, every=3):
        engine.load(state)
        for seat in range(game.num_players):
            np.testing.assert_array_equal(engine.observe(seat), game.observe(state, seat))
        checked += 1
    assert checked > 100
    # the cards mode's engine is today's: the same bytes as the rules layer's cards vector
    assert _engine.Engine(BhargGame(**config)).observe(0).shape == (OBS_SPEC.size,)


def test_the_compiled_block_counts_outs_the_reference_counts_in_hand_worked_positions():
    _engine = pytest.importorskip("bharg_env._engine", reason="bharg_env._engine is not built")
    pytest.importorskip("bharg_env._structure", reason="bharg_env._structure is not built")
    # test_three_sixes_and_a_crown_without_an_ace_pile's hand, on a full deal
    game = BhargGame(obs="structure")
    hand = cards("Lunatic", "Penitent", "Market", "Crown of Moons", "Savage", "Painter", "Origin")
    state = make_state(game, [hand, cards("Author", "Desert", "Journey", "Mountain", "Sailor", "Battle",
                                          "Forest")], deck=[], discard=cards("Castle"), aces=[])
    engine = _engine.Engine(game)
    engine.load(state)
    want = game.observe(state, 0)
    np.testing.assert_array_equal(engine.observe(0), want)
    assert block(game, state, 0)["card_outs"].sum() > 0


# ----------------------------------------------------------------- per-action features
def expected_action_rows(game: BhargGame, state, seat: int) -> np.ndarray:
    """The per-action rows from the brute force and the definitions (bharg_env/structure.py)."""
    spec = game.action_spec
    out = np.zeros((game.num_actions, spec.size), np.int64)
    if game.is_over(state) or state.seat != seat:
        return out
    hand, ace = state.hands[seat], state.aces[-1] if state.aces else -1
    unseen = unseen_cards(game, state, seat)
    n = game.num_players
    known = [state.known[(seat + j) % n] for j in range(1, n) if state.known[(seat + j) % n]]
    sl = spec.slices
    for a in game.legal_actions(state):
        row = out[a]
        card = -1 if a == 0 else state.discard[-1] if a == 1 else a - 2
        row[sl["kind"].start + min(a, 2)] = 1
        if a == 0:
            h, top = hand, ace
        elif a == 1:
            h, top = hand | 1 << card, ace
        else:
            h, top = hand & ~(1 << card), card if card < 6 else ace
            row[sl["ace_change"]] = card < 6
            row[sl["card_feeds"]] = sum(_brute(k | 1 << card, ace)[0] >= _brute(k, ace)[0] + 2 for k in known)
        if card >= 0:
            row[sl["card"].start + card] = 1
            row[sl["card_value"]] = BHARG_VALUES[card]
        b, u, _ = _brute(h, top)
        row[sl["bound_after"]] = b
        row[sl["all_bound_after"]] = b == h.bit_count()
        row[sl["unbound_after"]] = u
        row[sl["ways_after"]] = sum(_brute(h | 1 << x, top)[0] > b + 1 for x in bit_list(unseen))
    return out


def test_action_rows_of_a_hand_worked_discard():
    # Holding the three 6s, the Crown of Moons and the Ace of Waves, discarding the Crown
    # leaves a set and the Ace (3 bound, 1 unbound); discarding the Ace of Waves puts it on
    # the Ace Pile (ace_change) and leaves the 6s bound; discarding the Lunatic breaks the set
    # (6SY + 6LK + CM + AV: M+SY+LK+V, a set of four, binds all four).
    game = BhargGame()
    six_mv, six_sy, six_lk, cm, av = cards("Lunatic", "Penitent", "Market", "Crown of Moons", "Ace of Waves")
    state = make_state(game, [[six_mv, six_sy, six_lk, cm, av], cards("Author")], deck=[],
                       discard=cards("Castle"), aces=[], seat=0, phase=1, fill="none", check=False)
    rows = game.action_features(state, 0)
    def row(c):
        return game.action_spec.unpack(rows[2 + c])

    assert row(cm)["bound_after"] == 3 and row(cm)["unbound_after"] == 1 and row(cm)["card_value"] == 10
    assert row(av)["ace_change"] == 1 and row(av)["bound_after"] == 3 and row(av)["unbound_after"] == 10
    assert row(six_mv)["bound_after"] == 4 and row(six_mv)["all_bound_after"] == 1
    assert row(six_mv)["unbound_after"] == 0 and list(row(six_mv)["kind"]) == [0, 0, 1]
    assert rows[:2].sum() == 0 and rows[2 + cards("Castle")[0]].sum() == 0  # only the hand's discards
    assert not game.action_features(state, 1).any()  # a seat not to act has no rows


@pytest.mark.parametrize("config", CONFIGS)
def test_action_features_equal_the_brute_force_and_hide_nothing(config):
    game = BhargGame(**config)
    rng = np.random.default_rng(8)
    checked = 0
    for state in random_positions(game, 5, 3, every=5):
        seat = state.seat
        rows = game.action_features(state, seat)
        assert rows.dtype == np.int8 and rows.shape == (game.num_actions, game.action_spec.size)
        np.testing.assert_array_equal(rows, expected_action_rows(game, state, seat))
        assert np.array_equal(rows.any(1), game.legal_mask(state).astype(bool))
        assert ((rows >= game.action_spec.low) & (rows <= game.action_spec.high)).all()
        for _ in range(2):
            twin = game.determinize(state, seat, rng)
            np.testing.assert_array_equal(game.action_features(twin, seat), rows)
        checked += 1
        if checked >= 25:
            break
    assert checked >= 10


@pytest.mark.parametrize("config", CONFIGS)
def test_compiled_action_features_equal_the_reference(config):
    _engine = pytest.importorskip("bharg_env._engine", reason="bharg_env._engine is not built")
    pytest.importorskip("bharg_env._structure", reason="bharg_env._structure is not built")
    game = BhargGame(**config)
    engine = _engine.Engine(game)
    checked = 0
    for state in random_positions(game, 31, 10, every=3):
        engine.load(state)
        for seat in range(game.num_players):
            np.testing.assert_array_equal(engine.action_features(seat), game.action_features(state, seat))
        checked += 1
    assert checked > 100


def test_the_batch_action_features_fill_out_and_follow_the_mask():
    # (tests/bharg/test_batch.py's structure lockstep holds every row to the rules layer's)
    pytest.importorskip("bharg_env._batch", reason="bharg_env._batch is not built")
    from setgames.batch import make_batch

    game = BhargGame(num_players=3, pawns=True)
    b = make_batch(game, 16, seed=3, opponents="greedy", learner_seat="rotate")
    b.reset()
    rng = np.random.default_rng(2)
    out = np.zeros((16, game.num_actions, game.action_spec.size), np.int8)
    for _ in range(40):
        assert b.action_features(out) is out
        np.testing.assert_array_equal(out, b.action_features())
        assert np.array_equal(out.any(2), b.mask.astype(bool))
        b.step(b.sample(rng))
    with pytest.raises(ValueError, match="out must be"):
        b.action_features(np.zeros((16, game.num_actions, 3), np.int8))


def test_the_env_serves_the_structure_mode_from_the_engine_and_the_rules_alike():
    from pettingzoo.test import api_test

    from bharg_env import env, raw_env

    api_test(env(obs="structure"), num_cycles=60)
    fast, slow = raw_env(obs="structure"), raw_env(obs="structure", engine=False)
    assert fast.observation_space("player_0")["observation"].shape == (fast.game.obs_spec.size,)
    rng = random.Random(3)
    for e in (fast, slow):
        e.reset(seed=5)
    for _ in range(80):
        if fast.terminations[fast.agent_selection] or fast.truncations[fast.agent_selection]:
            break
        for agent in fast.agents:
            want = slow.observe(agent)["observation"]
            np.testing.assert_array_equal(fast.observe(agent)["observation"], want)
        a = rng.choice(np.flatnonzero(fast.observe(fast.agent_selection)["action_mask"]).tolist())
        fast.step(a)
        slow.step(a)
