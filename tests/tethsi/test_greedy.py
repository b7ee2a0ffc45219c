"""The compiled Tet Hsi greedy bot (``tethsi_env._greedy``) against the Python greedy bot, the reference."""

from __future__ import annotations

import numpy as np
import pytest

from setgames.game import rng_from_seed
from tethsi_env.rules import TetHsiGame

_greedy = pytest.importorskip("tethsi_env._greedy", reason="tethsi_env._greedy is not built")
from tethsi_env._engine import Engine  # noqa: E402  (built with _greedy)

try:  # the bot's home after the per-game move, else its old one
    from tethsi_env.greedy import GreedyTetHsiBot
except ImportError:
    from setgames.bots.greedy_tethsi import GreedyTetHsiBot


def _compare_games(first_player, n_games, seed):
    """Play ``n_games`` where each move is the greedy one or, half the time, a random one
    (so the positions vary); at every position the compiled bot must pick the Python
    bot's move, its tie draws coming from a twin of the Python bot's generator."""
    game = TetHsiGame(first_player=first_player)
    eng = Engine(game)
    mix = np.random.default_rng(seed)
    positions = ties = 0
    for g in range(n_games):
        bot = GreedyTetHsiBot(seed + g)
        twin = np.random.default_rng(seed + g)
        state = game.new_state(rng_from_seed(seed * 7919 + g))
        while not game.is_over(state):
            eng.load(state)
            before = bot.rng.bit_generator.state["state"]["state"]
            want = bot.act(game, state, game.current_seat(state))
            ties += bot.rng.bit_generator.state["state"]["state"] != before
            assert _greedy.greedy_action(eng, twin) == want, (g, game.to_json(state))
            assert twin.bit_generator.state == bot.rng.bit_generator.state
            positions += 1
            legal = game.legal_actions(state)
            game.apply(state, want if mix.random() < 0.5 else legal[int(mix.integers(len(legal)))])
    return positions, ties


@pytest.mark.parametrize("first_player", [0, 1, "random"])
def test_compiled_greedy_plays_the_python_bots_move_in_every_position(first_player):
    positions, ties = _compare_games(first_player, 700, 11 + len(str(first_player)))
    assert positions > 20_000
    assert ties > 0  # the tie-breaking draw was exercised


def test_compiled_greedy_refuses_a_finished_game():
    game = TetHsiGame()
    state = game.new_state(rng_from_seed(0))
    while not game.is_over(state):
        game.apply(state, game.legal_actions(state)[0])
    eng = Engine(game)
    eng.load(state)
    with pytest.raises(ValueError, match="over"):
        _greedy.greedy_action(eng, np.random.default_rng(0))


def test_greedy_features_hold_the_greedy_bots_choice():
    """Greedy plays the card whose row is best on hand value less the feeding penalty, takes
    exactly when take's row beats nothing's (no Set legal), and keeps the center card whose
    discard row ranks higher (a Set first), except on exact ties."""
    from setgames.testing import walk_positions
    from tethsi_env.greedy import GreedyTetHsiBot, greedy_features
    from tethsi_env.layout import NOTHING, PLAY_START, SET_START, TAKE

    game = TetHsiGame()
    bot = GreedyTetHsiBot(0)
    checked = 0
    for _, state, seat in walk_positions(game, bot, 80, seed=0, bot_share=1.0):
        legal = game.legal_actions(state)
        a = bot.act(game, state, seat)  # (an exact tie at a discard may draw another move than the walk's)
        f = greedy_features(game, state, seat)
        if a >= PLAY_START:
            score = {x: f[x - PLAY_START + 38, 1] * 10 - 3 * f[x - PLAY_START + 38, 2] for x in legal}
            assert score[a] == max(score.values())
            checked += 1
        elif a in (TAKE, NOTHING) and not any(SET_START <= x < PLAY_START for x in legal):
            assert (a == TAKE) == (f[36, 1] > f[37, 1])
            checked += 1
        elif a < 36:
            rank = {x: (f[x, 0], f[x, 1]) for x in legal}
            assert f[legal[0], 5] == f[legal[1], 5] == (rank[legal[0]] == rank[legal[1]])
            if rank[legal[0]] != rank[legal[1]]:
                assert rank[a] == max(rank.values())
                checked += 1
    assert checked > 500


def test_opponent_use_is_the_expected_number_of_completed_pairs():
    """Over every pair of cards the opponent may hold (its front for sure, each live card with
    probability ``share``, independently), the expected number of pairs ``card`` completes."""
    from itertools import combinations

    from tethsi_env.greedy import _COMPLETE, opponent_use

    rng = np.random.default_rng(3)
    for _ in range(200):
        cards = rng.permutation(36)
        card, front, live = int(cards[0]), cards[1:1 + rng.integers(0, 6)], cards[8:8 + rng.integers(0, 25)]
        share = float(rng.random())
        held = {int(x): 1.0 for x in front} | {int(x): share for x in live}
        want = sum(held[x] * held[y] for x, y in combinations(sorted(held), 2) if _COMPLETE[x][y] >> card & 1)
        got = opponent_use(card, sum(1 << int(x) for x in front), sum(1 << int(x) for x in live), share)
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12)
