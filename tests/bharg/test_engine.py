"""Bharg's compiled engine (``bharg_env/_engine.pyx``) against the rules layer, the reference.

The differential check (:func:`setgames.testing.check_engine_matches_rules`)
plays random games on both and compares everything after every step. Each
config and option of the game is covered, and the rare paths those games must
reach are counted (by replaying the same games on the rules layer) and
asserted; hand-built positions cover what random play rarely reaches. The
module is skipped when the extension is not built.
"""

from __future__ import annotations

import random
import sys
from collections import Counter

import numpy as np
import pytest

from bharg_env.rules import DISCARD0, DRAW_DECK, TAKE_DISCARD, BhargGame
from setgames.engine import engine_class
from setgames.game import rng_from_seed
from setgames.kernels.bharg import sets_in_hand
from setgames.testing import check_engine_matches_rules, check_env_engine_matches_rules, engine_agrees
from tests.bharg.helpers import cards, make_state, mask

Engine = engine_class(BhargGame())
if Engine is None:  # pragma: no cover - depends on the build
    pytest.skip("the Bharg engine is not built (bharg_env._engine)", allow_module_level=True)
_engine = sys.modules[Engine.__module__]

# Every option alone and together, both player counts, both reward modes, match
# play (with rounds that end short of the target) and short turn limits.
CONFIGS = [
    {},
    {"num_players": 3},
    {"excuse": True},
    {"pawns": True},
    {"courts": True},
    {"excuse": True, "pawns": True, "courts": True},
    {"num_players": 3, "excuse": True, "pawns": True, "courts": True},
    {"reward": "win"},
    {"num_players": 3, "reward": "win", "pawns": True},
    {"target_score": 100},
    {"num_players": 3, "target_score": 100, "reward": "win", "excuse": True},
    {"target_score": 127, "pawns": True, "courts": True, "max_turns": 60},
    {"max_turns": 25},
    {"num_players": 3, "target_score": 40, "max_turns": 12},
]
SEEDS = 8  # per config in the default run (~28,000 steps); the slow test runs many more

# The paths random play must reach over the default run (counted on the rules layer).
PATHS = (
    "take", "draw", "reshuffle", "reshuffle with Aces", "discard an Ace", "win on an Ace discard",
    "empty discard pile", "Aces turned at the deal", "all bound", "target reached", "turn limit",
    "round won short of the target", "turn limit after a won round", "3 players", "won holding the Excuse",
    "a loser held a Pawn or Court",
)
EXCUSE = 44
PAWNS_AND_COURTS = 0xFF << 36  # card ids 36..43


def _paths(game: BhargGame, seed: int, seen: Counter) -> None:
    """Replay the game ``check_engine_matches_rules`` plays for ``seed`` on the rules
    layer and count the paths it takes."""
    state = game.new_state(rng_from_seed(seed))
    pick = random.Random(seed)
    n = game.num_players
    if n == 3:
        seen["3 players"] += 1
    while True:
        legal = game.legal_actions(state)
        if not legal:
            break
        a = legal[int(pick.random() * len(legal))]
        if a == DRAW_DECK and not state.deck and len(state.aces) > 1:
            seen["reshuffle with Aces"] += 1
        if DISCARD0 <= a < DISCARD0 + 6:
            seen["discard an Ace"] += 1
        seat, hands, done, rounds = state.seat, list(state.hands), len(state.events), state.round
        game.apply(state, a)
        if a == TAKE_DISCARD and not state.discard:
            seen["empty discard pile"] += 1
        if any(e[0] == "win" for e in state.events[done:]):
            seen["win on an Ace discard"] += DISCARD0 <= a < DISCARD0 + 6
            seen["won holding the Excuse"] += bool(hands[seat] >> EXCUSE & 1) and a != DISCARD0 + EXCUSE
            losers = [hands[s] for s in range(n) if s != seat]
            seen["a loser held a Pawn or Court"] += any(h & PAWNS_AND_COURTS for h in losers)
            seen["round won short of the target"] += state.round > rounds
    for e in state.events:
        seen[e[0]] += 1
    seen[state.reason] += 1
    if state.truncated and any(e[0] == "win" for e in state.events):
        seen["turn limit after a won round"] += 1
    if any(e[0] == "ace_pile" for e in state.events):
        seen["Aces turned at the deal"] += 1


def test_engine_matches_rules_on_every_config():
    seen: Counter = Counter()
    steps = 0
    for cfg in CONFIGS:
        game = BhargGame(**cfg)
        steps += check_engine_matches_rules(game, range(SEEDS))
        for seed in range(SEEDS):
            _paths(game, seed, seen)
    missing = [p for p in PATHS if not seen[p]]
    assert not missing, f"paths not reached: {missing} (counts {dict(seen)})"
    assert steps > 20_000


@pytest.mark.slow
def test_engine_matches_rules_many_seeds():
    for cfg in CONFIGS:
        check_engine_matches_rules(BhargGame(**cfg), range(SEEDS, SEEDS + 150))


# ------------------------------------------------------------- hand-built positions
def _play_both(game: BhargGame, state, actions: list[int]) -> list:
    """Load ``state`` into an engine, play ``actions`` on both, checking after each step."""
    eng = Engine(game)
    eng.load(game.clone(state))
    engine_agrees(game, state, eng)
    outs = []
    for a in actions:
        want = game.apply(state, a)
        assert eng.apply(a) == want
        outs.append(want)
        engine_agrees(game, state, eng)
    return outs


def _loaded(game: BhargGame, state):
    eng = Engine(game)
    eng.load(state)
    return eng


def _full_deal(game: BhargGame, hands, discard, aces, seat=0, phase=0):
    """A position whose deck holds every card of the config not placed elsewhere."""
    used = set(discard) | set(aces) | {c for h in hands for c in h}
    deck = [c for c in game.deck_cards if c not in used]
    return make_state(game, hands, deck, discard, aces, seat=seat, phase=phase)


OPP7 = cards("2SY", "2VL", "3SK", "3LY", "4VL", "4YK", "5SV")


def test_deck_blocked_when_reshuffle_would_be_empty():
    # Empty deck, one discard, one Ace: the reshuffle would hold no card, so only
    # taking the discard is legal (rules summary: "If that leaves no card, drawing
    # from the deck is not legal").
    # No full deal leaves so few cards outside the hands, so the validator refuses the
    # position before the engine copies it; the rules layer alone still answers.
    game = BhargGame()
    hands = [cards("6MV", "6SY", "6LK", "7ML", "8MS", "9MS", "CM"), OPP7]
    state = make_state(game, hands, [], cards("9VY"), cards("AK"), fill="none", check=False)
    assert game.legal_actions(state) == [TAKE_DISCARD]
    with pytest.raises(ValueError, match="are in no zone"):
        Engine(game).load(state)


def test_reshuffle_takes_all_but_the_tops_of_both_piles():
    # Variant text: "shuffle all but the top discard together with all but the top
    # card of the Ace Pile"; the order comes from fast_generator((seed, draws)).
    game = BhargGame(num_players=3)
    hands = [cards("2MK", "3MV", "4MS", "5ML", "6MV", "7ML"), cards("2SY", "3SK", "4YK", "5SV", "6SY", "7SK"),
             cards("2VL", "3LY", "4VL", "5YK", "6LK", "7VY")]
    discard = cards("8MS", "8VL", "8YK", "9MS", "9VY", "9LK", "CM", "CS")
    state = make_state(game, hands, [], discard, cards("AM", "AS", "AV"), fill="piles")
    under = len(state.discard) - 1 + len(state.aces) - 1
    assert _play_both(game, state, [DRAW_DECK]) == [None]
    assert state.events[0] == ("reshuffle", under)
    assert state.aces == cards("AV") and state.discard == cards("CS") and state.draws == 2


def test_take_the_last_discard_leaves_the_pile_empty():
    game = BhargGame()
    hands = [cards("6MV", "6SY", "6LK", "7ML", "8MS", "9MS", "CM"), OPP7]
    state = _full_deal(game, hands, cards("9VY"), [])
    _play_both(game, state, [TAKE_DISCARD, DISCARD0 + cards("CM")[0], DRAW_DECK])
    assert state.discard == cards("CM")


def test_win_by_discarding_an_ace():
    # Rules text: "If you discard an ace, this may change which cards in your hand are
    # bound." The 6s are a set; the four Moons cards are bound once the Ace of Moons
    # tops the Ace Pile, which discarding it does: a win.
    game = BhargGame()
    hand = cards("6MV", "6SY", "6LK", "7ML", "8MS", "9MS", "CM", "AM")
    state = _full_deal(game, [hand, OPP7], cards("5ML"), cards("AK"), phase=1)
    other = game.clone(state)
    assert _play_both(game, other, [DISCARD0 + cards("9MS")[0]]) == [None]  # the Ace of Knots binds none
    outs = _play_both(game, state, [DISCARD0 + cards("AM")[0]])
    assert outs[0] is not None and state.winner == 0 and state.reason == "all bound"


def test_load_neither_keeps_nor_changes_the_state():
    game = BhargGame(num_players=3, target_score=50)
    state = game.new_state(rng_from_seed(7))
    game.apply(state, DRAW_DECK)
    before = game.to_json(state)
    eng = Engine(game)
    eng.load(state)
    assert game.to_json(state) == before
    legal = eng.legal_actions()
    eng.apply(legal[0])  # the engine moves on; the state does not
    assert game.to_json(state) == before
    state.events.append(("marker",))  # and the state's later changes do not reach the engine
    state.hands[0] = 0
    assert eng.to_json()["events"][-1] != ["marker"]
    assert eng.to_json()["hands"][0] != 0


def test_load_takes_a_state_without_round_points_as_zeros():
    """The validator accepts an empty ``round_points`` (states written before the field was
    filled); the engine loads it as zeros, the rules layer's reading, and plays on alike (it
    read past the empty list: a SIGSEGV found by the slow state fuzzer, case 1203)."""
    game = BhargGame(num_players=3, target_score=50)
    state = game.new_state(rng_from_seed(11))
    game.apply(state, DRAW_DECK)
    state.round_points = []
    game.validate(state)
    eng = Engine(game)
    eng.load(state)
    assert eng.to_json()["round_points"] == [0, 0, 0]
    for seat in range(3):
        np.testing.assert_array_equal(eng.observe(seat), game.observe(state, seat))
    assert eng.legal_actions() == game.legal_actions(state)


def test_observations_are_fresh_writable_arrays():
    game = BhargGame()
    state = game.new_state(rng_from_seed(3))
    eng = _loaded(game, state)
    a = eng.observe(0)
    assert a.dtype == np.int8 and a.flags.writeable and a.shape == game.observe(state, 0).shape
    a[:] = 99
    b = eng.observe(0)
    assert b.tolist() == game.observe(state, 0).tolist()
    assert not np.shares_memory(a, b)
    m = eng.mask()
    m[0] ^= 1
    fresh = eng.mask()
    assert fresh[0] != m[0] and not np.shares_memory(fresh, m) and fresh.flags.writeable


def test_load_at_every_phase_of_a_match():
    # Load at draw and discard phases, mid-match (scores observed) and once over.
    game = BhargGame(target_score=100)
    for seed in range(3):
        state = game.new_state(rng_from_seed(seed))
        pick = random.Random(seed)
        while True:
            legal = engine_agrees(game, state, _loaded(game, game.from_json(game.to_json(state))))
            if not legal:
                break
            game.apply(state, legal[int(pick.random() * len(legal))])


def test_win_check_matches_rules_on_hands_built_from_sets():
    # The engine's win check is the kernel's table lookup in C: try it on many
    # discard-phase hands of 8 cards made of one or two bharg sets plus random
    # cards, under every Ace Pile top (and none), each card discarded in turn.
    game = BhargGame(excuse=True, pawns=True, courts=True)
    every_set = sets_in_hand(mask(range(44)))
    rng = random.Random(5)
    wins = checks = 0
    for _ in range(150):
        hand = 0
        while hand.bit_count() < 8:
            extra = rng.choice(every_set) if rng.random() < 0.6 else 1 << rng.randrange(6, 45)
            if (hand | extra).bit_count() <= 8:
                hand |= extra
        free = [c for c in game.deck_cards if not hand >> c & 1]
        aces = [c for c in free if c < 6]
        top = [rng.choice(aces)] if aces and rng.random() < 0.8 else []
        rest = [c for c in free if c not in top]
        rng.shuffle(rest)
        disc = [next(c for c in rest if c >= 6)]  # a discard pile holds no Ace
        rest.remove(disc[0])
        opp, deck = rest[:7], rest[7:]
        base = make_state(game, [[c for c in range(45) if hand >> c & 1], opp], deck, disc, top, phase=1)
        for c in range(45):
            if hand >> c & 1:
                state = game.clone(base)
                eng = _loaded(game, base)
                want = game.apply(state, DISCARD0 + c)
                assert eng.apply(DISCARD0 + c) == want
                assert eng.to_json() == game.to_json(state)
                wins += want is not None
                checks += 1
    assert checks == 1200 and 40 <= wins <= checks - 40  # both answers, many times


def test_illegal_actions_raise_and_change_nothing():
    # The env checks legality first; the engine refuses an illegal action too,
    # so its C state never goes wrong (a take from an empty pile, say).
    game = BhargGame()
    hands = [cards("6MV", "6SY", "6LK", "7ML", "8MS", "9MS", "CM"), OPP7]
    # nothing to draw or take: no deal reaches it, and the engine never gets it
    blocked = make_state(game, hands, [], [], cards("AK"), fill="none", check=False)
    with pytest.raises(ValueError, match="in no zone"):
        Engine(game).load(blocked)
    draw = _full_deal(game, hands, [], [])  # no discard pile to take from
    discard = _full_deal(game, [[*hands[0], cards("9VY")[0]], OPP7], cards("5ML"), [], phase=1)
    over = game.from_json({**game.to_json(draw), "phase": 2})
    cases = [(draw, [TAKE_DISCARD, DISCARD0 + cards("CM")[0], -1, 47]),
             (discard, [DRAW_DECK, TAKE_DISCARD, DISCARD0 + cards("2MK")[0], -5, 47, 10**6]),
             (over, [DRAW_DECK, TAKE_DISCARD, DISCARD0 + cards("CM")[0]])]
    for state, actions in cases:
        eng = _loaded(game, state)
        before = eng.to_json()
        for a in actions:
            assert a not in game.legal_actions(state)
            with pytest.raises(ValueError, match=f"action {a} is not legal"):
                eng.apply(a)
            assert eng.to_json() == before
        engine_agrees(game, state, eng)


def test_load_refuses_a_state_of_another_player_count():
    state = BhargGame(num_players=3).new_state(rng_from_seed(1))
    with pytest.raises(ValueError, match="hands has 3 entries, not 2"):
        Engine(BhargGame()).load(state)


def test_env_on_the_engine_plays_the_rules_layers_games():
    from bharg_env import env

    for config in ({"num_players": 2}, {"num_players": 3, "target_score": 100}):
        steps = check_env_engine_matches_rules(lambda config=config, **kw: env(**config, **kw), range(4))
        assert steps > 4 * 50


@pytest.mark.parametrize("config", [{}, {"num_players": 3}, {"pawns": True, "courts": True, "excuse": True},
                                    {"num_players": 3, "target_score": 40}])
def test_engine_deal_is_new_state(config):
    """The engine's own deal (``deal(rng)``, what the envs reset with) makes the state
    ``new_state`` makes from the same generator (its seed of every later shuffle
    included: the games go on alike), and leaves the generator where ``new_state``
    leaves it; a deal in an engine that played a game forgets that game."""
    game = BhargGame(**config)
    eng, ref = Engine(game), Engine(game)
    aces_first = 0
    for seed in range(200):
        r1, r2 = rng_from_seed(seed), rng_from_seed(seed)
        state = game.new_state(r1)
        eng.deal(r2)
        ref.load(state)
        assert eng.to_json() == game.to_json(state)
        assert r1.bit_generator.state == r2.bit_generator.state
        assert eng.legal_actions() == game.legal_actions(state)
        assert all(np.array_equal(eng.observe(s), game.observe(state, s)) for s in range(game.num_players))
        aces_first += bool(state.aces)
        while eng.current_seat() >= 0:  # play on alike (reshuffles, rounds), then deal again
            a = eng.legal_actions()[seed % len(eng.legal_actions())]
            assert eng.apply(a) == ref.apply(a)
        assert eng.to_json() == ref.to_json()
    assert aces_first  # deals that put Aces on the Ace Pile before the first discard
