"""The compiled re-deal of the cards a seat has not seen (``Engine.redeal``, C ``ts_redeal``),
against ``TuSacGame.determinize``, the reference.

The C re-deal makes ``determinize``'s very draws from the same generator (the Khap triples by
numpy's ``choice``, the shuffle by ``permutation``, the tries that fail), so each check here
holds it to the rules layer's re-deal state for state and the generators to the same state
after: the same distribution, and no statistical tolerance to choose. The batch's
``greedy_returns(redeals=k)`` plays on it (``tests/setgames/batch/test_greedy_returns.py``
replays those values with ``determinize`` and the Python greedy bot).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from setgames.engine import engine_class
from setgames.game import rng_from_seed
from setgames.testing import engine_agrees
from tests.tusac.helpers import hand, rest_of_deck
from tusac_env.rules import TuSacGame

ENGINE = engine_class(TuSacGame())
pytestmark = pytest.mark.skipif(ENGINE is None, reason="tusac_env._engine is not built (no C compiler)")

# A 3-player position where determinize's tries mostly fail: player_1 must hold exactly one
# of each red, yellow and green rook (player_2 holds the other two of each and no third
# copy), and both opponents hold a Khap (player_1 of green pawns, player_2 of yellow ones)
# while the rooks are Khap candidates too. The draw pile is empty. Seen from player_0, about
# one in eight re-deals keeps the true cards after all its tries, the others vary.
TIGHT = ("rK rG yM gC gN wP rP", "rR yR gR yC gP gP gP",
         "rR rR yR yR gR gR wK wK wG wG wM wM wC wC wN wN yK yK yG yG yP yP yP")


def _mid_game(game: TuSacGame, seed: int) -> object:
    """A position of a random game: 0 to 59 random moves from the deal of ``seed`` (fewer
    if the game ends)."""
    state = game.new_state(rng_from_seed(seed))
    pick = random.Random(seed)
    for _ in range(pick.randrange(60)):
        legal = game.legal_actions(state)
        if not legal:
            break
        game.apply(state, pick.choice(legal))
    return state


def _tight() -> tuple[TuSacGame, object]:
    """The :data:`TIGHT` position, player_0 to discard, the cards not listed dead."""
    game = TuSacGame(num_players=3)
    hands = [hand(b) for b in TIGHT]
    return game, game.position(hands, [], first=0, dead=rest_of_deck(hands, []))


def _redealt(game: TuSacGame, state, seat: int, rng) -> tuple[object, bool]:
    """An engine holding ``state`` re-dealt from ``seat``'s view by ``rng``, and whether a deal
    was found."""
    eng = ENGINE(game)
    eng.load(state)
    return eng, eng.redeal(seat, rng)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_redeal_is_determinize_draw_for_draw(n):
    """Every seat's view of mid-game positions, three re-deals in a row from one generator:
    the engine holds the state ``determinize`` returns (everything a seat or the record sees:
    :func:`setgames.testing.engine_agrees`), the two generators end in the same state, and a
    few random moves later the two still agree (the engine's caches were rebuilt)."""
    game = TuSacGame(num_players=n)
    moved = khaps = 0
    for g in range(6):
        state = _mid_game(game, 100 * n + g)
        for seat in range(n):
            ours, theirs = np.random.default_rng(seat), np.random.default_rng(seat)
            for r in range(3):
                where = f"game {g} seat {seat} re-deal {r}"
                want = game.determinize(state, seat, theirs)
                eng, _ = _redealt(game, state, seat, ours)
                assert ours.bit_generator.state == theirs.bit_generator.state, where
                engine_agrees(game, want, eng, where)
                moved += want.private != state.private or want.draw != state.draw
                khaps += any(want._khaps[s] for s in range(n) if s != seat)
                pick = random.Random(r)
                for step in range(4):
                    legal = engine_agrees(game, want, eng, f"{where} step {step}")
                    if not legal:
                        break
                    a = pick.choice(legal)
                    assert eng.apply(a) == game.apply(want, a), where
    assert moved > 30 and khaps > 5  # the re-deals moved cards, some with an opponent's Khap


def test_redeal_retries_and_keeps_the_true_cards_as_determinize_does():
    """The tight position from every seat's view (player_0's is the tight one): the failed
    tries draw what determinize's draw (the generators stay level), and when every try fails
    the true cards stay."""
    game, state = _tight()
    truth = game.to_json(state)
    outcomes = {True: 0, False: 0}
    varied = set()
    for seat in range(3):
        ours, theirs = np.random.default_rng(7 + seat), np.random.default_rng(7 + seat)
        for r in range(40 if seat == 0 else 10):
            want = game.determinize(state, seat, theirs)
            eng, dealt = _redealt(game, state, seat, ours)
            assert ours.bit_generator.state == theirs.bit_generator.state, (seat, r)
            engine_agrees(game, want, eng, f"seat {seat} re-deal {r}")
            outcomes[dealt] += 1
            if not dealt:
                assert eng.to_json() == truth
            elif seat == 0:
                varied.add(str(want.private))
    assert outcomes[False] >= 3 and outcomes[True] >= 40 and len(varied) >= 10


def _hidden(data: dict, others: list[int]) -> list[int]:
    """The cards of the ``others``' private blocks and the draw pile of state ``data`` (JSON),
    sorted."""
    blocks = [t for s in others for t, k in enumerate(data["private"][s]) for _ in range(k)]
    return sorted(data["draw"] + blocks)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_redeal_moves_only_the_cards_the_seat_has_not_seen(n):
    """The seat's own block, every public block, the dead pile, the active card, the block
    sizes and Khap counts, the pile's length and the record stay; the other blocks and the
    pile hold the same cards between them; what the seat observes is unchanged; and the
    result is a state of the game (the validator and a fresh engine's loader take it)."""
    game = TuSacGame(num_players=n)
    rng = np.random.default_rng(n)
    for g in range(6):
        state = _mid_game(game, 200 * n + g)
        before = game.to_json(state)
        for seat in range(n):
            eng, _ = _redealt(game, state, seat, rng)
            after = eng.to_json()
            others = [s for s in range(n) if s != seat]
            for key in before:
                if key not in ("private", "draw"):
                    assert after[key] == before[key], key
            assert after["private"][seat] == before["private"][seat]
            for s in others:
                assert sum(after["private"][s]) == sum(before["private"][s])
                assert after["private"][s].count(3) == before["private"][s].count(3)  # its Khaps
            assert len(after["draw"]) == len(before["draw"])
            assert _hidden(after, others) == _hidden(before, others)
            np.testing.assert_array_equal(eng.observe(seat), game.observe(state, seat))
            redealt = game.from_json(after)  # validates
            game.validate(redealt)
            ENGINE(game).load(redealt)


def test_redeal_reads_nothing_the_seat_cannot_see():
    """Two states that differ only in the cards ``seat`` cannot see (the second one a
    determinize of the first) re-deal to the same state from the same generator: what the
    re-deal reads is the seat's view and the public sizes and Khap counts."""
    for n in (2, 3, 4):
        game = TuSacGame(num_players=n)
        for g in range(3):
            state = _mid_game(game, 300 * n + g)
            for seat in range(n):
                twin = game.determinize(state, seat, np.random.default_rng(99))
                assert game.to_json(twin) != game.to_json(state)  # other hidden cards
                one, dealt = _redealt(game, state, seat, np.random.default_rng(seat))
                two, twin_dealt = _redealt(game, twin, seat, np.random.default_rng(seat))
                assert dealt and twin_dealt and one.to_json() == two.to_json(), (n, g, seat)


def test_redeal_refuses_a_bad_seat_or_generator():
    game = TuSacGame(num_players=2)
    state = game.new_state(rng_from_seed(1))
    eng = ENGINE(game)
    eng.load(state)
    before = eng.to_json()
    for bad in (-1, 2, True, 1.0, "0", 2**70):
        with pytest.raises(ValueError, match=r"is not 0\.\.1"):
            eng.redeal(bad, np.random.default_rng(0))
    for bad in (0, None, np.random.RandomState(0), np.random.PCG64(0)):
        with pytest.raises(TypeError, match=r"numpy\.random\.Generator"):
            eng.redeal(0, bad)
    assert eng.to_json() == before
    eng.redeal(np.int64(1), np.random.default_rng(0))  # a numpy int is a seat, as for determinize
    engine_agrees(game, game.determinize(state, np.int64(1), np.random.default_rng(0)), eng)
