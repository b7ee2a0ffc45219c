"""What a worker runs: games of a plan, by index, with bots built from their specs.

The same functions serve every executor: the parent process (serial), a
local worker process and a Ray worker. A worker keeps the games and bots it
built for the last job it saw (one bot object per bot and seat, reseeded
before every game), so only the job's small description crosses to it.
"""

from __future__ import annotations

import json
import signal
import time
from dataclasses import dataclass, field
from typing import Any

from setgames.arena.plan import GameTask, Plan
from setgames.bots.base import Bot
from setgames.game import Game, rng_from_seed

__all__ = ["MAX_STEPS", "Job", "init_worker", "play_game", "play_range"]

MAX_STEPS = 200_000  # steps; a game still running after that is a bug in a game or a bot


@dataclass(frozen=True)
class Job:
    """Everything a worker needs to play any game of a run.

    Attributes:
        plan: the run's :class:`~setgames.arena.plan.Plan`.
        specs: the bots (``BotSpec``), by index.
    """

    plan: Plan
    specs: tuple[Any, ...]


@dataclass
class _Cache:
    job: Job | None = None
    games: dict[Any, Game] = field(default_factory=dict)
    bots: dict[tuple[int, int, str], Bot] = field(default_factory=dict)


_CACHE = _Cache()


def init_worker(job: Job | None = None, in_pool: bool = False) -> None:
    """Start a worker afresh; ``in_pool`` for a local worker process.

    A pool worker leaves Ctrl-C and SIGTERM to the parent, which keeps the
    finished games and then ends the pool: it ignores SIGINT (the terminal
    sends it to the whole group) and takes SIGTERM's default action, so the
    parent's handler, inherited through ``fork``, never runs in it.
    """
    if in_pool:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _CACHE.job = job
    _CACHE.games.clear()
    _CACHE.bots.clear()


def _bots_for(job: Job, task: GameTask) -> list[Bot]:
    bots = []
    for seat, (b, s) in enumerate(zip(task.seat_bots, task.bot_seeds, strict=True)):
        # One object per (bot, seat): a bot holding two seats keeps two generators.
        key = (b, seat, task.game_name)
        bot = _CACHE.bots.get(key)
        if bot is None:
            bot = _CACHE.bots[key] = job.specs[b].build(task.game_name)
        bot.reset(s)
        bots.append(bot)
    return bots


def play_game(job: Job, task: GameTask) -> dict[str, Any]:
    """Play one game of the run and return its result (JSON-able)."""
    if _CACHE.job != job:
        init_worker(job)
    game = _CACHE.games.get(task.arena_game)
    if game is None:
        game = _CACHE.games[task.arena_game] = task.arena_game.make()
    started, cpu = time.perf_counter(), time.thread_time()
    bots = _bots_for(job, task)
    n = game.num_players
    state = game.new_state(rng_from_seed(task.deal_seed))
    actions: list[int] = []
    seconds = [0.0] * n
    moves = [0] * n
    while not game.is_over(state):
        seat = game.current_seat(state)
        legal = game.legal_actions(state)
        bot = bots[seat]
        t0 = time.perf_counter()
        a = bot.act(game, state, seat)
        seconds[seat] += time.perf_counter() - t0
        moves[seat] += 1
        if a not in legal:
            label = job.specs[task.seat_bots[seat]].label
            raise RuntimeError(f"bot {label!r} chose illegal action {a!r} in {task.game_name} "
                               f"(deal seed {task.deal_seed}, step {len(actions)})")
        game.apply(state, a)
        actions.append(int(a))
        if len(actions) > MAX_STEPS:
            raise RuntimeError(f"{task.game_name} game with deal seed {task.deal_seed} did not end "
                               f"after {MAX_STEPS} steps")
    return {
        "index": task.index,
        "returns": [float(r) for r in game.returns(state)],
        "truncated": bool(game.is_truncated(state)),
        "outcome": json.loads(json.dumps(game.outcome(state))),
        "actions": actions,
        "version": game.version,
        "config": game.config_dict(),
        "seconds": seconds,
        "moves": moves,
        "wall": time.perf_counter() - started,
        "cpu": time.thread_time() - cpu,  # this thread's only: a worker's other threads are overhead
    }


def play_range(job: Job, start: int, stop: int) -> tuple[list[dict[str, Any]], float]:
    """Play games ``start`` to ``stop - 1``: their results in order, and the seconds it took."""
    t0 = time.perf_counter()
    results = [play_game(job, task) for task in job.plan.tasks(start, stop)]
    return results, time.perf_counter() - t0
