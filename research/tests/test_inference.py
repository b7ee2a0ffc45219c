"""Tu Sac re-deals consistent with the claims and melds nobody made."""

from __future__ import annotations

import numpy as np
import pytest

from research.tusac_information.inference import consistent_determinize, hand_history, violations
from setgames.game import rng_from_seed
from tests.tusac.greedy_play import greedy_positions
from tusac_env.rules import TuSacGame

RR, RC, RN, RP = 3, 4, 5, 6  # red rook, cannon, knight, pawn (type = color * 7 + piece)
YR, GR, WR = 10, 17, 24  # yellow, green, white rook
YG = 8  # yellow guard


def _block(*types: int) -> list[int]:
    out = [0] * 28
    for t in types:
        out[t] += 1
    return out


@pytest.mark.parametrize("n", [2, 3, 4])
def test_true_hands_of_players_who_meld_when_they_can_contradict_nothing(n):
    checked = 0
    for _game, state in greedy_positions(n, range(8)):
        for seat in range(n):
            assert violations(state.events, seat, state.private[seat], n, stop_at=99) == 0
            checked += 1
    assert checked > 50


def test_hand_history_adds_back_discards_and_meld_cards():
    events = [("khaps", 1, 0), ("discard", 0, RR), ("meld", 1, "triple", [RR, RR, RR]),
              ("discard", 1, YG)]
    # Seat 1 melded the active red rook with two private ones, then discarded a yellow guard.
    assert hand_history(events, 1, _block(RP)) == _block(RP, RR, RR, YG)


def test_khui_not_claimed_rules_out_a_khap_of_the_discarded_type():
    events = [("khaps", 1, 1), ("discard", 0, RP)]
    khap_block = _block(RP, RP, RP, YR, GR, WR)  # pawns Khap; three rooks of different colors trash
    assert violations(events, 1, khap_block, 2) == 1
    assert violations(events, 1, _block(RC, RC, RC, YR, GR, WR), 2) == 0


def test_pair_not_claimed_rules_out_a_claimable_pair_but_not_for_the_current_player():
    # Seat 0 discards a red rook; seat 1 is the current player, seat 2 is not.
    events = [("khaps", 1, 0), ("khaps", 2, 0), ("discard", 0, RR)]
    pair = _block(RR, RR, YG, GR + 3)  # the pair plus two unrelated trash cards
    assert violations(events, 2, pair, 3) == 1  # seat 2 would have claimed the triple
    assert violations(events, 1, pair, 3) == 0  # the current player never pair-claims


def test_hit_or_pass_rules_out_a_legal_meld_of_the_card():
    base = [("khaps", 1, 0), ("discard", 0, RR)]
    # Seat 1 holds cannon + knight of red: the red rook would complete rook+cannon+knight.
    can_meld = _block(RC, RN, YG, YG + 7)
    hit = [*base, ("hit", 1, GR, RR)]
    assert violations(hit, 1, can_meld, 2, stop_at=9) == 1
    assert violations(hit, 1, _block(YG, YG + 7, GR + 2, WR + 2), 2) == 0
    # Seat 1 hit a red rook from the pile, nobody claimed it, and seat 1 passed it on.
    # No meld of the yellow guard (hitting it was right), four trash cards (no win on the rook).
    no_guard = _block(RC, RN, GR + 2, WR + 2)
    passed = [("khaps", 1, 0), ("discard", 0, YG), ("hit", 1, RR, YG), ("pass", 1, RR)]
    assert violations(passed, 1, no_guard, 2, stop_at=9) == 1
    assert violations(passed[:3], 1, no_guard, 2, stop_at=9) == 0


def test_a_block_that_adds_back_to_an_unannounced_triple_cannot_have_been_dealt():
    events = [("khaps", 1, 0), ("discard", 1, RR)]
    assert violations(events, 1, _block(RR, RR, YG), 2) >= 1  # it would have held 3 red rooks
    assert violations([("khaps", 1, 0), ("discard", 1, YG)], 1, _block(RR, RR), 2) == 0


def _contradicted(state, det, seat):
    n = state.num_players
    return sum(1 for o in range(n) if o != seat and violations(state.events, o, det.private[o], n))


def test_consistent_determinize_improves_on_its_first_redeal_and_keeps_the_seats_view():
    fewer = 0
    positions = list(greedy_positions(4, range(4), every=6))[:16]
    for game, state in positions:
        seat = state.current
        first = game.determinize(state, seat, np.random.default_rng(5))
        chosen = consistent_determinize(game, state, seat, np.random.default_rng(5))
        assert _contradicted(state, chosen, seat) <= _contradicted(state, first, seat)
        fewer += _contradicted(state, chosen, seat) < _contradicted(state, first, seat)
        assert np.array_equal(game.observe(chosen, seat), game.observe(state, seat))
        assert game.legal_actions(chosen) == game.legal_actions(state)
    assert fewer >= len(positions) // 4


def test_discarding_a_card_that_was_not_a_worst_card_is_a_violation():
    # Seat 1 held red rook, cannon and pawn (three trash cards). Every red knight is public
    # (a Quan) and two red rooks are (a pair), so the rook has 1 out, cannon and pawn 3 or 4:
    # the rook was the only worst card (the kernel's own doctest case).
    events = [("khaps", 1, 0), ("quan", 0, RN), ("meld", 0, "pair", [RR, RR])]
    assert violations([*events, ("discard", 1, RR)], 1, _block(RC, RP), 2) == 0
    assert violations([*events, ("discard", 1, RC)], 1, _block(RR, RP), 2) == 1


def test_consistent_determinize_rejects_bad_tries():
    game = TuSacGame(num_players=2)
    with pytest.raises(ValueError, match="tries 0"):
        consistent_determinize(game, game.new_state(rng_from_seed(0)), 0, np.random.default_rng(0), tries=0)


def test_ismcts_option_samples_consistent_redeals(monkeypatch):
    from research.tusac_information import inference as tusac_inference
    from research.tusac_information.search import InformedIsmctsBot
    from setgames.bots import ismcts, make_bot

    calls = []
    real = tusac_inference.consistent_determinize

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(tusac_inference, "consistent_determinize", counting)
    game, state = next(s for s in greedy_positions(4, range(5), every=3) if len(s[0].legal_actions(s[1])) > 1)
    action = InformedIsmctsBot(0, iterations=20, determinize="consistent", game_name="tusac").act(
        game, state, state.current)
    assert action in game.legal_actions(state) and len(calls) >= ismcts.RACE_MIN_ROUNDS // 2
    calls.clear()
    make_bot("ismcts", "tusac", 0, iterations=20).act(game, state, state.current)
    assert calls == []
    with pytest.raises(ValueError, match="determinize 'psychic'"):
        InformedIsmctsBot(0, determinize="psychic")
