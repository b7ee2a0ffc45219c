"""The greedy variants of research/learning/tethsi_variants.py against the greedy bot."""

from __future__ import annotations

from research.learning.tethsi_variants import VariantBot
from setgames.testing import walk_positions
from tethsi_env import greedy as G
from tethsi_env.layout import Phase
from tethsi_env.rules import TetHsiGame


def test_a_variant_without_weights_is_greedy_and_a_discard_weight_only_settles_its_coin_tosses():
    game = TetHsiGame()
    plain, breaker = VariantBot(0), VariantBot(0, discard=1e-4)
    reference = G.GreedyTetHsiBot(0)
    ties = 0
    for _, state, seat in walk_positions(game, reference, 60, seed=2, bot_share=1.0):
        legal = game.legal_actions(state)
        f = G.greedy_features(game, state, seat)
        tied = state.phase == Phase.DISCARD and f[legal[0], 5] == 1
        if tied:  # greedy tosses a coin; the weighted variant kills the card more useful to the opponent
            _, live, front = G._views(state, seat)
            share = G._held_share(state, seat, live)
            use = {a: G.opponent_use(a, front, live, share) for a in legal}
            if use[legal[0]] != use[legal[1]]:
                assert breaker.act(game, state, seat) == max(legal, key=use.get)
                ties += 1
            continue
        a = reference.act(game, state, seat)
        assert plain.act(game, state, seat) == a
        assert breaker.act(game, state, seat) == a  # 1e-4 of a point moves no other decision
    assert ties > 20
