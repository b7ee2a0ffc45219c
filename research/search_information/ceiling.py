"""The one-step search's score against greedy with more or less of the hidden cards shown.

A learner in a batch against greedy opponents plays, in every position, greedy's own move
unless another legal move has a strictly higher mean over ``greedy_returns(redeals=k)``:

- ``--redeals K`` (K > 0): the honest search, every card the seat has not seen re-dealt K times;
- ``--redeals 0``: the cheat, one play-out per move from the true state (the opponent's hand and
  the pile's order shown).

The middle case (the opponent's hand shown, the pile re-dealt) needs ``th_redeal`` changed to
leave the opponent's concealed hand alone and shuffle only the pile (FINDINGS.md gives the
five-line change); built so, ``--redeals K`` measures it.

    python -m research.search_information.ceiling --redeals 256 --games 1500
    python -m research.search_information.ceiling --redeals 0 --games 2000
"""

from __future__ import annotations

import argparse

import numpy as np

from setgames.batch import make_batch
from setgames.registry import make_game


def score(redeals: int, games: int, seed: int = 999, num_envs: int = 256) -> tuple[float, int]:
    """The learner's score (wins + half the draws) and the games it took, Tet Hsi against greedy."""
    b = make_batch(make_game("tethsi"), num_envs, seed=seed, opponents="greedy", learner_seat="rotate")
    b.reset()
    rows = np.arange(num_envs)
    points = played = 0.0
    while played < games:
        mine = b.greedy_actions().copy()
        values = b.greedy_returns(redeals=redeals).astype(np.float64)
        values[b.mask == 0] = -np.inf
        best = values.argmax(1)
        b.step(np.where(values[rows, best] > values[rows, mine], best, mine))
        done = b.terminated | b.truncated
        r = b.learner_reward[done]
        played += done.sum()
        points += (r > 0).sum() + 0.5 * (r == 0).sum()
    return points / played, int(played)


def main() -> None:
    """Print the score with its 95% interval (binomial)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--redeals", type=int, default=256)
    ap.add_argument("--games", type=int, default=1500)
    args = ap.parse_args()
    p, n = score(args.redeals, args.games)
    half = 1.96 * (p * (1 - p) / n) ** 0.5
    print(f"redeals={args.redeals}: {100 * p:.1f}% +- {100 * half:.1f} over {n} games")


if __name__ == "__main__":
    main()
