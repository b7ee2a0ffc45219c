"""Hand-written variants of Tet Hsi's greedy bot, each played against greedy in the arena: where
greedy leaves its edge (research/FINDINGS.md, "Learning to beat greedy").

A variant is greedy with three weights, in hand-value points, on what a move gives the
opponent (:func:`tethsi_env.greedy.opponent_use`):

- ``discard``: a discard's value gains ``discard x`` the discarded card's use to the opponent
  (a card killed is a card the opponent will not get);
- ``nothing``: nothing's value (and a discard's that leads to nothing) loses ``nothing x`` the
  use of the card left in the center;
- ``feed``: a play's value loses ``feed x`` the played card's use (replacing greedy's 3-point
  penalty for completing a pair of the opponent's front).

    python -m research.learning.tethsi_variants --discard 0.0001 --games 10000
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from setgames.arena import ArenaGame, BotSpec, run_arena
from setgames.bits import bit_list
from tethsi_env import greedy as G
from tethsi_env.layout import NOTHING, PAIR_OF_ACTION, PLAY_START, SET_START, TAKE


class VariantBot(G.GreedyTetHsiBot):
    """Greedy with the weights of the module docstring (all 0: greedy itself, on the rules layer)."""

    name = "variant"

    def __init__(self, seed: int | None = None, discard: float = 0.0, nothing: float = 0.0,
                 feed: float = 0.0):
        super().__init__(seed)
        self.w_discard, self.w_nothing, self.w_feed = discard, nothing, feed

    def supports_engine(self, game: Any, engine: Any) -> bool:
        """Never: the variant is the Python bot's arithmetic with its own weights."""
        return False

    def explain(self, game: Any, state: Any, seat: int) -> tuple[int, str]:
        """The variant's move."""
        legal = game.legal_actions(state)
        hand, live, opp_front = G._views(state, seat)
        share = G._held_share(state, seat, live)

        def use(card: int) -> float:
            return G.opponent_use(card, opp_front, live, share)

        if state.phase == G._DISCARD:
            c1, c2 = legal
            values = []
            for gone, kept in ((c1, c2), (c2, c1)):
                v = G._choose_value(hand, live, opp_front, kept) + self.w_discard * use(gone)
                if self.w_nothing and not G._set_pairs(hand, kept):
                    take = G._best_play(hand | 1 << kept, live & ~(1 << kept), opp_front)[0]
                    if take <= G.hand_value(hand, live):  # greedy would leave it in the center
                        v -= self.w_nothing * use(kept)
                values.append(v)
            if values[0] == values[1]:
                return legal[int(self.rng.integers(2))], "tie"
            return (c1 if values[0] > values[1] else c2), "discard"
        if state.phase == G._CHOOSE:
            sets = [a for a in legal if SET_START <= a < PLAY_START]
            if sets:
                def after(a: int) -> int:
                    x, y = PAIR_OF_ACTION[a]
                    return G.hand_value(hand & ~((1 << x) | (1 << y)), live)
                return max(sets, key=lambda a: (after(a), -a)), "make a Set"
            r = state.remaining
            take = self._best_play(hand | 1 << r, live & ~(1 << r), opp_front, use)[0]
            nothing = G.hand_value(hand, live) - self.w_nothing * use(r)
            return (TAKE if take > nothing else NOTHING), "take or nothing"
        return PLAY_START + self._best_play(hand, live, opp_front, use)[1], "play"

    def _best_play(self, hand: int, live: int, opp_front: int, use: Any) -> tuple[float, int]:
        best = (-1e18, -1)
        for c in bit_list(hand):
            v = G.hand_value(hand & ~(1 << c), live)
            if self.w_feed:
                v -= self.w_feed * use(c)
            elif opp_front and G._feeds(c, opp_front):
                v -= G._FEED_PENALTY
            if v > best[0]:
                best = (v, c)
        return best


def variant(game_name: str, seed: int | None, **weights: float) -> VariantBot:
    """The arena's factory (module level, so that worker processes can build it)."""
    return VariantBot(seed, **weights)


def main() -> None:
    """The command line (see the module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("discard", "nothing", "feed"):
        p.add_argument(f"--{name}", type=float, default=0.0)
    p.add_argument("--games", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args()
    weights = (("discard", args.discard), ("feed", args.feed), ("nothing", args.nothing))
    start = time.perf_counter()
    res = run_arena([ArenaGame.of("tethsi")], [BotSpec("variant", "variant", weights, variant),
                                               BotSpec.parse("greedy")],
                    games_per_pairing=args.games, seed=args.seed, workers=args.workers, progress=False,
                    pairings=[(0, 1)])
    pair = res["arenas"][0]["pairings"][0]
    print(json.dumps({"weights": dict(weights), "games": pair["games"], "score": round(pair["score_a"], 4),
                      "ci": [round(x, 4) for x in pair["score_a_ci"]],
                      "seconds": round(time.perf_counter() - start)}))


if __name__ == "__main__":
    main()
