"""Tu Sac state validation (``tusac_env/validate.py``): the states of issue #20 that
crashed the engine or corrupted its heap are refused in one line, changing nothing."""

from __future__ import annotations

import numpy as np
import pytest

from setgames.game import rng_from_seed
from tests.setgames.refusal import assert_refused, edited
from tests.tusac.helpers import hand, pile
from tusac_env.env import raw_env
from tusac_env.melds import rebuild_caches
from tusac_env.rules import TuSacGame


def _mid_game(game, seed=1, steps=12):
    state = game.new_state(rng_from_seed(seed))
    for _ in range(steps):
        legal = game.legal_actions(state)
        if not legal:
            break
        game.apply(state, legal[0])
    return state


def _responding(game):
    """A running state with an active card (someone responds to a discard)."""
    for seed in range(50):
        state = game.new_state(rng_from_seed(seed))
        if state.phase == 0:
            game.apply(state, game.legal_actions(state)[0])
            if state.phase == 1:
                return state
    raise AssertionError("no deal of 50 reached a response")


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_state_of_random_play_passes(n):
    game = TuSacGame(num_players=n)
    rng = np.random.default_rng(n)
    for seed in range(4):
        state = game.new_state(rng_from_seed(seed))
        while True:
            game.validate(state)
            assert game.from_json(game.to_json(state)) == state
            legal = game.legal_actions(state)
            if not legal:
                break
            game.apply(state, legal[int(rng.integers(len(legal)))])


@pytest.mark.parametrize(("field", "value", "match"), [
    ("active", 10**6, "active"), ("active", 500, "active"), ("phase", 10**6, "phase"),
    ("current", 4, "current"), ("active_from", -2, "active_from"), ("first", 3, "first"),
    ("active_how", 3, "active_how"), ("result", "won", "result"), ("returns", [1.0], "returns"),
    ("last_claim", ["meld", 0], "last_claim"), ("num_players", 3, "num_players"),
    ("payments", [[0, 5, 1, "win"]], "payee"), ("active_passed", 1, "active_passed"),
    ("value", 2**31, "value"), ("amount", 2**40, "amount"),  # C ints in the engine
])
def test_the_crashing_fields_of_the_issue_are_refused(field, value, match):
    game = TuSacGame(num_players=2)
    state = _responding(game)
    assert_refused(raw_env, {"num_players": 2}, edited(game, state, **{field: value}), match)


def test_a_draw_card_out_of_range_is_refused():
    game = TuSacGame(num_players=2)
    state = _responding(game)
    data = game.to_json(state)
    data["draw"] = [*data["draw"][1:], 10**6]
    with pytest.raises(ValueError, match="draw"):
        game.from_json(data)
    assert_refused(raw_env, {"num_players": 2}, edited(game, state, draw=data["draw"]), "draw")


@pytest.mark.parametrize(("edit", "match"), [
    (lambda d: d["draw"].append(d["draw"][0]), "held \\[5\\] times, not the 4 copies"),
    (lambda d: d["draw"].pop(), "held \\[3\\] times, not the 4 copies"),
    (lambda d: d["private"][0].__setitem__(0, 4), "private"),
    (lambda d: d["public"][0].append(["pair", [3, 4]]), "not a pair set"),
    (lambda d: d["public"][0].append(["kgm", [0, 1, 9]]), "not a kgm set"),
    (lambda d: d["public"][0].append(["pawns3", [6, 6, 13]]), "not a pawns3 set"),
    (lambda d: d["public"][0].append(["quad", [0, 0, 0, 0]]), "kind"),
    (lambda d: d["public"][0].append(["pair", [0, 0]] * 2), "public"),
    (lambda d: d.__setitem__("dead", [5, *d["dead"][1:]]), "dead"),
    (lambda d: d.__setitem__("current", 1.0), "current"),
    (lambda d: d.__setitem__("value", -3), "value"),
    (lambda d: d.__setitem__("events", [["x", {"a": 1}]]), "events"),
    (lambda d: d.pop("draw"), "lacks"),
])
def test_broken_json_is_refused_in_one_line(edit, match):
    game = TuSacGame(num_players=3)
    data = game.to_json(_mid_game(game))
    edit(data)
    with pytest.raises(ValueError, match=match) as info:
        game.from_json(data)
    assert "\n" not in str(info.value)


def test_a_phase_that_does_not_fit_the_active_card_is_refused():
    game = TuSacGame(num_players=2)
    state = _responding(game)
    with pytest.raises(ValueError, match="discard decision with an active card"):
        game.validate(edited(game, state, phase=0))
    with pytest.raises(ValueError, match="responds to its own active card"):
        game.validate(edited(game, state, current=state.active_from))
    with pytest.raises(ValueError, match="hit card"):
        game.validate(edited(game, state, phase=2))  # the active card was discarded, not hit


def test_a_seat_to_discard_with_no_trash_is_refused():
    # a winning hand still asked to discard: no legal action, so the game could never move
    game = TuSacGame(num_players=2)
    start = game.position([hand("rK rG rM gP gP"), hand("rC wK yP")], pile("gG gM wM wG wG wM gG gM"))
    assert start.phase == 3  # the first player won on the deal
    running = edited(game, start, phase=0, current=0, winner=-1, result="", returns=[], payments=[],
                     value=0, amount=0)
    rebuild_caches(running)
    with pytest.raises(ValueError, match="no legal action"):
        game.validate(running)


def test_stale_caches_are_refused():
    game = TuSacGame(num_players=2)
    state = _mid_game(game)
    t = next(t for t in range(28) if state.private[0][t] == 1)
    u = next(u for u in range(28) if state.private[0][u] == 0 and state.draw.count(u))
    private = [row[:] for row in state.private]
    private[0][t], private[0][u] = 0, 1
    draw = state.draw[:]
    draw[draw.index(u)] = t
    swapped = edited(game, state, private=private, draw=draw)
    with pytest.raises(ValueError, match="caches"):
        game.validate(swapped)
    rebuild_caches(swapped)  # the documented way after a hand edit
    game.validate(swapped)


@pytest.mark.parametrize("seat", [-1, 2, True, 1.5])
def test_observe_refuses_a_seat_that_is_not_one(seat):
    game = TuSacGame(num_players=2)
    with pytest.raises(ValueError, match="seat"):
        game.observe(game.new_state(rng_from_seed(0)), seat)


def test_observe_takes_a_numpy_seat():
    game = TuSacGame(num_players=3)
    state = game.new_state(rng_from_seed(0))
    assert game.observe(state, np.int64(2)).tolist() == game.observe(state, 2).tolist()


# ------------------------------------------------------------ card conservation, exactly
def _every_zone_in_use(game):
    """A running state with cards in every zone: private and public blocks, the dead and
    draw piles, and an active card."""
    for seed in range(200):
        state = game.new_state(rng_from_seed(seed))
        rng = np.random.default_rng(seed)
        while game.legal_actions(state):
            if state.active >= 0 and any(state.public) and sum(state.dead) and state.draw:
                return state
            legal = game.legal_actions(state)
            game.apply(state, legal[int(rng.integers(len(legal)))])
    raise AssertionError("no game of 200 used every zone at once")


def _held(state) -> list[int]:
    """Copies of each type over every zone, counted independently of the validator."""
    held = [sum(row[t] for row in state.private) + state.dead[t] + state.draw.count(t)
            for t in range(28)]
    for block in state.public:
        for _, cards in block:
            for t in cards:
                held[t] += 1
    if state.active >= 0:
        held[state.active] += 1
    return held


def _drop(state, zone):
    """``state`` edited to lose one card (or one set) from ``zone``; the changed fields."""
    if zone == "private":
        private = [row[:] for row in state.private]
        seat = next(s for s, row in enumerate(private) if sum(row))
        private[seat][next(t for t in range(28) if private[seat][t])] -= 1
        return {"private": private}
    if zone == "public":
        public = [list(block) for block in state.public]
        next(block for block in public if block).pop()
        return {"public": public}
    if zone == "dead":
        dead = state.dead[:]
        dead[next(t for t in range(28) if dead[t])] -= 1
        return {"dead": dead}
    if zone == "draw":
        return {"draw": state.draw[:-1]}
    return {"active": (state.active + 1) % 28}  # one type one short, the next one over


def _add(state, zone):
    """``state`` edited to hold a fifth copy of a type in ``zone``; the changed fields."""
    if zone == "private":
        private = [row[:] for row in state.private]
        private[0][next(t for t in range(28) if private[0][t] < 3)] += 1
        return {"private": private}
    if zone == "public":
        public = [list(block) for block in state.public]
        public[0].append(["king", [0]])  # a lone red king: a set of its kind
        return {"public": public}
    if zone == "dead":
        dead = state.dead[:]
        dead[next(t for t in range(28) if dead[t] < 4)] += 1
        return {"dead": dead}
    return {"draw": [*state.draw, state.draw[0]]}


ZONES = ["private", "public", "dead", "draw", "active"]


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("zone", ZONES)
def test_a_card_missing_from_any_zone_is_refused(n, zone):
    game = TuSacGame(num_players=n)
    state = _every_zone_in_use(game)
    game.validate(state)
    assert _held(state) == [4] * 28  # the dealt game: every type exactly four times
    broken = edited(game, state, **_drop(state, zone))
    assert min(_held(broken)) < 4
    with pytest.raises(ValueError, match="not the 4 copies"):
        game.from_json(game.to_json(broken))
    assert_refused(raw_env, {"num_players": n}, broken, "not the 4 copies")


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("zone", ZONES[:4])
def test_a_fifth_card_in_any_zone_is_refused(n, zone):
    game = TuSacGame(num_players=n)
    state = _every_zone_in_use(game)
    broken = edited(game, state, **_add(state, zone))
    assert max(_held(broken)) == 5 and min(_held(broken)) == 4
    with pytest.raises(ValueError, match="held \\[5\\] times, not the 4 copies"):
        game.from_json(game.to_json(broken))
    assert_refused(raw_env, {"num_players": n}, broken, "not the 4 copies")


def test_the_engine_load_refuses_a_missing_card_and_keeps_its_game():
    from tusac_env._engine import Engine

    game = TuSacGame(num_players=3)
    state = _every_zone_in_use(game)
    eng = Engine(game)
    eng.load(state)
    before = eng.to_json()
    with pytest.raises(ValueError, match="not the 4 copies"):
        eng.load(edited(game, state, draw=state.draw[1:]))
    assert eng.to_json() == before
