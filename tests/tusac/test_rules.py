"""One test per Tu Sac rule and ruling (``tusac_env/README.md``, "Rules summary" and
"Rules choices"), on hand-built positions.

Expected values are worked by hand from the rule text (trash counts, payments).
"""

from __future__ import annotations

import pytest

from tests.tusac.helpers import hand, pile, rest_of_deck, ttype
from tusac_env.rules import TuSacGame

# Eight cards nobody holds in these positions, so hitting them triggers no claim.
QUIET = "gG gM wM wG wG wM gG gM"


def game(n: int = 2, **kw) -> TuSacGame:
    return TuSacGame(num_players=n, **kw)


def act(g: TuSacGame, s, label: str) -> None:
    a = g.str_to_action(label)
    g.check_action(s, a)
    g.apply(s, a)


def labels(g: TuSacGame, s) -> list[str]:
    return [g.action_to_str(a) for a in g.legal_actions(s)]


def kinds(s, seat: int) -> list[str]:
    return [k for k, _ in s.public[seat]]


# ----------------------------------------------------------------- hand-built positions
def test_position_fills_in_the_rest_of_the_deck_under_the_given_pile():
    g = game()
    s = g.position([hand("rC wK"), hand("gN yP")], pile(QUIET))
    # Worked by hand: the blocks and QUIET hold rC wK gN yP once and gG gM wM wG twice, so
    # under QUIET go 112 - 4 - 8 = 100 cards in type order, four of every other type.
    short = {"rC": 1, "wK": 1, "gN": 1, "yP": 1, "gG": 2, "gM": 2, "wM": 2, "wG": 2}
    given = {ttype(c): k for c, k in short.items()}
    under = [t for t in range(28) for _ in range(4 - given.get(t, 0))]
    assert len(under) == 100 and len(s.draw) == 112 - 4
    assert s.draw == under + pile(QUIET) and s.draw[:4] == [ttype("rK")] * 4
    g.validate(s)
    act(g, s, "discard red cannon")
    act(g, s, "hit")
    assert s.active == ttype("gG")  # the given pile is the top: it is hit first


def test_position_fills_in_nothing_of_a_quan_or_of_the_dead_pile():
    g = game()
    blocks, draw = [hand("rC wK"), hand("gR gR gR gR yN")], pile(QUIET)
    dead = [0] * 28
    dead[ttype("yN")] = 3  # with the one in player_1's block: all four yN are placed
    s = g.position(blocks, draw, dead=dead)
    assert s.public[1] == [["quan", [ttype("gR")] * 4]] and s.dead == dead
    assert ttype("gR") not in s.draw and ttype("yN") not in s.draw
    assert len(s.draw) == 112 - 2 - 5 - 3
    whole = g.position(blocks, draw, dead=rest_of_deck(blocks, draw))
    assert whole.draw == draw  # nothing left out: nothing filled in
    g.validate(whole)


def test_position_refuses_a_fifth_card():
    with pytest.raises(ValueError, match="more than 4 copies"):
        game().position([hand("gG gG gG"), hand("gG")], pile(QUIET))


# ----------------------------------------------------------------- deal and blocks
def test_quan_revealed_at_deal_into_public_block():
    g = game()
    s = g.position([hand("rC wK yP"), hand("gR gR gR gR yN wN")], pile(QUIET))
    assert s.public[1] == [["quan", [ttype("gR")] * 4]]
    assert s.private[1] == hand("yN wN")
    assert ("quan", 1, ttype("gR")) in s.events


def test_khap_counts_are_public_and_khap_types_private():
    g = game()
    s = g.position([hand("rC wK yP"), hand("gR gR gR yN wN")], pile(QUIET))
    assert ("khaps", 1, 1) in s.events
    obs0 = g.obs_spec.unpack(g.observe(s, 0))
    obs1 = g.obs_spec.unpack(g.observe(s, 1))
    assert obs0["khap_counts"].tolist() == [0, 1]
    assert obs1["khap_types"][ttype("gR")] == 1 and obs0["khap_types"].sum() == 0


def test_khap_is_never_trash_and_never_discarded():
    g = game()
    s = g.position([hand("gR gR gR yN wN rK"), hand("rC wK yP")], pile(QUIET))
    assert s._trash[0] == 2
    assert labels(g, s) == ["discard yellow knight", "discard white knight"]


def test_first_player_wins_at_once_with_no_trash():
    g = game()
    s = g.position([hand("rK rG rM gP gP"), hand("rC wK yP")], pile(QUIET))
    assert g.is_over(s) and s.winner == 0 and s.result == "first_hand_win"
    # value: kgm 1 + pair 0 = 1 -> (3 + 1) + 10 = 14, and no winning card so no penalty
    assert s.win_card == -1 and s.penalized == -1 and s.payments == [[1, 0, 14, "win"]]


def test_first_player_starts_by_discarding():
    g = game(3, first_player=2)
    s = g.position([hand("wK"), hand("wK"), hand("rC gN wK")], pile(QUIET), first=2)
    assert s.current == 2 and labels(g, s) == ["discard red cannon", "discard green knight"]


# ----------------------------------------------------------------- trash reduction
def test_discard_refused_when_it_does_not_lower_trash():
    g = game()
    s = g.position([hand("gR gR gC wP"), hand("rC wK yP")], pile(QUIET))
    assert s._trash[0] == 2
    before = g.to_json(s)
    with pytest.raises(ValueError, match="discard green rook"):
        g.check_action(s, g.str_to_action("discard green rook"))
    assert g.to_json(s) == before
    assert labels(g, s) == ["discard green cannon", "discard white pawn"]


def test_meld_refused_when_it_raises_trash():
    g = game()
    # player 1 holds yC yC yR yN gP: trash 2 (rcn + yC, gP). The active yC as a
    # triple would leave yR yN gP (trash 3): refused; as a pair or rook+cannon+knight: trash 1.
    s = g.position([hand("yC wK"), hand("yC yC yR yN gP")], pile(QUIET))
    act(g, s, "discard yellow cannon")
    assert s.current == 1 and s._trash[1] == 2
    assert labels(g, s) == ["meld pair", "meld yellow rook+cannon+knight", "hit"]


def test_khap_card_refused_in_rook_cannon_knight_meld():
    g = game()
    s = g.position([hand("wN rK"), hand("wC wC wC wR gP")], pile(QUIET))
    act(g, s, "discard white knight")
    assert s.current == 1 and labels(g, s) == ["hit"]


# ----------------------------------------------------------------- melds and flow
def test_single_king_meld_by_current_player():
    g = game()
    # player 0 keeps a trash card (yN) so that it cannot win with the king itself
    s = g.position([hand("rC yN wK"), hand("gN yP wP")], pile("rK " + QUIET))
    act(g, s, "discard red cannon")
    act(g, s, "hit")
    assert s.active == ttype("rK") and labels(g, s) == ["meld single king", "pass"]
    act(g, s, "meld single king")
    assert s.public[1] == [["king", [ttype("rK")]]] and labels(g, s)[0].startswith("discard")


def test_three_pawn_melds_indexed_by_missing_color():
    g = game()
    s = g.position([hand("rP rK"), hand("yP gP wN")], pile(QUIET))
    act(g, s, "discard red pawn")
    assert labels(g, s) == ["meld three pawns without white", "hit"]
    act(g, s, "meld three pawns without white")
    assert s.public[1] == [["pawns3", sorted([ttype("rP"), ttype("yP"), ttype("gP")])]]


def test_three_pawn_meld_refused_when_it_raises_trash():
    g = game()
    # yP gP wP gN: pawns3 + gN (trash 1); rP with two of them leaves a lone pawn (trash 2),
    # rP with all three (four pawns) keeps trash 1.
    s = g.position([hand("rP rK"), hand("yP gP wP gN")], pile(QUIET))
    act(g, s, "discard red pawn")
    assert labels(g, s) == ["meld four pawns", "hit"]


def test_hit_moves_active_card_to_dead_pile():
    g = game()
    s = g.position([hand("rC wK"), hand("gN yP")], pile(QUIET))
    act(g, s, "discard red cannon")
    act(g, s, "hit")
    assert s.dead[ttype("rC")] == 1 and s.active == ttype("gG") and s.active_from == 1
    assert labels(g, s) == ["pass"]


def test_pass_hands_the_hit_card_to_the_next_player():
    g = game(3)
    s = g.position([hand("rC wK"), hand("gN yP"), hand("yR yN wP")], pile("yC " + QUIET))
    act(g, s, "discard red cannon")
    act(g, s, "hit")
    act(g, s, "pass")
    assert s.current == 2 and s.active == ttype("yC") and s.active_passed
    assert labels(g, s) == ["meld yellow rook+cannon+knight", "hit"]
    obs = g.obs_spec.unpack(g.observe(s, 2))
    assert obs["active_passed"] == 1 and obs["active_from"].tolist() == [0, 0, 1]
    assert obs["active_how"].tolist() == [0, 1]


def test_no_claims_rechecked_after_a_pass():
    g = game(3)
    # player 1 hits gC while holding gC gC: no pair claim for the current player;
    # after the pass, player 1 is no longer current but the card is not re-claimed.
    s = g.position([hand("rC wK"), hand("gC gC yP wN"), hand("yR yN wP")], pile("gC " + QUIET))
    act(g, s, "discard red cannon")
    act(g, s, "hit")
    assert s.current == 1 and "meld triple" in labels(g, s)
    act(g, s, "pass")
    assert s.current == 2 and s.private[1][ttype("gC")] == 2
    assert not any(e[0] == "claim" for e in s.events)


def test_hit_with_seven_cards_left_is_a_draw():
    g = game()
    blocks, draw = [hand("rC wK"), hand("gN yP")], pile("gG gM wM wG wG wM gG")
    s = g.position(blocks, draw, dead=rest_of_deck(blocks, draw))
    assert len(s.draw) == 7
    act(g, s, "discard red cannon")
    act(g, s, "hit")
    assert g.is_over(s) and s.result == "draw" and g.returns(s) == (0.0, 0.0)
    assert s.payments == [] and g.outcome(s)["winner"] is None


def test_hit_with_eight_cards_left_draws_a_card():
    g = game()
    blocks, draw = [hand("rC wK"), hand("gN yP")], pile(QUIET)
    s = g.position(blocks, draw, dead=rest_of_deck(blocks, draw))
    act(g, s, "discard red cannon")
    act(g, s, "hit")
    assert not g.is_over(s) and len(s.draw) == 7 and s.active == ttype("gG")


# ----------------------------------------------------------------- claims
def test_win_claim_on_discard():
    g = game(3)
    s = g.position([hand("rC wK"), hand("gP"), hand("rR rN gK")], pile(QUIET))
    act(g, s, "discard red cannon")
    assert s.winner == 2 and s.win_card == ttype("rC") and kinds(s, 2) == ["rcn"]
    assert ("claim", 2, "win", ttype("rC")) in s.events


def test_win_beats_khui():
    g = game(3)
    # player 1 holds a Khap of rC, player 2 can win with it: the win comes first.
    s = g.position([hand("rC wK"), hand("rC rC rC yP gN"), hand("rR rN gK")], pile(QUIET))
    act(g, s, "discard red cannon")
    assert s.winner == 2 and s.private[1][ttype("rC")] == 3


def test_win_beats_pair():
    g = game(3)
    s = g.position([hand("rC wK"), hand("rC rC yP gN"), hand("rR rN gK")], pile(QUIET))
    act(g, s, "discard red cannon")
    assert s.winner == 2 and s.private[1][ttype("rC")] == 2


def test_khui_and_pair_cannot_meet_on_one_card():
    # A Khap (3) and a pair (2) of the active card's type would need 6 copies.
    g = game(3)
    with pytest.raises(ValueError, match="more than 4 copies"):
        g.position([hand("rC wK"), hand("rC rC yP"), hand("rC rC rC gN")], pile(QUIET))


def test_current_player_wins_before_later_seats():
    g = game(3)
    s = g.position([hand("rC wK"), hand("rR rN gK"), hand("rR rN wK")], pile(QUIET))
    act(g, s, "discard red cannon")
    assert s.winner == 1


def test_win_claims_follow_turn_order_after_the_current_player():
    g = game(4)
    s = g.position([hand("rC wK"), hand("gP yN"), hand("rR rN gK"), hand("rR rN wK")], pile(QUIET))
    act(g, s, "discard red cannon")
    assert s.winner == 2


def test_win_claim_on_hit_card_by_hitter_first():
    g = game(3)
    s = g.position([hand("rC wK"), hand("yR yN gK"), hand("yR yN wK")], pile("yC " + QUIET))
    act(g, s, "discard red cannon")
    act(g, s, "hit")
    assert s.winner == 1 and s.win_how == 2 and s.penalized == -1


def test_winning_meld_takes_the_highest_hand_value():
    g = game()
    # rP wins as a pair (rest: pawns3 x2, value 2) or in four pawns (rest: four pawns,
    # value 2 + 2 = 4); four pawns is used.
    s = g.position([hand("rP wK"), hand("rP yP yP gP gP wP wP")], pile(QUIET))
    act(g, s, "discard red pawn")
    assert s.winner == 1 and kinds(s, 1) == ["pawns4"] and s.value == 4


def test_khui_claim_by_khap_owner():
    g = game(3)
    s = g.position([hand("rC yN wK"), hand("gN gC"), hand("rC rC rC gP wP")], pile(QUIET))
    act(g, s, "discard red cannon")
    assert s.public[2] == [["khui", [ttype("rC")] * 4]]
    assert s.current == 2 and labels(g, s) == ["discard green pawn", "discard white pawn"]
    assert ("claim", 2, "khui", ttype("rC")) in s.events and s.last_claim == ["khui", 2]


def test_khui_claim_by_current_player_and_by_hitter():
    g = game()
    s = g.position([hand("rC wK"), hand("gC gC gC yP wN")], pile("gC " + QUIET))
    act(g, s, "discard red cannon")
    act(g, s, "hit")
    assert kinds(s, 1) == ["khui"] and s.current == 1 and labels(g, s)[0].startswith("discard")


def test_pair_priority_claim_takes_the_turn():
    g = game(3)
    s = g.position([hand("rC yN wK"), hand("gN gC"), hand("rC rC gP gN")], pile(QUIET))
    act(g, s, "discard red cannon")
    assert s.public[2] == [["triple", [ttype("rC")] * 3]] and s.current == 2
    assert ("claim", 2, "pair", ttype("rC")) in s.events


def test_pair_priority_not_for_the_current_player():
    g = game(3)
    s = g.position([hand("rC yN wK"), hand("rC rC gP wP"), hand("gN gC")], pile(QUIET))
    act(g, s, "discard red cannon")
    assert s.current == 1 and "meld triple" in labels(g, s) and s.public[1] == []


def test_pair_priority_never_takes_a_king():
    g = game(3)
    s = g.position([hand("rC yN wK"), hand("gN yP"), hand("rK rK gP wC")], pile("rK " + QUIET))
    act(g, s, "discard red cannon")
    act(g, s, "hit")
    assert s.current == 1 and s.private[2][ttype("rK")] == 2


def test_pair_priority_not_when_it_raises_trash():
    g = game(3)
    # player 2: rC rC rR rN gP = rcn + rC + gP (trash 2); the triple leaves rR rN gP (3).
    s = g.position([hand("rC yN wK"), hand("gN gC"), hand("rC rC rR rN gP")], pile(QUIET))
    act(g, s, "discard red cannon")
    assert s.current == 1 and s.public[2] == []


def test_pair_priority_waiting_hand_two_pawns():
    g = game(3)
    s = g.position([hand("rC yN wK"), hand("gN gC"), hand("rC rC yP gP")], pile(QUIET))
    act(g, s, "discard red cannon")
    assert s.current == 1 and s.public[2] == []


@pytest.mark.parametrize("pair", ["gR gC", "gR gN", "gC gN"])
def test_pair_priority_waiting_hand_rook_cannon_knight_of_one_color(pair):
    g = game(3)
    s = g.position([hand("rC yN wK"), hand("wN wC"), hand("rC rC " + pair)], pile(QUIET))
    act(g, s, "discard red cannon")
    assert s.current == 1 and s.public[2] == []


def test_pair_priority_waiting_hand_needs_one_color():
    g = game(3)
    s = g.position([hand("rC yN wK"), hand("wN wC"), hand("rC rC gR yC")], pile(QUIET))
    act(g, s, "discard red cannon")
    assert s.current == 2 and kinds(s, 2) == ["triple"]


def test_pair_priority_other_two_trash_cards_claim():
    g = game(3)
    s = g.position([hand("rC yN wK"), hand("wN wC"), hand("rC rC yP yN")], pile(QUIET))
    act(g, s, "discard red cannon")
    assert s.current == 2 and kinds(s, 2) == ["triple"]


# ----------------------------------------------------------------- scoring
def test_payment_plain_win_amount():
    g = game(3)
    s = g.position([hand("rC wK"), hand("gP yN"), hand("rR rN gK")], pile(QUIET))
    act(g, s, "discard red cannon")
    # value: rcn 1 + single king 1 = 2 -> (3 + 2) + 10 = 15 from each loser
    assert s.value == 2 and s.amount == 15
    assert s.payments == [[0, 2, 15, "win"], [1, 2, 15, "win"]]
    assert g.returns(s) == (-15.0, -15.0, 30.0)


def test_payment_doubled_with_a_khui():
    g = game()
    s = g.position([hand("rC wK"), hand("rC rC rC gK")], pile(QUIET))
    act(g, s, "discard red cannon")
    # the winning meld is the Khui: value 6 + 1 = 7 -> (3 + 7) x 2 + 10 = 30, plus the
    # winner does not collect side payments for its own Khui.
    assert kinds(s, 1) == ["khui"] and s.value == 7 and s.amount == 30
    assert s.payments == [[0, 1, 30, "win"]]


def test_payment_doubled_with_a_quan():
    g = game()
    s = g.position([hand("rC wK"), hand("wP wP wP wP rR rN gK")], pile(QUIET))
    act(g, s, "discard red cannon")
    # quan 8 + rcn 1 + king 1 = 10 -> (3 + 10) x 2 + 10 = 36
    assert s.value == 10 and s.amount == 36 and g.returns(s) == (-36.0, 36.0)


def test_side_payments_for_quan_khui_and_khap():
    g = game(4)
    s = g.position(
        [hand("rC wK"), hand("rR rN gK"), hand("yG yG yG yG yM yM yM wC gN"), hand("rM rM rM wN yN")],
        pile(QUIET),
    )
    act(g, s, "discard red cannon")
    assert s.winner == 1 and s.amount == 15
    # P2: Quan paid 8 by P0, P1 (winner), P3; Khap 3 by P0, P3. P3: Khap 3 by P0, P2.
    assert g.outcome(s)["net_payments"] == [-29, 37, 12, -20]
    reasons = sorted((p, q, a, r) for p, q, a, r in s.payments if r != "win")
    assert reasons == sorted([
        (0, 2, 8, "quan"), (1, 2, 8, "quan"), (3, 2, 8, "quan"),
        (0, 2, 3, "khap"), (3, 2, 3, "khap"), (0, 3, 3, "khap"), (2, 3, 3, "khap"),
    ])


def test_side_payment_for_a_losers_khui():
    g = game(3)
    # P2 makes a Khui on P0's rC, discards wP; P0 then wins on ... no: P1 wins on P2's wP.
    s = g.position([hand("rC yN wK"), hand("yP gP gK"), hand("rC rC rC wP gN")], pile(QUIET))
    act(g, s, "discard red cannon")
    assert kinds(s, 2) == ["khui"] and s.current == 2
    act(g, s, "discard white pawn")
    assert s.winner == 1
    # P1: pawns3 1 + king 1 = 2 -> 15 each. P2's Khui: 6 from P0 and from P1 (winner).
    assert g.outcome(s)["net_payments"] == [-21, 24, -3]


def test_reward_scale_multiplies_payments():
    g = game(3, reward_scale=0.5)
    s = g.position([hand("rC wK"), hand("gP yN"), hand("rR rN gK")], pile(QUIET))
    act(g, s, "discard red cannon")
    assert g.returns(s) == (-7.5, -7.5, 15.0)


# ----------------------------------------------------------------- penalty rule
PENALTY_HANDS = [hand("rC gN gR wK"), hand("gR gC gK"), hand("yP wN")]


def test_penalty_falls_on_a_non_worst_discard():
    g = game(3)
    s = g.position(PENALTY_HANDS, pile(QUIET))
    # outs: rC 3 (pairs), gN 3 + 4 (gC with gR) = 7, gR 7: rC alone is worst.
    assert g.worst_cards(s) == [ttype("rC")]
    act(g, s, "discard green knight")
    assert s.winner == 1 and s.penalized == 0
    # value rcn 1 + king 1 = 2 -> 15 per loser, all paid by the discarder
    assert s.payments == [[0, 1, 15, "penalty for player_0"], [0, 1, 15, "penalty for player_2"]]
    assert ("penalty", 0, 30) in s.events


def test_no_penalty_on_a_worst_discard():
    g = game(3)
    s = g.position([hand("rC gN gR wK"), hand("rR rN gK"), hand("yP wN")], pile(QUIET))
    act(g, s, "discard red cannon")
    assert s.winner == 1 and s.penalized == -1
    assert s.payments == [[0, 1, 15, "win"], [2, 1, 15, "win"]]


def test_penalty_rule_can_be_turned_off():
    g = game(3, penalty_rule=False)
    s = g.position(PENALTY_HANDS, pile(QUIET))
    act(g, s, "discard green knight")
    assert s.penalized == -1 and s.payments == [[0, 1, 15, "win"], [2, 1, 15, "win"]]


def test_worst_hint_in_observation_only_when_discarding():
    g = game(3)
    s = g.position(PENALTY_HANDS, pile(QUIET))
    obs = g.obs_spec.unpack(g.observe(s, 0))
    assert obs["worst"].nonzero()[0].tolist() == [ttype("rC")]
    assert g.obs_spec.unpack(g.observe(s, 1))["worst"].sum() == 0


# ----------------------------------------------------------------- config
@pytest.mark.parametrize("bad", [
    {"num_players": 5}, {"num_players": 1}, {"penalty_rule": "yes"}, {"first_player": 4},
    {"first_player": "last"}, {"reward_scale": 0}, {"reward_scale": -1.0},
])
def test_bad_config_raises(bad):
    with pytest.raises(ValueError, match=str(next(iter(bad.values())))):
        TuSacGame(**bad)


def test_random_first_player_comes_from_the_seed():
    from setgames.game import rng_from_seed

    g = TuSacGame(first_player="random")
    firsts = {g.new_state(rng_from_seed(seed)).first for seed in range(40)}
    assert firsts == {0, 1, 2, 3}
    assert g.new_state(rng_from_seed(7)).first == g.new_state(rng_from_seed(7)).first


@pytest.mark.parametrize("bad", [10**400, 1e308, 1e6 * 1.5, float("inf"), float("nan"), 0, -1.0, 1e-7,
                                 True, "1.0", None])
def test_reward_scale_is_finite_and_within_its_documented_range(bad):
    with pytest.raises(ValueError, match=r"reward_scale .* must be a finite number in \[1e-06, 1e\+06\]"):
        TuSacGame(reward_scale=bad)


@pytest.mark.parametrize("bad", [{"num_players": 2.0}, {"num_players": True}, {"penalty_rule": 1},
                                 {"first_player": 1.0}, {"first_player": True}, {"first_player": 4}])
def test_options_of_the_wrong_type_are_value_errors(bad):
    key = next(iter(bad))
    with pytest.raises(ValueError, match=f"^{key} "):
        TuSacGame(**bad)


def test_numpy_options_are_converted_and_the_largest_scale_gives_finite_rewards():
    import json
    import math

    import numpy as np

    from setgames.game import rng_from_seed

    game = TuSacGame(num_players=np.int64(2), first_player=np.int32(1), reward_scale=np.int64(10**6))
    cfg = game.config_dict()
    assert cfg == {"num_players": 2, "penalty_rule": True, "first_player": 1, "reward_scale": 1e6}
    assert json.loads(json.dumps(cfg)) == cfg and game.num_players == 2
    ends = 0
    for seed in range(20):
        state = game.new_state(rng_from_seed(seed))
        while not game.is_over(state):
            game.apply(state, game.legal_actions(state)[0])
        rets = game.returns(state)
        assert all(math.isfinite(r) for r in rets) and abs(sum(rets)) < 1e-3 * (1 + max(map(abs, rets)))
        ends += any(rets)
    assert ends > 0
