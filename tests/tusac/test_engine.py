"""The compiled Tu Sac engine (``tusac_env._engine``) against the rules layer, the reference.

:func:`setgames.testing.check_engine_matches_rules` plays random games on both and
compares everything after every step (seat, legal list, mask, every seat's
observation, ``to_json`` with the event record, apply's returns, the outcome),
reloading the engine from JSON-rebuilt states every few steps. The games are
replayed here on the rules layer alone to count the rule paths they went
through, and the test asserts every path was hit; hand-built positions cover the
paths random play rarely reaches. Skipped when the extension is not built.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from setgames.engine import engine_class
from setgames.game import rng_from_seed
from setgames.testing import check_engine_matches_rules, check_env_engine_matches_rules, engine_agrees
from tests.tusac.helpers import hand, pile, rest_of_deck
from tusac_env.claims import _is_waiting
from tusac_env.env import env
from tusac_env.layout import DISCARD0, HIT, PASS
from tusac_env.rules import TuSacGame
from tusac_env.state import EXPOSED_BY_DISCARD, EXPOSED_BY_HIT

ENGINE = engine_class(TuSacGame())
pytestmark = pytest.mark.skipif(ENGINE is None, reason="tusac_env._engine is not built (no C compiler)")

# Configs of the default run: every player count with every option value somewhere.
CONFIGS = [
    {"num_players": n, **opts}
    for n in (2, 3, 4)
    for opts in ({}, {"penalty_rule": False, "reward_scale": 2.5}, {"first_player": "random"},
                 {"first_player": n - 1})
]
SEEDS = 12  # per config in the default run (about 5,000 steps in all)
SLOW_SEEDS = 150


def _classify(state, a: int, new: list[tuple], seen: Counter) -> None:
    """Count the rule paths of one step: action ``a`` led to events ``new``."""
    names = [e[0] for e in new]
    if a >= DISCARD0:
        seen["discard"] += 1
    elif a == HIT:
        seen["hit"] += 1
    elif a == PASS:
        seen["pass"] += 1
    else:
        seen[f"meld {new[0][2]}"] += 1
    for e in new:
        if e[0] == "claim":
            seen[f"claim {e[2]}"] += 1
    if "claim" not in names and state.active >= 0 and a != PASS:
        # no claim on a new active card: was a pair claim refused?
        t = state.active
        for s in range(state.num_players):
            if s != state.current and state.private[s][t] == 2 and t % 7:
                seen["pair refused (waiting hand)" if _is_waiting(state, s)
                     else "pair refused (raises trash)"] += 1
    if "win" in names:
        claimed = "claim" in names and new[names.index("claim")][2] == "win"
        if not claimed:
            seen["win by own meld"] += 1
        elif state.win_how == EXPOSED_BY_HIT:
            seen["win claim on a hit card"] += 1
        elif state.win_how == EXPOSED_BY_DISCARD:
            seen["win claim on a discard"] += 1
        if new[names.index("win") - 1][2] == "khui":
            seen["win with a khui"] += 1
        if state.penalized >= 0:
            seen["penalty"] += 1
        elif state.win_how == EXPOSED_BY_DISCARD and not state.discard_worst:
            seen["non-worst winning discard, penalty rule off"] += 1
        seen["side payments"] += any(p[3] in ("quan", "khui", "khap") for p in state.payments)
    if "draw" in names:
        seen["draw"] += 1


def _deal_paths(state, seen: Counter) -> None:
    seen["quan at deal"] += any(e[0] == "quan" for e in state.events)
    seen["khap at deal"] += any(e[0] == "khaps" and e[2] for e in state.events)
    seen["first hand win"] += state.result == "first_hand_win"


def _paths(game: TuSacGame, seed: int) -> Counter:
    """Replay on the rules layer the game ``check_engine_matches_rules`` plays for
    ``seed`` (same deal, same picks) and count the rule paths it goes through."""
    state = game.new_state(rng_from_seed(seed))
    pick = random.Random(seed)
    seen: Counter = Counter()
    _deal_paths(state, seen)
    while True:
        legal = game.legal_actions(state)
        if not legal:
            return seen
        a = legal[int(pick.random() * len(legal))]
        done = len(state.events)
        game.apply(state, a)
        _classify(state, a, state.events[done:], seen)


# A win by the player's own meld (flow's ``after == 0`` branch) never happens: every card a
# player can meld was checked for win claims, the current player's first, when it became
# active, and the blocks do not change until the player decides. Not required.
REQUIRED = {
    "khap at deal", "discard", "hit", "pass", "meld king", "meld pair", "meld triple",
    "meld kgm", "meld rcn", "meld pawns3", "meld pawns4", "claim win", "claim khui", "claim pair",
    "pair refused (raises trash)", "win claim on a hit card", "win claim on a discard", "penalty",
    "non-worst winning discard, penalty rule off", "side payments", "draw",
}
# Rarer in random games: reached by the hand-built positions below (and the slow run).
RARE = {"quan at deal", "first hand win", "pair refused (waiting hand)", "win with a khui", "penalty",
        "non-worst winning discard, penalty rule off", "side payments", "claim khui", "draw"}


def _check_configs(seeds: int) -> Counter:
    seen: Counter = Counter()
    for cfg in CONFIGS:
        game = TuSacGame(**cfg)
        seed_list = range(seeds)
        steps = check_engine_matches_rules(game, seed_list)
        assert steps > 0
        for seed in seed_list:
            seen += _paths(game, seed)
    return seen


def test_engine_matches_rules_on_every_config():
    seen = _check_configs(SEEDS)
    missing = REQUIRED - set(seen)
    assert not missing, f"rule paths not reached by the random games: {missing} (seen {dict(seen)})"


@pytest.mark.slow
def test_engine_matches_rules_many_games():
    seen = _check_configs(SLOW_SEEDS)
    assert not (REQUIRED | {"quan at deal", "win with a khui"}) - set(seen), dict(seen)


# ----------------------------------------------------------------- hand-built positions

def _every_line(game: TuSacGame, state, seen: Counter, depth: int = 6) -> None:
    """Play every action sequence (up to ``depth`` actions) from ``state`` on both,
    comparing after each step, and count the rule paths in ``seen``."""
    eng = ENGINE(game)
    eng.load(state)
    legal = engine_agrees(game, state, eng)
    if not legal or depth == 0:
        return
    for a in legal:
        twin = game.clone(state)
        eng.load(state)
        done = len(twin.events)
        assert eng.apply(a) == game.apply(twin, a)
        _classify(twin, a, twin.events[done:], seen)
        engine_agrees(game, twin, eng)
        _every_line(game, twin, seen, depth - 1)


QUIET = "gG gM wM wG wG wM gG gM"  # cards nobody holds in these positions (no claims on hits)

SEVEN = "gG gM wM wG wG wM gG"  # a draw pile at the draw limit: the next hit draws the game
SHORT_PILES = {SEVEN}  # piles that are the whole draw pile (the rest of the deck dead)

POSITIONS = {
    # name: (players, private blocks, draw pile top first, first seat, options)
    "first hand win": (2, ["rK rG rM gP gP", "rC wK yP"], QUIET, 0, {}),
    "first hand win with a quan": (3, ["yR yR yR yR rK rG rM", "rC", "wK yP"], QUIET, 0, {}),
    "khui won on a discard": (2, ["rC gN", "gN gN gN rK rG rM"], QUIET, 0, {}),
    "khui claim by the hitter": (2, ["rC wN", "rK gR gR gR yN yN"], "gR " + QUIET, 0, {}),
    "win beats pair": (3, ["rC wN", "yP gP", "rC rC yN"], QUIET, 0, {}),
    "waiting hand of two pawns": (3, ["rC yN wK", "gN gC", "rC rC yP gP"], QUIET, 0, {}),
    "rook-cannon waiting hand": (3, ["rC yN wK", "wN wC", "rC rC gR gC"], QUIET, 0, {}),
    "waiting hand needs one color": (3, ["rC yN wK", "wN wC", "rC rC gR yC"], QUIET, 0, {}),
    "draw on the last hit": (2, ["rC wN", "rK yP"], SEVEN, 0, {}),
    "penalty": (3, ["rC gN gR wK", "gR gC gK", "yP wN"], QUIET, 0, {}),
    "penalty rule off": (3, ["rC gN gR wK", "gR gC gK", "yP wN"], QUIET, 0, {"penalty_rule": False}),
    "single king and pawns": (3, ["rC yN wK", "gN yP wP rP", "gP yK"], "rK wP " + QUIET, 0, {}),
    "quan, khui and khap side payments": (4, ["rC wK", "rR rN gK", "yG yG yG yG yM yM yM wC gN",
                                              "rM rM rM wN yN"], QUIET, 0, {"reward_scale": 0.5}),
    "a loser's khui": (3, ["rC yN wK", "yP gP gK", "rC rC rC wP gN"], QUIET, 0, {}),
    "random first player": (4, ["rC", "gN", "wK yP", "rR"], QUIET, 0, {"first_player": "random"}),
}


def test_engine_matches_rules_from_hand_built_positions():
    seen: Counter = Counter()
    for n, blocks, draw, first, opts in POSITIONS.values():
        game = TuSacGame(num_players=n, **opts)
        hands, top = [hand(b) for b in blocks], pile(draw)
        # The cards not listed lie under the given pile, except where the pile's length is
        # the point: there they are dead, so the given pile is the whole of it.
        dead = rest_of_deck(hands, top) if draw in SHORT_PILES else None
        state = game.position(hands, top, first=first, dead=dead)
        _deal_paths(state, seen)
        _every_line(game, state, seen)
    assert not RARE - set(seen), f"hand-built positions miss {RARE - set(seen)}: {dict(seen)}"


def test_first_hand_win_is_over_at_load():
    game = TuSacGame(num_players=2)
    state = game.position([hand("rK rG rM gP gP"), hand("rC wK yP")], pile(QUIET))
    eng = ENGINE(game)
    eng.load(state)
    assert eng.current_seat() == -1 and eng.legal_actions() == [] and not eng.mask().any()
    assert eng.outcome() == game.outcome(state) and eng.outcome()["reason"] == "first_hand_win"


# ----------------------------------------------------------------- protocol details

def test_load_neither_keeps_nor_changes_the_state():
    game = TuSacGame(num_players=3)
    state = game.new_state(rng_from_seed(7))
    before = game.to_json(state)
    eng = ENGINE(game)
    eng.load(state)
    for _ in range(10):
        eng.apply(eng.legal_actions()[0])
    assert game.to_json(state) == before
    # and the engine's own record is its own: changing the state does not reach it
    state.events.append(("foo",))
    state.private[0][0] += 1
    assert eng.to_json()["events"][:len(before["events"])] == before["events"]


def test_public_sets_keep_each_seats_order_through_the_engine():
    # The engine keeps every seat's public sets in one list, in the order they were put down;
    # each seat's block reads back in its own order, whatever the other seats put down between.
    game = TuSacGame(num_players=3)
    state = game.new_state(rng_from_seed(5))
    state.public[0] = [("pair", [5, 5]), ("triple", [9, 9, 9]), ("king", [0])]
    state.public[1] = []
    state.public[2] = [("pawns4", [6, 6, 13, 20]), ("pair", [3, 3])]
    eng = ENGINE(game)
    eng.load(state, validate=False)
    assert [[[k, list(c)] for k, c in block] for block in state.public] == eng.to_json()["public"]


def test_load_refuses_more_public_sets_than_a_deck_makes():
    # 64 at most: a lone King (16 cards) is the only one-card set, every other set takes two
    # or more of the other 96 cards, so 16 + 96 / 2. The engine refuses a 65th rather than
    # overrun its list, even when asked not to validate.
    game = TuSacGame(num_players=2)
    state = game.new_state(rng_from_seed(1))
    state.public[0] = [("pair", [5, 5])] * 33
    state.public[1] = [("pair", [6, 6])] * 32
    with pytest.raises(ValueError, match="65 public sets"):
        ENGINE(game).load(state, validate=False)
    state.public[1] = state.public[1][:31]
    eng = ENGINE(game)
    eng.load(state, validate=False)
    assert [len(b) for b in eng.to_json()["public"]] == [33, 31]


def test_observations_are_fresh_writable_arrays():
    game = TuSacGame(num_players=4)
    eng = ENGINE(game)
    eng.load(game.new_state(rng_from_seed(3)))
    seat = eng.current_seat()
    first = eng.observe(seat)
    want = first.copy()
    assert first.dtype == np.int8 and first.flags.writeable
    first[:] = 99
    assert np.array_equal(eng.observe(seat), want)
    mask = eng.mask()
    assert mask.dtype == np.int8 and mask.flags.writeable
    mask[:] = 0
    assert eng.mask().any()


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("first_player", [0, "random"])
def test_engine_deal_is_new_state(n, first_player):
    """The engine's own deal (``deal(rng)``) makes the state ``new_state`` makes from the
    same generator, and leaves the generator where ``new_state`` leaves it."""
    game = TuSacGame(num_players=n, first_player=first_player)
    eng = ENGINE(game)
    quans = 0
    for seed in range(150):
        r1, r2 = rng_from_seed(seed), rng_from_seed(seed)
        state = game.new_state(r1)
        eng.deal(r2)
        assert eng.to_json() == game.to_json(state)
        assert r1.integers(1 << 30) == r2.integers(1 << 30)
        assert eng.legal_actions() == game.legal_actions(state)
        assert all(np.array_equal(eng.observe(s), game.observe(state, s)) for s in range(n))
        quans += any(e[0] == "quan" for e in state.events)
    assert quans  # the deal's Quan path was among them


@pytest.mark.parametrize("bad", [1, PASS, DISCARD0 + 5, -1, 46, True, 2.0, "hit", None])
def test_illegal_apply_raises_and_changes_nothing(bad):
    game = TuSacGame(num_players=2)
    state = game.position([hand("rC wK"), hand("yC yC yR yN gP")], pile(QUIET))
    eng = ENGINE(game)
    eng.load(state)
    eng.apply(np.int64(DISCARD0 + 4))  # red cannon (a numpy integer is an action too)
    # seat 1 must meld (it holds no red cannon: no pair) or hit; it cannot pass or discard
    assert eng.legal_actions() == [HIT]
    before = eng.to_json()
    with pytest.raises(ValueError, match="not legal"):
        eng.apply(bad)
    assert eng.to_json() == before


def test_no_action_is_legal_once_over():
    game = TuSacGame(num_players=2)
    eng = ENGINE(game)
    eng.load(game.position([hand("rK rG rM gP gP"), hand("rC wK yP")], pile(QUIET)))
    for a in range(game.num_actions):
        with pytest.raises(ValueError):
            eng.apply(a)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_env_on_the_engine_plays_the_rules_layers_games(n):
    steps = check_env_engine_matches_rules(lambda **kw: env(num_players=n, first_player="random", **kw),
                                           range(6))
    assert steps > 100
