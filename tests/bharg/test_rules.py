"""Bharg rules, one test per rule (``bharg_env/README.md``, "Rules summary" and "Rules choices")."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bharg_env.rules import DISCARD0, DRAW_DECK, MAX_TURNS, OBS_SPEC, TAKE_DISCARD, BhargGame
from setgames.game import rng_from_seed
from setgames.kernels.bharg import all_bound
from tests.bharg.helpers import cards, check_conservation, make_state, mask

# standard cards not used by the hand-built states below, to fill decks
FILLER = cards("Crown of Waves", "Crown of Leaves", "Crown of Wyrms", "Castle", "Cave")


def test_hand_sizes_are_seven_with_two_players_and_six_with_three():
    for n, size in ((2, 7), (3, 6)):
        g = BhargGame(num_players=n)
        st = g.new_state(rng_from_seed(4))
        assert [h.bit_count() for h in st.hands] == [size] * n
        check_conservation(g, st)


def test_an_ace_turned_at_the_deal_starts_the_ace_pile():
    g = BhargGame()
    seen = 0
    for seed in range(60):
        st = g.new_state(rng_from_seed(seed))
        turned = [e for e in st.events if e[0] in ("ace_pile", "start_discard")]
        # every turned card before the first non-Ace is an Ace, in pile order
        assert turned[-1][0] == "start_discard" and turned[-1][1] >= 6
        assert [e[1] for e in turned[:-1]] == st.aces and all(c < 6 for c in st.aces)
        assert st.discard == [turned[-1][1]]
        seen += bool(st.aces)
    assert seen > 0, "no seed turned an Ace at the deal"


def test_draw_from_deck_or_take_the_discard_top_then_discard_any_card_even_the_one_taken():
    g = BhargGame()
    st = g.new_state(rng_from_seed(1))
    assert g.legal_actions(st) == [DRAW_DECK, TAKE_DISCARD]
    top = st.discard[-1]
    g.apply(st, TAKE_DISCARD)
    assert st.hands[0] >> top & 1 and st.known[0] >> top & 1
    assert g.legal_actions(st) == sorted(DISCARD0 + c for c in range(45) if st.hands[0] >> c & 1)
    assert DISCARD0 + top in g.legal_actions(st)
    g.apply(st, DISCARD0 + top)
    assert st.discard[-1] == top and st.seat == 1 and not st.known[0]


def test_a_discarded_ace_goes_on_the_ace_pile():
    g = BhargGame()
    st = make_state(g, [cards("AM", "3MV", "4VL", "5SV", "6SY", "7SK", "8YK", "CS"),
                        cards("2MK", "2SY", "3SK", "3LY", "4MS", "5ML", "5YK")],
                    deck=[], discard=cards("9MS"), aces=[], phase=1)
    g.apply(st, DISCARD0 + cards("AM")[0])
    assert st.aces == cards("AM") and st.discard == cards("9MS")


def test_discarding_an_ace_changes_what_is_bound():
    g = BhargGame()
    moons = cards("2MK", "3MV", "4MS", "5ML", "6MV", "7ML", "8MS")  # every card shows Moons
    hand = [*moons, *cards("AM")]
    other = cards("9MS", "3SK", "3LY", "2SY", "4VL", "5SV", "5YK")
    st = make_state(g, [hand, other], deck=FILLER, discard=cards("6SY"), aces=cards("AS"), phase=1)
    assert not all_bound(mask(moons), 1)  # under the Ace of Suns they are not all bound
    g.apply(st, DISCARD0 + cards("AM")[0])
    assert g.is_over(st) and st.winner == 0 and st.reason == "all bound"


def test_you_cannot_win_before_discarding():
    g = BhargGame()
    moons = cards("2MK", "3MV", "4MS", "5ML", "6MV", "7ML", "8MS")
    other = cards("9MS", "3SK", "3LY", "2SY", "4VL", "5SV", "5YK")
    st = make_state(g, [moons, other], deck=[*FILLER, cards("CM")[0]], discard=cards("6SY"),
                    aces=cards("AM"))
    g.apply(st, DRAW_DECK)  # draws the Crown of Moons: eight cards, all bound
    assert all_bound(st.hands[0], 0) and not g.is_over(st)
    assert g.legal_actions(st)[0] >= DISCARD0  # still has to discard
    g.apply(st, DISCARD0 + cards("CM")[0])
    assert g.is_over(st) and st.winner == 0


def test_the_excuse_is_bound_but_binds_nothing():
    sixes = mask(cards("6MV", "6SY", "6LK"))
    excuse = 1 << 44
    assert all_bound(sixes | excuse) and all_bound(excuse)
    # Lunatic + Penitent show four suits; the Excuse does not complete a set
    assert not all_bound(mask(cards("6MV", "6SY")) | excuse)
    g = BhargGame(excuse=True)
    assert 44 in g.deck_cards and BhargGame().deck_cards == tuple(range(36))


def test_a_pawn_is_bound_by_any_of_its_three_suits():
    watchman = mask(cards("Watchman"))  # Moons, Leaves, Wyrms
    assert [all_bound(watchman, ace) for ace in range(6)] == [True, False, False, True, True, False]
    assert not all_bound(watchman)


def test_a_pawn_gives_all_three_suits_to_a_set():
    # Watchman (M, L, Y) + Ace of Suns + Crown of Waves + Ace of Knots
    assert all_bound(mask(cards("Watchman", "AS", "CV", "AK")))


def test_a_set_needs_three_or_more_cards():
    # Watchman + Light Keeper show all six suits once, but are two cards
    assert not all_bound(mask(cards("Watchman", "Light Keeper")))


WINNER = cards("6MV", "6SY", "6LK", "CV", "CK", "9MS", "3LY", "CL")  # two sets + the Crown of Leaves


def test_the_losers_score_uses_their_best_arrangement():
    g = BhargGame()
    # Loser: binding the most (Aces of Moons and Suns, Sailor, Betrayal: 4 cards) leaves
    # Desert, Journey, Diplomat = 2 + 3 + 8 = 13; binding Sailor, Diplomat, Betrayal
    # (3 cards) leaves Aces of Moons and Suns, Desert, Journey = 1 + 1 + 2 + 3 = 7.
    loser = cards("AM", "AS", "2SY", "3MV", "4VL", "8MS", "8YK")
    st = make_state(g, [WINNER, loser], deck=cards("CY", "7SK"), discard=cards("7VY"), aces=[], phase=1)
    rewards = g.apply(st, DISCARD0 + cards("CL")[0])
    assert g.is_over(st) and st.winner == 0 and st.reason == "all bound"
    assert rewards == (7.0, -7.0) and st.round_points == [7, -7] and g.returns(st) == (7.0, -7.0)


def test_scores_from_each_opponent_with_three_players():
    g = BhargGame(num_players=3)
    win_hand = cards("6MV", "6SY", "6LK", "9MS", "9VY", "9LK", "CL")
    p1 = cards("AM", "CM", "2SY", "3SK", "4VL", "5ML")  # no set: nothing but Moons twice and S, Y, V, L, K
    p2 = cards("7ML", "7SK", "7VY", "8MS", "8VL", "8YK")  # the 7s and the 8s: all bound
    st = make_state(g, [win_hand, p1, p2], deck=cards("CY", "CK"), discard=cards("CS"), aces=[], phase=1)
    rewards = g.apply(st, DISCARD0 + cards("CL")[0])
    expected_p1 = 1 + 10 + 2 + 3 + 4 + 5  # no set among p1's cards
    assert rewards == (float(expected_p1), -float(expected_p1), 0.0)
    assert sum(rewards) == 0


def test_win_reward_mode_gives_minus_one_to_each_loser_with_three_players():
    # bharg_env/README.md, rules choice 5: win/loss mode is +1 / -1, so three players sum to -1.
    g = BhargGame(num_players=3, reward="win")
    win_hand = cards("6MV", "6SY", "6LK", "9MS", "9VY", "9LK", "CL")
    st = make_state(g, [win_hand, cards("AM", "CM", "2SY", "3SK", "4VL", "5ML"),
                        cards("7ML", "7SK", "7VY", "8MS", "8VL", "8YK")],
                    deck=cards("CY", "CK"), discard=cards("CS"), aces=[], phase=1)
    assert g.apply(st, DISCARD0 + cards("CL")[0]) == (1.0, -1.0, -1.0)
    assert g.returns(st) == (1.0, -1.0, -1.0)


def test_the_reshuffle_keeps_both_top_cards():
    g = BhargGame()
    hands = [cards("2MK", "2SY", "2VL", "3MV", "3SK", "3LY", "4MS"),
             cards("4VL", "4YK", "5ML", "5SV", "5YK", "6MV", "6SY")]
    rest = [c for c in range(36) if not (mask(hands[0]) | mask(hands[1])) >> c & 1]
    aces = [c for c in rest if c < 6]
    discard = [c for c in rest if c >= 6]
    st = make_state(g, hands, deck=[], discard=discard, aces=aces)
    before_top, ace_top = discard[-1], aces[-1]
    g.apply(st, DRAW_DECK)
    assert st.discard == [before_top] and st.aces == [ace_top]
    drawn = [c for c in range(36) if st.hands[0] >> c & 1 and c not in hands[0]]
    assert sorted([*st.deck, *drawn]) == sorted(discard[:-1] + aces[:-1]) and len(drawn) == 1
    assert ("reshuffle", len(discard) + len(aces) - 2) in st.events
    check_conservation(g, st)


def test_the_reshuffle_works_for_three_players_and_is_deterministic():
    g = BhargGame(num_players=3)
    hands = [cards("2MK", "2SY", "2VL", "3MV", "3SK", "3LY"), cards("4MS", "4VL", "4YK", "5ML", "5SV", "5YK"),
             cards("6MV", "6SY", "6LK", "7ML", "7SK", "7VY")]
    used = mask(hands[0]) | mask(hands[1]) | mask(hands[2])
    rest = [c for c in range(36) if not used >> c & 1]
    st = make_state(g, hands, deck=[], discard=[c for c in rest if c >= 6], aces=[c for c in rest if c < 6])
    twin = g.clone(st)
    g.apply(st, DRAW_DECK)
    g.apply(twin, DRAW_DECK)
    assert st == twin and len(st.deck) == len(rest) - 3


def test_drawing_from_the_deck_is_illegal_when_the_reshuffle_leaves_nothing():
    g = BhargGame()
    hands = [cards("2MK", "2SY", "2VL", "3MV", "3SK", "3LY", "4MS"),
             cards("4VL", "4YK", "5ML", "5SV", "5YK", "6MV", "6SY")]
    # (no full deal leaves so few cards outside the hands: the rules layer alone, unchecked)
    st = make_state(g, hands, deck=[], discard=cards("CM"), aces=cards("AS"), fill="none", check=False)
    assert g.legal_actions(st) == [TAKE_DISCARD]
    st2 = make_state(g, hands, deck=[], discard=cards("CM", "CS"), aces=cards("AS"), fill="none",
                     check=False)
    assert g.legal_actions(st2) == [DRAW_DECK, TAKE_DISCARD]


def test_the_round_ends_as_a_truncated_draw_at_the_turn_limit():
    g = BhargGame(max_turns=3)
    st = g.new_state(rng_from_seed(0))
    last = None
    while not g.is_over(st):
        last = g.apply(st, g.legal_actions(st)[-1])
    if st.winner < 0:
        assert g.is_truncated(st) and st.turn == 3 and last == (0.0, 0.0)
        assert g.outcome(st)["reason"] == "turn limit" and g.returns(st) == (0.0, 0.0)
    truncated = 0
    for seed in range(20):
        st = g.new_state(rng_from_seed(seed))
        while not g.is_over(st):
            g.apply(st, g.legal_actions(st)[0])
        truncated += g.is_truncated(st)
    assert truncated > 0


def test_match_play_ends_at_the_target_and_the_deal_rotates():
    g = BhargGame(target_score=15)
    for seed in range(6):
        st = g.new_state(rng_from_seed(seed))
        rng = np.random.default_rng(seed)
        firsts = {}
        while not g.is_over(st):
            if st.turn == 0 and st.phase == 0:
                firsts[st.round] = st.seat
            legal = g.legal_actions(st)
            g.apply(st, legal[int(rng.integers(len(legal)))])
        assert all(seat == (r - 1) % 2 for r, seat in firsts.items())
        if not st.truncated:
            assert max(st.scores) >= 15 and st.scores[st.winner] == max(st.scores)
            assert st.reason == "target reached"
            assert sum(g.returns(st)) == 0
            # every round before the last ended below the target
            wins = [e for e in st.events if e[0] == "win"]
            assert sum(e[3] for e in wins if e[2] == st.winner) == st.scores[st.winner]


def test_match_play_continues_after_a_round_below_the_target():
    g = BhargGame(target_score=100)
    # Loser: Author + Desert + Sailor form a set; the Ace and Crown of Moons,
    # Painter and Forest stay unbound: 1 + 10 + 3 + 5 = 19.
    loser = cards("AM", "CM", "2SY", "3SK", "4VL", "5ML", "2MK")
    st = make_state(g, [WINNER, loser], deck=cards("CY", "7SK"), discard=cards("CS"), aces=[], phase=1)
    rewards = g.apply(st, DISCARD0 + cards("CL")[0])
    assert rewards == (19.0, -19.0) and not g.is_over(st)
    assert st.round == 2 and st.seat == 1 and st.scores == [19, 0] and st.phase == 0
    assert ("deal", 2, 1) in st.events
    check_conservation(g, st)


def test_taken_cards_stay_known_until_discarded():
    g = BhargGame()
    st = g.new_state(rng_from_seed(2))
    top = st.discard[-1]
    g.apply(st, TAKE_DISCARD)
    obs1 = OBS_SPEC.unpack(g.observe(st, 1))
    assert obs1["opp_known"][0][top] == 1 and obs1["opp_hand_size"].tolist() == [8, 0]
    g.apply(st, DISCARD0 + top)
    assert OBS_SPEC.unpack(g.observe(st, 1))["opp_known"].sum() == 0


def test_determinize_keeps_known_cards_with_their_holder():
    g = BhargGame()
    st = g.new_state(rng_from_seed(3))
    g.apply(st, DRAW_DECK)
    g.apply(st, g.legal_actions(st)[0])
    top = st.discard[-1]
    g.apply(st, TAKE_DISCARD)  # seat 1 takes a card seat 0 saw
    keep_top = [a for a in g.legal_actions(st) if a != DISCARD0 + top]
    g.apply(st, keep_top[0])  # and keeps it
    rng = np.random.default_rng(0)
    changed = False
    for _ in range(10):
        det = g.determinize(st, 0, rng)
        assert det.hands[0] == st.hands[0] and det.known == st.known
        assert det.hands[1] & st.known[1] == st.known[1]
        check_conservation(g, det)
        changed |= det.hands[1] != st.hands[1] or det.deck != st.deck
        assert det.seed != st.seed
    assert changed


def test_state_json_round_trip_and_clone_are_exact():
    g = BhargGame(num_players=3, excuse=True, pawns=True, courts=True, target_score=20)
    st = g.new_state(rng_from_seed(9))
    for _ in range(40):
        g.apply(st, g.legal_actions(st)[0])
    again = g.from_json(json.loads(json.dumps(g.to_json(st))))
    assert again == st and g.clone(st) == st and g.clone(st) is not st


@pytest.mark.parametrize("bad", [
    {"num_players": 4}, {"num_players": True}, {"excuse": 1}, {"pawns": "yes"}, {"courts": None},
    {"target_score": 0}, {"target_score": 500}, {"target_score": 2.5}, {"max_turns": 0},
    {"max_turns": 1.5}, {"reward": "points"},
])
def test_bad_config_raises_at_construction(bad):
    key, value = next(iter(bad.items()))
    with pytest.raises(ValueError, match=f"{key} {value!r}"):
        BhargGame(**bad)


def test_extended_cards_are_in_the_deck_when_enabled():
    assert BhargGame(pawns=True).deck_cards == tuple(range(40))
    assert BhargGame(courts=True).deck_cards == (*range(36), 40, 41, 42, 43)
    assert len(BhargGame(excuse=True, pawns=True, courts=True).deck_cards) == 45


def test_action_labels_and_parser():
    g = BhargGame()
    assert g.action_to_str(0) == "draw deck" and g.action_to_str(1) == "take discard"
    assert g.action_to_str(DISCARD0 + 21) == "discard Chance Meeting"
    assert g.str_to_action("Discard chance meeting") == DISCARD0 + 21
    assert g.str_to_action("discard 7ML") == DISCARD0 + 21
    assert all(g.str_to_action(g.action_to_str(a)) == a for a in range(g.num_actions))
    with pytest.raises(ValueError, match="unknown"):
        g.str_to_action("discard nothing")


@pytest.mark.parametrize("bad", [
    {"num_players": 2.0}, {"num_players": np.float64(3)}, {"num_players": "2"},
    {"max_turns": 10**12}, {"max_turns": MAX_TURNS + 1}, {"max_turns": np.float32(10)},
    {"target_score": True}, {"target_score": np.float64(50)}, {"excuse": np.int64(1)},
    {"reward": ["win"]}, {"reward": None},
])
def test_options_of_the_wrong_type_or_beyond_their_maximum_are_value_errors(bad):
    key = next(iter(bad))
    with pytest.raises(ValueError, match=f"^{key} "):
        BhargGame(**bad)


def test_max_turns_maximum_is_accepted_and_bounds_the_tables():
    game = BhargGame(max_turns=MAX_TURNS)
    assert game.config.max_turns == MAX_TURNS and len(game._turns_left) == MAX_TURNS + 1


def test_numpy_options_are_converted_so_the_record_is_json():
    from bharg_env import raw_env
    from setgames.records import replay

    env = raw_env(num_players=np.int64(3), max_turns=np.int32(50), target_score=np.uint8(20),
                  excuse=np.bool_(True))
    cfg = env.game.config_dict()
    assert cfg["num_players"] == 3 and all(type(cfg[k]) is int for k in ("num_players", "max_turns",
                                                                        "target_score"))
    assert type(cfg["excuse"]) is bool and env.game.num_players == 3
    env.reset(seed=2)
    while env.agents and not (env.terminations[env.agent_selection]
                              or env.truncations[env.agent_selection]):
        env.step(int(np.flatnonzero(env._mask)[-1]))
    rec = json.loads(json.dumps(env.record()))  # raises on a numpy value
    assert replay(rec).state == env.game_state
