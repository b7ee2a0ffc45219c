"""The compiled Tet Hsi engine (``tethsi_env._engine``) against the rules layer, the reference.

Random games on every config (``first_player`` 0, 1, ``"random"``) go through
:func:`setgames.testing.check_engine_matches_rules` (seat, legal list, mask,
both observations and ``to_json`` after every step, ``apply``'s returns, the
outcome, reloads from JSON every 5 steps); the event record of each game
then tells which rule paths were played, and the tests assert that each was
hit. Hand-built positions cover the endings random play reaches seldom.
Skipped when the extension is not built (no compiler at install).
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from setgames.engine import engine_class
from setgames.game import rng_from_seed
from setgames.kernels.tethsi import KIND_NAMES
from setgames.testing import check_engine_matches_rules, check_env_engine_matches_rules, engine_agrees
from tests.tethsi.positions import c, position
from tethsi_env import raw_env
from tethsi_env.layout import Phase
from tethsi_env.rules import TetHsiGame

ENGINE = engine_class(TetHsiGame())
if ENGINE is None:
    pytest.skip("tethsi_env._engine is not built", allow_module_level=True)

from tethsi_env import _engine  # noqa: E402  (only once the skip above did not fire)

CONFIGS = [0, 1, "random"]
HAND1 = ["AV", "AL", "AY", "AK", "CV", "CL", "CY", "CK"]

# Every path random play must reach on each config (names from played_paths below).
PATHS = {"discard", "take", "nothing", "set", "play", "reveal", "win", "tie", "win seat 0", "win seat 1",
         "play from concealed", "play from front", "set with a front card", "set from concealed only",
         *(f"set {k}" for k in KIND_NAMES)}


def played_paths(data: dict) -> set[str]:
    """The rule paths a finished game's ``to_json`` record went through, read from
    its public events (fronts tracked from the takes)."""
    hit = {f"first player {data['first_player']}"}
    front: list[set[int]] = [set(), set()]
    for e in data["events"]:
        name, p = e[0], e[1]
        hit.add(name)
        if name == "take":
            front[p].add(e[2])
        elif name == "play":
            hit.add("play from front" if e[2] in front[p] else "play from concealed")
            front[p].discard(e[2])
        elif name == "set":
            x, y, kind = e[2], e[3], e[5]
            hit.add(f"set {kind}")
            hit.add("set with a front card" if {x, y} & front[p] else "set from concealed only")
            front[p] -= {x, y}
        elif name == "win":
            hit.add(f"win seat {p}")
    return hit


class Recording(ENGINE):  # type: ignore[misc, valid-type]
    """The engine, keeping the last ``to_json`` it gave (the final state, once a game ended)."""

    last: dict | None = None

    def to_json(self) -> dict:
        data = super().to_json()
        Recording.last = data
        return data


def differential(game: TetHsiGame, seeds: range) -> tuple[int, set[str]]:
    """Steps checked and paths hit over ``seeds``, one game each."""
    steps, hit = 0, set()
    for seed in seeds:
        steps += check_engine_matches_rules(game, [seed], engine_cls=Recording)
        assert Recording.last is not None and not game.legal_actions(game.from_json(Recording.last))
        hit |= played_paths(Recording.last)
    return steps, hit


def replay(game: TetHsiGame, state, labels: list[str]) -> None:
    """Play ``labels`` on the rules layer and on an engine loaded from ``state``, comparing after each."""
    eng = ENGINE(game)
    eng.load(game.clone(state))
    engine_agrees(game, state, eng)
    for label in labels:
        a = game.str_to_action(label)
        game.check_action(state, a)
        assert eng.apply(a) == game.apply(state, a), label
        engine_agrees(game, state, eng)


# ------------------------------------------------------------------ protocol
def test_engine_is_the_games_compiled_engine():
    assert TetHsiGame.engine_module == "tethsi_env._engine"
    assert ENGINE is _engine.Engine


# ------------------------------------------------------------------ random play, every config
@pytest.mark.parametrize("first_player", CONFIGS)
def test_engine_matches_rules_on_every_config(first_player):
    game = TetHsiGame(first_player=first_player)
    steps, hit = differential(game, range(150))
    assert steps > 6000
    assert hit >= PATHS, f"paths not reached: {sorted(PATHS - hit)}"
    firsts = {"first player 0", "first player 1"}
    assert hit & firsts == ({f"first player {first_player}"} if first_player != "random" else firsts)


@pytest.mark.slow
@pytest.mark.parametrize("first_player", CONFIGS)
def test_engine_matches_rules_on_many_seeds(first_player):
    game = TetHsiGame(first_player=first_player)
    steps, hit = differential(game, range(1000, 3000))
    assert steps > 80_000 and hit >= PATHS


# ------------------------------------------------------------------ hand-built endings
def test_third_set_wins_at_once_on_the_engine():
    game = TetHsiGame()
    # (seat 1 holds HAND1 but the Ace and Crown of the second Set: every card in one zone)
    hand1 = [x for x in HAND1 if x not in ("AV", "CV")]
    s = position(["4MS", "8MS"], hand1, ["AM"], ["9LK"], phase=Phase.CHOOSE, remaining="AM",
                 sets0=(("2MK", "2SY", "2VL"), ("AV", "CV", "5SV")))
    replay(game, s, ["set Mountain + Diplomat"])
    assert game.outcome(s)["winner"] == 0


def test_third_set_with_front_cards_wins_for_seat_1_on_the_engine():
    # Seat 1's hand is two front cards; the remaining Ace of Moons completes a Set with them.
    game = TetHsiGame()
    s = position(["AS", "2VL"], [], ["AM"], ["9LK"], front1=("4MS", "8MS"), seat=1, phase=Phase.CHOOSE,
                 remaining="AM")
    replay(game, s, ["set Mountain + Diplomat"])
    assert s.winner == 1 and s.reason is not None


@pytest.mark.parametrize("ending", [["take", "play Merchant"], ["nothing"],
                                    ["set Mountain + Diplomat", "play Savage"]])
def test_empty_pile_at_the_reveal_ties_on_the_engine(ending):
    game = TetHsiGame()
    hand0 = ["5ML", "4MS", "8MS", "CM", "AS", "2VL", "3LY", "7VY"]
    remaining = "AM" if ending[0].startswith("set") else "9LK"
    s = position(hand0, HAND1, [remaining], [], phase=Phase.CHOOSE, remaining=remaining)
    replay(game, s, ending)
    assert game.outcome(s)["result"] == "tie"


def test_front_card_played_and_put_aside_on_the_engine():
    game = TetHsiGame()
    s = position(["5ML", "AS", "2VL", "3LY"], HAND1, ["AM", "9LK"], ["5SV", "6MV", "7VY"],
                 front0=("4MS", "8MS"))
    # Seat 0 puts aside its two front cards with the Ace of Moons and plays from the
    # concealed hand; seat 1 does nothing; seat 0 takes the Cave and plays it back; seat 1
    # takes the last revealed card, plays it from the front, and the empty pile ties.
    replay(game, s, ["discard Merchant", "set Mountain + Diplomat", "play Savage",
                     "discard Savage", "nothing",
                     "discard Lunatic", "take", "play Cave",
                     "discard Cave", "take", "play Discovery"])
    assert [e[0] for e in s.events].count("reveal") == 3 and s.events[-1][0] == "tie"


def test_outcome_follows_the_game_after_being_read_mid_game():
    game = TetHsiGame()
    state = game.new_state(rng_from_seed(8))
    eng = ENGINE(game)
    eng.load(state)
    assert eng.outcome() == game.outcome(state) and eng.outcome()["result"] == "running"
    pick = random.Random(8)
    while legal := game.legal_actions(state):
        a = legal[int(pick.random() * len(legal))]
        assert eng.apply(a) == game.apply(state, a)
        assert eng.outcome() == game.outcome(state)
    assert eng.outcome()["result"] in ("win", "tie")


def test_finished_states_load_into_the_engine():
    game = TetHsiGame(first_player="random")
    for seed in range(20):
        state = game.new_state(rng_from_seed(seed))
        pick = random.Random(seed)
        while legal := game.legal_actions(state):
            game.apply(state, legal[int(pick.random() * len(legal))])
        eng = ENGINE(game)
        eng.load(game.from_json(game.to_json(state)))
        assert engine_agrees(game, state, eng) == []


# ------------------------------------------------------------------ protocol details
def test_load_neither_keeps_nor_changes_the_state():
    game = TetHsiGame()
    state = game.new_state(rng_from_seed(3))
    before = game.to_json(state)
    eng = ENGINE(game)
    eng.load(state)
    legal = eng.legal_actions()
    eng.apply(legal[0])
    assert game.to_json(state) == before  # the engine moved, the state did not
    moved = eng.to_json()
    game.apply(state, legal[1])  # and the state moves without the engine
    assert eng.to_json() == moved


def test_observations_and_masks_are_fresh_objects():
    game = TetHsiGame()
    state = game.new_state(rng_from_seed(4))
    eng = ENGINE(game)
    eng.load(state)
    obs, mask = eng.observe(0), eng.mask()
    obs[:] = 5
    mask[:] = 1
    assert np.array_equal(eng.observe(0), game.observe(state, 0))
    assert np.array_equal(eng.mask(), game.legal_mask(state))
    assert eng.observe(1) is not eng.observe(1) and eng.mask() is not eng.mask()


def test_engine_copies_and_an_env_stepping_it_deep_copies():
    game = TetHsiGame()
    state = game.new_state(rng_from_seed(9))
    eng = ENGINE(game)
    eng.load(state)
    legal = eng.legal_actions()
    eng.apply(legal[0])
    game.apply(state, legal[0])
    for twin in (copy.copy(eng), copy.deepcopy(eng)):
        assert type(twin) is ENGINE and twin.to_json() == eng.to_json()
        a = twin.legal_actions()[0]
        twin.apply(a)
        assert eng.to_json() == game.to_json(state)  # the original did not move
        assert twin.to_json() != eng.to_json()
    env = raw_env()
    env.reset(seed=9)
    assert env.engine is not None
    twin = copy.deepcopy(env)
    twin.step(int(np.flatnonzero(twin.action_mask())[0]))
    assert twin.game_state != env.game_state


def test_event_record_longer_than_the_c_buffer():
    # Whole games without a to_json on the way: the C event records overflow
    # their buffer in long games and must still come out in order.
    game = TetHsiGame()
    longest = 0
    for seed in range(30):
        state = game.new_state(rng_from_seed(seed))
        eng = ENGINE(game)
        eng.load(game.clone(state))
        pick = random.Random(seed)
        while legal := game.legal_actions(state):
            a = legal[int(pick.random() * len(legal))]
            assert eng.apply(a) == game.apply(state, a)
        assert eng.to_json() == game.to_json(state)
        longest = max(longest, len(state.events))
    assert longest > _engine.EVENT_CAPACITY


def test_load_keeps_the_loaded_event_record_first():
    game = TetHsiGame()
    state = game.new_state(rng_from_seed(5))
    for _ in range(7):
        game.apply(state, game.legal_actions(state)[-1])
    eng = ENGINE(game)
    eng.load(state)
    a = game.legal_actions(state)[0]
    eng.apply(a)
    game.apply(state, a)
    assert eng.to_json()["events"] == game.to_json(state)["events"] and len(state.events) > 8


def test_load_rejects_states_the_engine_cannot_hold():
    game = TetHsiGame()
    long_pile = game.new_state(rng_from_seed(0))
    long_pile.pile = [*range(36), c("AM")]
    bad_kind = game.new_state(rng_from_seed(0))
    bad_kind.sets[0].append((0, 12, 30, len(KIND_NAMES)))
    bad_phase = game.new_state(rng_from_seed(0))
    bad_phase.phase = 4
    no_remaining = game.new_state(rng_from_seed(0))
    no_remaining.phase = int(Phase.CHOOSE)
    for state in (long_pile, bad_kind, bad_phase, no_remaining):
        with pytest.raises(ValueError):
            ENGINE(game).load(state)


def test_out_of_range_seats_raise():
    game = TetHsiGame()
    eng = ENGINE(game)
    eng.load(game.new_state(rng_from_seed(6)))
    for seat in (-1, 2):
        with pytest.raises(ValueError, match=str(seat)):
            eng.observe(seat)


def test_apply_raises_on_every_illegal_action_and_changes_nothing():
    # Every action id not in the rules layer's legal list, at every step of a few
    # games (every phase, both seats), and the out-of-range ids.
    game = TetHsiGame(first_player="random")
    phases = set()
    for seed in range(3):
        state = game.new_state(rng_from_seed(seed))
        eng = ENGINE(game)
        eng.load(state)
        pick = random.Random(seed)
        while True:
            legal = game.legal_actions(state)
            phases.add(state.phase)
            before = eng.to_json()
            for a in [-1, *sorted(set(range(game.num_actions)) - set(legal)), game.num_actions]:
                try:
                    eng.apply(a)
                except ValueError as exc:
                    assert str(exc).startswith(f"action {a} ")  # (pytest.raises is 10x slower)
                else:
                    raise AssertionError(f"illegal action {a} did not raise")
            assert eng.to_json() == before
            if not legal:
                break
            a = legal[int(pick.random() * len(legal))]
            assert eng.apply(a) == game.apply(state, a)
    assert phases == {int(p) for p in Phase}


def test_env_on_the_engine_plays_the_rules_layers_games():
    from tethsi_env import env

    for first_player in (0, 1, "random"):
        steps = check_env_engine_matches_rules(
            lambda first_player=first_player, **kw: env(first_player=first_player, **kw), range(8))
        assert steps > 8 * 30


@pytest.mark.parametrize("first_player", [0, 1, "random"])
def test_engine_deal_is_new_state(first_player):
    """The engine's own deal (``deal(rng)``, what the envs reset with) makes the state
    ``new_state`` makes from the same generator, and leaves the generator where
    ``new_state`` leaves it; a deal in an engine that played a game forgets that game."""
    game = TetHsiGame(first_player=first_player)
    eng = engine_class(game)(game)
    firsts = set()
    for seed in range(300):
        r1, r2 = rng_from_seed(seed), rng_from_seed(seed)
        state = game.new_state(r1)
        eng.deal(r2)
        assert eng.to_json() == game.to_json(state)
        assert r1.bit_generator.state == r2.bit_generator.state
        assert eng.legal_actions() == game.legal_actions(state)
        assert all(np.array_equal(eng.observe(s), game.observe(state, s)) for s in range(2))
        firsts.add(state.first_player)
        while eng.current_seat() >= 0:  # play it out: the next deal starts from a used engine
            eng.apply(eng.legal_actions()[seed % len(eng.legal_actions())])
        assert eng.outcome()["result"] != "running"
    assert firsts == ({0, 1} if first_player == "random" else {first_player})
