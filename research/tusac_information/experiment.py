"""What hidden information is worth to the Tu Sac search: ISMCTS against greedy.

The same ISMCTS bot (default budget, or ``--iterations``) plays greedy on duplicate deals (each deal
twice, the bots' seats swapped) with its re-deals drawn four ways:

- ``plain``: the game's ``determinize`` (what the bot sees; the default);
- ``infer``: re-deals consistent with the public non-events
  (:mod:`research.tusac_information.inference`, ``InformedIsmctsBot(determinize="consistent")``);
- ``model``: re-deals drawn from the learned hand model
  (:mod:`research.tusac_information.handmodel`, ``InformedIsmctsBot(determinize="model")``);
- ``hands``: the true private blocks of the others, the draw pile re-shuffled
  (a cheat: how much the others' hands are worth);
- ``hands-at-discards`` / ``hands-elsewhere``: the same cheat only when the
  bot chooses a discard / only at its other decisions (meld, hit, pass);
- ``cheat``: the true state (hands and draw order: the ceiling of the search);
- ``posterior-oracle``: the others' hands drawn from the exact posterior of a
  player who knows the others play greedy and reads every recorded move: a
  Metropolis chain over their private blocks (swap a card with an unseen one;
  keep the swap only if greedy, dealt the hands it implies, would have made
  every recorded choice: a full replay on the engine) started at the true
  hands. The true hands are an exact draw from that posterior and the chain
  leaves it invariant, so every state of the chain is one too: this measures
  what perfect inference from the record is worth, without building a sampler
  that finds such hands from scratch (the start is the only cheat; the chain
  runs ``--chain-steps`` swaps a decision to decorrelate from it).

    python -m research.tusac_information.experiment --mode hands --players 2 --deals 50 --workers 2

Prints the ISMCTS score (win 1, draw 1/2) with a 95% interval over deals.
Seeds are fixed, so a run is reproducible.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
from typing import Any

MODES = ("plain", "infer", "model", "hands", "hands-at-discards", "hands-elsewhere", "cheat",
         "posterior-oracle")
ORACLE_SAMPLES = 8  # posterior-oracle: chain states kept a decision (evenly spaced along the chain)
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


def _posterior_oracle(game: Any, init: Any, moves: list[tuple[int, int]], steps: int) -> Any:
    """The ``posterior-oracle`` determinizer of a game dealt as ``init`` whose moves so far
    are ``moves`` (``(seat, action)``, appended as the game goes); see the module docstring."""
    from tusac_env._engine import Engine

    from research.tusac_information.inference import hand_history
    from tusac_env import _greedy as _tusac_greedy
    from tusac_env.melds import khap_types, rebuild_caches

    engine = Engine(game)
    n = game.num_players
    quans = [[0] * 28 for _ in range(n)]
    for e in init.events:
        if e[0] == "quan":
            quans[e[1]][e[2]] = 4

    def explains(state: Any, me: int, blocks: dict[int, list[int]], rest: list[int]) -> bool:
        deal = [[a + q for a, q in zip(init.private[s], quans[s], strict=True)] for s in range(n)]
        for o, b in blocks.items():
            if max(b) > 3 or len(khap_types(b)) != len(state._khaps[o]):
                return False
            deal[o] = [a + q for a, q in zip(hand_history(state.events, o, b), quans[o], strict=True)]
            if max(deal[o]) > 4:
                return False
        drawn = len(init.draw) - len(rest)
        try:
            start = game.position(deal, rest + init.draw[len(init.draw) - drawn:], first=init.first)
        except ValueError:
            return False
        engine.load(start)
        for s, a in moves:
            if engine.current_seat() != s:
                return False
            if s != me and len(engine.legal_actions()) > 1 and _tusac_greedy.greedy_action(engine) != a:
                return False
            try:
                engine.apply(a)
            except ValueError:
                return False
        return engine.to_json()["events"] == [list(e) for e in state.events]

    cache: dict[int, list[tuple[dict[int, list[int]], list[int]]]] = {}

    def determinize(state: Any, seat: int, rng: Any) -> Any:
        if len(moves) not in cache:
            cache.clear()
            others = [o for o in range(n) if o != seat]
            blocks = {o: state.private[o][:] for o in others}
            rest = state.draw[:]
            kept = []
            every = max(1, steps // ORACLE_SAMPLES)
            for i in range(steps):
                o = others[int(rng.integers(len(others)))]
                b = blocks[o]
                if sum(b):
                    k = int(rng.integers(sum(b)))
                    t = next(t for t in range(28) if (k := k - b[t]) < 0)
                    # the partner: any other hidden card, in another block or the draw pile
                    spots = [(p, u) for p in others if p != o for u in range(28) for _ in range(blocks[p][u])]
                    j = int(rng.integers(len(spots) + len(rest)))
                    p, u = spots[j] if j < len(spots) else (-1, rest[j - len(spots)])
                    if u != t:
                        b[t] -= 1
                        b[u] += 1
                        if p >= 0:
                            blocks[p][u] -= 1
                            blocks[p][t] += 1
                        else:
                            rest[j - len(spots)] = t
                        if not explains(state, seat, blocks, rest):  # undo
                            b[t] += 1
                            b[u] -= 1
                            if p >= 0:
                                blocks[p][u] += 1
                                blocks[p][t] -= 1
                            else:
                                rest[j - len(spots)] = u
                if (i + 1) % every == 0:
                    kept.append(({o: b[:] for o, b in blocks.items()}, rest[:]))
            cache[len(moves)] = kept or [(blocks, rest)]
        blocks, rest = cache[len(moves)][int(rng.integers(len(cache[len(moves)])))]
        twin = game.clone(state)
        for o, b in blocks.items():
            twin.private[o] = b[:]
        twin.draw = [rest[i] for i in rng.permutation(len(rest)).tolist()]
        rebuild_caches(twin)
        if seat == state.current and state._worst is not None:
            twin._worst = state._worst[:]
        return twin

    return determinize


def play(task: tuple[int, int, int, str, int | None, int]) -> float:
    """One game of deal ``deal``; ISMCTS holds the seats of parity ``side``. Its score."""
    from research.tusac_information.search import InformedIsmctsBot
    from setgames.game import rng_from_seed
    from tusac_env.greedy import GreedyTuSacBot
    from tusac_env.rules import TuSacGame

    n, deal, side, mode, iterations, chain_steps = task
    game = TuSacGame(num_players=n)
    state = game.new_state(rng_from_seed(10_000 + deal))
    moves: list[tuple[int, int]] = []
    if mode == "posterior-oracle":
        det = _posterior_oracle(game, game.clone(state), moves, chain_steps)
    else:
        det = _determinizer(game, mode)
    if det is not None:
        game.determinize = det  # type: ignore[method-assign]
    bots: list[Any] = []
    for s in range(n):
        if s % 2 == side:
            bots.append(InformedIsmctsBot(seed=deal * 10 + s, iterations=iterations,
                                          determinize=DETERMINIZE.get(mode, "plain")))
        else:
            bots.append(GreedyTuSacBot(deal))
    while not game.is_over(state):
        s = game.current_seat(state)
        a = bots[s].act(game, state, s)
        moves.append((s, a))
        game.apply(state, a)
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
    ap.add_argument("--first-deal", type=int, default=0, help="deals first-deal .. first-deal + deals - 1")
    ap.add_argument("--chain-steps", type=int, default=1000,
                    help="posterior-oracle: chain steps (swaps tried) a decision")
    args = ap.parse_args()
    tasks = [(args.players, d, side, args.mode, args.iterations, args.chain_steps)
             for d in range(args.first_deal, args.first_deal + args.deals) for side in (0, 1)]
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
