"""One test per Tet Hsi rule and ruling (``tethsi_env/README.md``, "Rules summary" and
"Rules choices"), on hand-built positions."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from setgames.game import IllegalActionError, rng_from_seed
from tests.tethsi.decktet_oracle import oracle_kind
from tests.tethsi.positions import c, m, position
from tethsi_env.layout import NOTHING, OBS_SPEC, PLAY_START, TAKE, Phase
from tethsi_env.rules import REASON_EMPTY_PILE, REASON_THIRD_SET, TetHsiGame

GAME = TetHsiGame()
HAND0 = ["5ML", "4MS", "8MS", "CM", "AS", "2VL", "3LY", "7VY"]
HAND1 = ["AV", "AL", "AY", "AK", "CV", "CL", "CY", "CK"]


def act(game: TetHsiGame, state, label: str):
    a = game.str_to_action(label)
    game.check_action(state, a)
    return game.apply(state, a)


def labels(game: TetHsiGame, state) -> list[str]:
    return [game.action_to_str(a) for a in game.legal_actions(state)]


def choose_position(remaining: str, hand0=HAND0, front0=(), pile=("9LK", "9VY")):
    return position(hand0, HAND1, [remaining], list(pile), front0=front0, phase=Phase.CHOOSE,
                    remaining=remaining)


# ------------------------------------------------------------------ setup
def test_setup_deals_8_cards_each_2_to_the_center_and_18_to_the_pile():
    for seed in range(20):
        s = GAME.new_state(rng_from_seed(seed))
        assert s.concealed[0].bit_count() == s.concealed[1].bit_count() == 8
        assert s.center.bit_count() == 2 and len(s.pile) == 18
        assert s.front == [0, 0] and s.discard == 0
        allcards = s.concealed[0] | s.concealed[1] | s.center | sum(1 << x for x in s.pile)
        assert allcards == (1 << 36) - 1


def test_player_0_moves_first_by_default():
    assert all(GAME.current_seat(GAME.new_state(rng_from_seed(k))) == 0 for k in range(10))


def test_first_player_option_fixed_or_random_from_seed():
    assert GAME.current_seat(TetHsiGame(first_player=1).new_state(rng_from_seed(3))) == 1
    rnd = TetHsiGame(first_player="random")
    firsts = [rnd.current_seat(rnd.new_state(rng_from_seed(k))) for k in range(40)]
    assert set(firsts) == {0, 1}
    assert firsts == [rnd.current_seat(rnd.new_state(rng_from_seed(k))) for k in range(40)]
    # The deal of a seed does not depend on the option.
    a, b = rnd.new_state(rng_from_seed(5)), GAME.new_state(rng_from_seed(5))
    assert (a.concealed, a.center, a.pile) == (b.concealed, b.center, b.pile)


@pytest.mark.parametrize("bad", [2, -1, "first", True, None, 0.0])
def test_bad_first_player_raises_at_construction(bad):
    with pytest.raises(ValueError, match=f"first_player {bad!r}"):
        TetHsiGame(first_player=bad)


# ------------------------------------------------------------------ step 1: discard
def test_turn_starts_by_discarding_either_center_card():
    s = position(HAND0, HAND1, ["9LK", "9VY"], ["5SV"])
    assert labels(GAME, s) == ["discard Darkness", "discard Merchant"]
    act(GAME, s, "discard Merchant")
    assert s.discard >> c("9LK") & 1 and s.center == m("9VY")
    assert s.remaining == c("9VY") and s.phase == Phase.CHOOSE and s.seat == 0


# ------------------------------------------------------------------ step 2: take / set / nothing
def test_choose_offers_take_nothing_and_sets_only():
    s = choose_position("9LK")
    got = GAME.legal_actions(s)
    assert got[:2] == [TAKE, NOTHING]
    assert all(GAME.layout.decode(a)[0] == "set" for a in got[2:])


def test_take_puts_the_remaining_card_in_front_then_a_card_must_be_played():
    s = choose_position("9LK")
    act(GAME, s, "take")
    assert s.front[0] == m("9LK") and s.center == 0 and s.phase == Phase.PLAY
    hand = s.concealed[0] | s.front[0]
    assert GAME.legal_actions(s) == [PLAY_START + x for x in range(36) if hand >> x & 1]


def test_card_just_taken_may_be_played_back():
    s = choose_position("9LK")
    act(GAME, s, "take")
    assert "play Merchant" in labels(GAME, s)
    act(GAME, s, "play Merchant")
    assert s.front[0] == 0 and s.center >> c("9LK") & 1


def test_front_cards_are_part_of_the_hand_and_visible_to_the_opponent():
    s = choose_position("5SV", front0=("9MS",), hand0=HAND0[:7])
    opp_view = OBS_SPEC.unpack(GAME.observe(s, 1))
    assert opp_view["opp_front"][c("9MS")] == 1 and opp_view["opp_front"].sum() == 1
    assert opp_view["opp_concealed_count"] == 7
    # A front card can go into a Set, and then leaves the front: Ace of Suns + Pact (front)
    # with Mountain is a Kvar.
    s = choose_position("4MS", front0=("9MS",), hand0=["AS", "2VL", "3LY", "7VY", "5ML", "6LK", "AY"])
    assert "set Ace of Suns + Pact" in labels(GAME, s)
    act(GAME, s, "set Ace of Suns + Pact")
    assert s.front[0] == 0 and s.set_cards[0] == m("AS", "9MS", "4MS")


def test_kvar_aa_ab_ab_is_accepted():
    s = choose_position("AM")  # hand holds Mountain and Diplomat (both Moons-Suns)
    assert "set Mountain + Diplomat" in labels(GAME, s)
    act(GAME, s, "set Mountain + Diplomat")
    assert s.sets[0] == [(c("4MS"), c("8MS"), c("AM"), 2)]
    assert s.events[-1] == ("set", 0, c("4MS"), c("8MS"), c("AM"), "Kvar")


def test_kvar_aa_aa_bb_is_refused():
    s = choose_position("AS", hand0=["AM", "CM", "2VL", "3LY", "7VY", "5ML", "6LK", "AY"])
    assert "set Ace of Moons + Crown of Moons" not in labels(GAME, s)
    with pytest.raises(IllegalActionError, match="set Ace of Moons \\+ Crown of Moons"):
        GAME.check_action(s, GAME.str_to_action("set Ace of Moons + Crown of Moons"))


def test_set_actions_are_exactly_the_pairs_forming_a_set_with_the_remaining_card():
    rng = np.random.default_rng(0)
    for _ in range(60):
        cards = rng.choice(36, 11, replace=False).tolist()
        hand, front, rem = cards[:7], cards[7:9], cards[9]
        s = position([], [], [], [])
        s.concealed[0] = sum(1 << x for x in hand)
        s.front[0] = sum(1 << x for x in front)
        s.center, s.remaining, s.phase = 1 << rem, rem, int(Phase.CHOOSE)
        s.discard = ((1 << 36) - 1) & ~(s.concealed[0] | s.front[0] | s.center)
        want = sorted(
            GAME.layout.parse(f"set {GAME.layout.labels[PLAY_START + x][5:]} + "
                              f"{GAME.layout.labels[PLAY_START + y][5:]}")
            for x, y in itertools.combinations(sorted(hand + front), 2) if oracle_kind(x, y, rem)
        )
        assert GAME.legal_actions(s)[2:] == want


def test_nothing_leaves_the_remaining_card_and_skips_the_play():
    s = choose_position("9LK", pile=("5SV",))
    act(GAME, s, "nothing")
    # The turn ended at once: remaining card still in the center, pile top revealed beside it.
    assert s.center == m("9LK", "5SV") and s.seat == 1 and s.phase == Phase.DISCARD
    assert s.concealed[0] == m(*HAND0) and not s.pile
    assert [e[0] for e in s.events] == ["nothing", "reveal"]


# ------------------------------------------------------------------ step 3 and the reveal
def test_reveal_puts_the_pile_top_in_the_center_and_passes_the_turn():
    s = choose_position("9LK", pile=("6MV", "5SV"))  # top card is the last: Discovery
    act(GAME, s, "take")
    act(GAME, s, "play Forest")
    assert s.center == m("5ML", "5SV") and s.pile == [c("6MV")]
    assert s.seat == 1 and s.phase == Phase.DISCARD and s.turn == 2
    assert s.events[-1] == ("reveal", 0, c("5SV"))


def test_tie_when_the_draw_pile_is_empty_at_the_reveal():
    s = choose_position("9LK", pile=())
    act(GAME, s, "take")
    assert act(GAME, s, "play Merchant") == (0.0, 0.0)
    assert GAME.is_over(s) and s.winner == -1 and s.reason == REASON_EMPTY_PILE
    assert GAME.legal_actions(s) == [] and GAME.returns(s) == (0.0, 0.0)
    t = choose_position("9LK", pile=())
    assert act(GAME, t, "nothing") == (0.0, 0.0) and t.reason == REASON_EMPTY_PILE
    assert GAME.outcome(t)["result"] == "tie"


def test_third_set_wins_at_once_and_no_card_is_played():
    # Seat 0 holds two cards after two Sets; the remaining card completes a third Set.
    s = position(["4MS", "8MS"], HAND1, ["AM"], ["9LK"], phase=Phase.CHOOSE, remaining="AM",
                 sets0=(("2MK", "2SY", "2VL"), ("AV", "CV", "5SV")))
    assert act(GAME, s, "set Mountain + Diplomat") == (1.0, -1.0)
    assert GAME.is_over(s) and s.winner == 0 and s.reason == REASON_THIRD_SET
    assert GAME.legal_actions(s) == [] and s.pile == [c("9LK")]  # nothing revealed
    assert [e[0] for e in s.events] == ["set", "win"]
    assert GAME.outcome(s)["winner"] == 0 and GAME.returns(s) == (1.0, -1.0)


def test_set_that_does_not_empty_the_hand_goes_on_to_the_play():
    s = choose_position("AM")
    act(GAME, s, "set Mountain + Diplomat")
    assert s.phase == Phase.PLAY and not GAME.is_over(s) and s.center == 0
    assert len(GAME.legal_actions(s)) == 6


def test_rewards_come_only_at_the_end():
    game = TetHsiGame()
    for seed in range(10):
        s = game.new_state(rng_from_seed(seed))
        rng = np.random.default_rng(seed)
        while True:
            legal = game.legal_actions(s)
            r = game.apply(s, legal[int(rng.integers(len(legal)))])
            if game.is_over(s):
                assert r in ((1.0, -1.0), (-1.0, 1.0), (0.0, 0.0))
                assert r == game.returns(s)
                break
            assert r is None and game.returns(s) == (0.0, 0.0)


def test_game_lasts_at_most_19_turns():
    game = TetHsiGame()
    for seed in range(30):
        s = game.new_state(rng_from_seed(seed))
        rng = np.random.default_rng(seed)
        while not game.is_over(s):
            legal = game.legal_actions(s)
            game.apply(s, legal[int(rng.integers(len(legal)))])
        assert s.turn <= 19 and (s.winner >= 0 or s.turn == 19)


# ------------------------------------------------------------------ hidden information
def test_observation_hides_the_opponents_concealed_cards_and_the_pile():
    s = GAME.new_state(rng_from_seed(4))
    t = GAME.clone(s)
    # Swap one of seat 1's concealed cards with a pile card: seat 0 cannot tell.
    x = next(i for i in range(36) if t.concealed[1] >> i & 1)
    y = t.pile[0]
    t.concealed[1] ^= (1 << x) | (1 << y)
    t.pile[0] = x
    assert np.array_equal(GAME.observe(s, 0), GAME.observe(t, 0))
    assert not np.array_equal(GAME.observe(s, 1), GAME.observe(t, 1))


def test_determinize_redeals_only_the_unseen_cards():
    s = GAME.new_state(rng_from_seed(8))
    for a in (GAME.legal_actions(s)[0], TAKE):
        GAME.apply(s, a)
    unseen = s.concealed[1] | sum(1 << x for x in s.pile)
    changed = False
    for k in range(10):
        d = GAME.determinize(s, 0, np.random.default_rng(k))
        assert d.concealed[0] == s.concealed[0] and d.front == s.front and d.center == s.center
        assert d.discard == s.discard and d.events == s.events
        assert d.concealed[1].bit_count() == s.concealed[1].bit_count() and len(d.pile) == len(s.pile)
        assert d.concealed[1] | sum(1 << x for x in d.pile) == unseen
        changed |= d.concealed[1] != s.concealed[1]
    assert changed


# ------------------------------------------------------------------ state tools and actions
def test_state_json_round_trip_clone_and_equality():
    s = choose_position("AM")
    act(GAME, s, "set Mountain + Diplomat")
    data = GAME.to_json(s)
    assert GAME.from_json(data) == s and GAME.clone(s) == s
    t = GAME.clone(s)
    GAME.apply(t, GAME.legal_actions(t)[0])
    assert t != s


def test_from_json_rejects_broken_states():
    data = GAME.to_json(GAME.new_state(rng_from_seed(1)))
    data["pile"] = data["pile"][1:]
    with pytest.raises(ValueError, match="in no zone"):
        GAME.from_json(data)
    data = GAME.to_json(GAME.new_state(rng_from_seed(1)))
    data["discard"] = [data["pile"][0]]
    with pytest.raises(ValueError, match="both in"):
        GAME.from_json(data)


def test_action_labels_are_unique_and_parse_back():
    layout = GAME.layout
    assert layout.n == 704 and len(set(layout.labels)) == 704
    for a in range(layout.n):
        assert GAME.str_to_action(GAME.action_to_str(a)) == a
    assert GAME.action_to_str(layout.start("set")) == "set Ace of Moons + Ace of Suns"


def test_illegal_action_raises_naming_it_and_leaves_the_state_unchanged():
    s = position(HAND0, HAND1, ["9LK", "9VY"], ["5SV"])
    before = GAME.to_json(s)
    want = r"illegal action 36 \(take\); legal: 28 \(discard Darkness\), 29 \(discard Merchant\)"
    with pytest.raises(IllegalActionError, match=want):
        GAME.check_action(s, TAKE)
    assert GAME.to_json(s) == before


@pytest.mark.parametrize("seat", [np.int64(1), np.uint8(1), 1])
def test_numpy_first_player_is_accepted_and_stored_as_a_python_int(seat):
    game = TetHsiGame(first_player=seat)
    assert type(game.config.first_player) is int and game.config.first_player == 1
    assert json.loads(json.dumps(game.config_dict())) == {"first_player": 1}
    assert game.current_seat(game.new_state(rng_from_seed(0))) == 1
