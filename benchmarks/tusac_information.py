"""What hidden information is worth to the Tu Sac search: ISMCTS against greedy.

The same ISMCTS bot (default budget, or ``--iterations``) plays greedy on duplicate deals (each deal
twice, the bots' seats swapped) with its re-deals drawn four ways:

- ``plain``: the game's ``determinize`` (what the bot sees; the default);
- ``infer``: re-deals consistent with the public non-events
  (:mod:`setgames.bots.tusac_inference`, ``ismcts:determinize=consistent``);
- ``model``: re-deals drawn from the learned hand model
  (:mod:`setgames.bots.tusac_handmodel`, ``ismcts:determinize=model``);
- ``hands``: the true private blocks of the others, the draw pile re-shuffled
  (a cheat: how much the others' hands are worth);
- ``hands-at-discards`` / ``hands-elsewhere``: the same cheat only when the
  bot chooses a discard / only at its other decisions (meld, hit, pass);
- ``cheat``: the true state (hands and draw order: the ceiling of the search).

    python benchmarks/tusac_information.py --mode hands --players 2 --deals 50 --workers 2

Prints the ISMCTS score (win 1, draw 1/2) with a 95% interval over deals.
Seeds are fixed, so a run is reproducible.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
from typing import Any

MODES = ("plain", "infer", "model", "hands", "hands-at-discards", "hands-elsewhere", "cheat")
DETERMINIZE = {"infer": "consistent", "model": "model"}  # the ISMCTS option behind each honest mode


def _determinizer(game: Any, mode: str) -> Any:
    from tusac_env.state import Phase

    plain = game.determinize

    def hands(state: Any, seat: int, rng: Any) -> Any:
        twin = game.clone(state)
        twin.draw = [twin.draw[i] for i in rng.permutation(len(twin.draw)).tolist()]
        return twin

    def at_discards(state: Any, seat: int, rng: Any) -> Any:
        return (hands if state.phase == Phase.DISCARD else plain)(state, seat, rng)

    def elsewhere(state: Any, seat: int, rng: Any) -> Any:
        return (plain if state.phase == Phase.DISCARD else hands)(state, seat, rng)

    def cheat(state: Any, seat: int, rng: Any) -> Any:
        return game.clone(state)

    return {"hands": hands, "hands-at-discards": at_discards, "hands-elsewhere": elsewhere,
            "cheat": cheat}.get(mode)


def play(task: tuple[int, int, int, str, int | None]) -> float:
    """One game of deal ``deal``; ISMCTS holds the seats of parity ``side``. Its score."""
    from setgames.bots.greedy_tusac import GreedyTuSacBot
    from setgames.bots.ismcts import IsmctsBot
    from setgames.game import rng_from_seed
    from tusac_env.rules import TuSacGame

    n, deal, side, mode, iterations = task
    game = TuSacGame(num_players=n)
    det = _determinizer(game, mode)
    if det is not None:
        game.determinize = det  # type: ignore[method-assign]
    state = game.new_state(rng_from_seed(10_000 + deal))
    bots: list[Any] = []
    for s in range(n):
        if s % 2 == side:
            bots.append(IsmctsBot(seed=deal * 10 + s, iterations=iterations,
                                  determinize=DETERMINIZE.get(mode, "plain")))
        else:
            bots.append(GreedyTuSacBot(deal))
    while not game.is_over(state):
        s = game.current_seat(state)
        game.apply(state, bots[s].act(game, state, s))
    returns = game.returns(state)
    best = max(returns)
    sides = {s % 2 == side for s in range(n) if returns[s] == best}
    return 0.5 if len(sides) == 2 else float(True in sides)


def main() -> None:
    """Command line entry point."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", choices=MODES, default="plain")
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    ap.add_argument("--deals", type=int, default=50)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=None,
                    help="ISMCTS determinizations a move (default: the bot's default budget)")
    args = ap.parse_args()
    tasks = [(args.players, d, side, args.mode, args.iterations)
             for d in range(args.deals) for side in (0, 1)]
    if args.workers > 1:
        with mp.get_context("fork").Pool(args.workers) as pool:
            res = pool.map(play, tasks, chunksize=1)
    else:
        res = [play(t) for t in tasks]
    per_deal = [(res[2 * i] + res[2 * i + 1]) / 2 for i in range(args.deals)]
    mean = sum(per_deal) / len(per_deal)
    var = sum((x - mean) ** 2 for x in per_deal) / max(1, len(per_deal) - 1)
    half = 1.96 * math.sqrt(var / len(per_deal))
    print(f"{args.mode} {args.players}p: ismcts score {mean:.3f} [{mean - half:.3f}, {mean + half:.3f}] "
          f"over {len(res)} games ({args.deals} deals)")


if __name__ == "__main__":
    main()
