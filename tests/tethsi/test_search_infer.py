"""The Tet Hsi search's inference from the opponent's last turn (``tethsi_env._search``, ``infer``):
the deals it keeps against the rules layer's greedy bot replaying the turn, blind to the hidden
cards, and the trust option."""

from __future__ import annotations

import numpy as np
import pytest

from setgames.bots.registry import make_bot
from setgames.bots.search import SearchBot
from setgames.engine import engine_class
from setgames.registry import make_game
from tethsi_env.infer import last_turns

search_mod = pytest.importorskip("tethsi_env._search")
GAME = make_game("tethsi")
Engine = engine_class(GAME)


def _greedy_positions(count, seed=0):
    """Positions of greedy-vs-greedy games after the first turn, at every phase of a turn."""
    out = []
    g = seed
    while len(out) < count:
        state = GAME.new_state(np.random.default_rng(g))
        bots = [make_bot("greedy", "tethsi", seed=g), make_bot("greedy", "tethsi", seed=g + 1)]
        while not GAME.is_over(state) and len(out) < count:
            seat = GAME.current_seat(state)
            if state.turn > 1 and (state.turn + g) % 3 == 0:
                out.append(GAME.clone(state))
            GAME.apply(state, bots[seat].act(GAME, state, seat))
        g += 1
    return out


def _engine(state):
    e = Engine(GAME)
    e.load(state)
    return e


def _rules_keep_rate(state, deal, runs, turns=1):
    """The share of ``runs`` replays in which the rules layer's greedy bot, holding the opponent's
    hand ``deal`` gives it (plus the cards it used since), plays each of the opponent's last
    ``turns`` turns as recorded."""
    seat = GAME.current_seat(state)
    opp = seat ^ 1
    kept = 0
    for r in range(runs):
        bot = make_bot("greedy", "tethsi", seed=10_000 + r)
        kept += all(_replays(turn, deal, opp, bot) for turn in last_turns(GAME, state, seat, turns))
    return kept / runs


def _replays(turn, deal, opp, bot):
    s = GAME.clone(turn.start)
    s.concealed[opp] = deal.concealed[opp] | turn.used
    s.pile = deal.pile + turn.start.pile[len(deal.pile):]
    for a in turn.actions:
        if bot.act(GAME, s, opp) != a:
            return False
        GAME.apply(s, a)
    return True


@pytest.mark.parametrize("turns", [1, 2])
def test_the_deals_kept_are_those_the_rules_layers_greedy_explains(turns):
    runs = 200
    checked = refuted = 0
    for i, state in enumerate(_greedy_positions(10)):
        engine = _engine(state)
        seat = GAME.current_seat(state)
        # the true hand explains the turns
        assert search_mod.keeps(engine, engine, runs, seed=i, turns=turns) > 0
        for j in range(5):
            deal = GAME.determinize(state, seat, np.random.default_rng(100 * i + j))
            got = search_mod.keeps(engine, _engine(deal), runs, seed=i, turns=turns) / runs
            want = _rules_keep_rate(state, deal, runs, turns)
            if want in (0.0, 1.0):
                assert got == want, (i, j)
            else:
                assert abs(got - want) < 0.2, (i, j, got, want)
            refuted += want == 0
            checked += 1
    assert checked == 50 and refuted > 10  # the turn tells something about the hand


def test_trust_keeps_a_refuted_deal_with_probability_one_minus_infer():
    for i, state in enumerate(_greedy_positions(30, seed=50)):
        engine = _engine(state)
        seat = GAME.current_seat(state)
        deal = _engine(GAME.determinize(state, seat, np.random.default_rng(i)))
        if search_mod.keeps(engine, deal, 64, seed=i) == 0:  # a deal the turn refutes
            assert search_mod.keeps(engine, deal, 64, seed=i, infer=0.0) == 64
            kept = search_mod.keeps(engine, deal, 4000, seed=i, infer=0.75)
            assert abs(kept / 4000 - 0.25) < 0.03
            return
    pytest.fail("no refuted deal among the positions")


def test_the_inferring_search_reads_only_its_seats_information():
    """Re-dealing the hidden cards (the opponent's hand and the pile; the record, all public, is
    kept) changes neither the move nor the values."""
    for i, state in enumerate(_greedy_positions(6, seed=7)):
        seat = GAME.current_seat(state)
        twin = GAME.determinize(state, seat, np.random.default_rng(i))
        a = search_mod.search(_engine(state), iters=40, seed=i, infer=1.0)
        b = search_mod.search(_engine(twin), iters=40, seed=i, infer=1.0)
        assert a[0] == b[0] and list(a[1]) == list(b[1])
        np.testing.assert_array_equal(a[2], b[2])
        assert a[0] in GAME.legal_actions(state)


def test_without_a_turn_to_read_the_search_is_the_plain_one():
    state = GAME.new_state(np.random.default_rng(3))  # the first turn: nothing played yet
    engine = _engine(state)
    assert search_mod.keeps(engine, engine, 10) is None
    plain = search_mod.search(engine, iters=30, seed=5)
    inferring = search_mod.search(engine, iters=30, seed=5, infer=1.0)
    assert plain[0] == inferring[0]
    np.testing.assert_array_equal(plain[2], inferring[2])


def test_turns_are_one_to_the_most_the_search_holds():
    engine = _engine(_greedy_positions(1)[0])
    for bad in (0, 5, 1.5, "2"):
        with pytest.raises(ValueError, match=r"turns .* must be an integer 1\.\.4"):
            search_mod.search(engine, iters=4, infer=1.0, turns=bad)


def test_the_bot_takes_infer_in_tet_hsi_only_and_in_range():
    state = _greedy_positions(1)[0]
    bot = SearchBot(seed=1, game_name="tethsi", iters=30, infer=0.9)
    assert bot.act(GAME, state, GAME.current_seat(state)) in GAME.legal_actions(state)
    with pytest.raises(ValueError, match="infer"):
        SearchBot(game_name="tethsi", infer=1.5)
    with pytest.raises(ValueError, match="only Tet Hsi's infers"):
        SearchBot(game_name="bharg", infer=0.5)
