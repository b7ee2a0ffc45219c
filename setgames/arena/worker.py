"""What a worker runs: games of a plan, by index, with bots built from their specs.

The same functions serve every executor: the parent process (serial), a
local worker process and a Ray worker. A worker keeps the games and bots it
built for the last job it saw (one bot object per bot and seat, reseeded
before every game), so only the job's small description crosses to it.

A bot that fails (raises, answers an illegal move, runs over its time, or,
for an external program, crashes, hangs or talks garbage) forfeits the game:
its side loses (returns -1 for its side's seats, +1 for the other's), the
record keeps the moves played so far with the reason, and the run goes on.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing.util
import signal
import time
from dataclasses import dataclass, field
from typing import Any

from setgames.arena.plan import GameTask, Plan
from setgames.bots.base import Bot, BotFault
from setgames.bots.external import DEFAULT_MOVE_MS, ExternalBot
from setgames.game import Game, rng_from_seed

__all__ = ["MAX_STEPS", "Job", "TimeControl", "close_bots", "close_programs", "init_worker", "play_game",
           "play_range"]

MAX_STEPS = 200_000  # steps; a game still running after that is a bug in a game or a bot
_FLAG_ONLY_CUTOFF = 10  # with flag_only, an external program is cut off at 10x its limit


@dataclass(frozen=True)
class TimeControl:
    """Time limits of a run, in milliseconds (None: none).

    Attributes:
        move_ms: per decision.
        game_ms: per game and seat (the sum of that seat's decisions).
        flag_only: a bot over a limit is only flagged (counted), not forfeited;
            an external program is still cut off at 10 times its limit (at
            least the default of 10 s), since a hung program never answers.
    """

    move_ms: float | None = None
    game_ms: float | None = None
    flag_only: bool = False

    def __post_init__(self) -> None:
        for key in ("move_ms", "game_ms"):
            value = getattr(self, key)
            if value is not None and not (isinstance(value, int | float) and not isinstance(value, bool)
                                          and 0 < value < 1e9):
                raise ValueError(f"{key} {value!r} must be a positive number of milliseconds")

    def over(self, took_ms: float, used_ms: float) -> str | None:
        """Why a decision of ``took_ms``, with ``used_ms`` spent in the game (it
        included), is over the limits, or None."""
        if self.move_ms is not None and took_ms > self.move_ms:
            return f"{took_ms:.0f} ms for one decision (limit {self.move_ms:g} ms)"
        if self.game_ms is not None and used_ms > self.game_ms:
            return f"{used_ms:.0f} ms in the game (limit {self.game_ms:g} ms)"
        return None

    def cutoff_ms(self, move_left: float | None, game_left: float | None) -> float:
        """When an external program is cut off on the next decision."""
        limits = [x for x in (move_left, game_left) if x is not None]
        if not limits:
            return DEFAULT_MOVE_MS
        if self.flag_only:
            return max(DEFAULT_MOVE_MS, _FLAG_ONLY_CUTOFF * min(limits))
        return min(limits)


@dataclass(frozen=True)
class Job:
    """Everything a worker needs to play any game of a run.

    Attributes:
        plan: the run's :class:`~setgames.arena.plan.Plan`.
        specs: the bots (``BotSpec``), by index.
    """

    plan: Plan
    specs: tuple[Any, ...]
    clock: TimeControl = TimeControl()


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
        # A pool worker ends with os._exit (no atexit): this runs on its way out, so the
        # programs of external bots are told to quit (a killed worker's die with it).
        multiprocessing.util.Finalize(None, close_bots, exitpriority=10)
    close_bots()
    _CACHE.job = job
    _CACHE.games.clear()


def close_bots() -> None:
    """Close and forget every bot this process built (ending external programs)."""
    bots = list(_CACHE.bots.values())
    _CACHE.bots.clear()
    for bot in bots:
        with contextlib.suppress(Exception):  # a failing close must not hide the run's outcome
            bot.close()


def close_programs() -> None:
    """Close and forget the external bots this process built (ending their programs); the
    other bots stay built for the next games (a network's weights are not loaded again)."""
    keys = [key for key, bot in _CACHE.bots.items() if isinstance(bot, ExternalBot)]
    for key in keys:
        bot = _CACHE.bots.pop(key)
        with contextlib.suppress(Exception):  # a failing close must not hide the run's outcome
            bot.close()


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
    clock = job.clock
    n = game.num_players
    state = game.new_state(rng_from_seed(task.deal_seed))
    actions: list[int] = []
    seconds = [0.0] * n
    moves = [0] * n
    times: list[list[float]] = [[] for _ in range(n)]
    flagged = [0] * n
    fault: tuple[int, str, str] | None = None
    for seat, bot in enumerate(bots):
        try:
            bot.start_game(game, seat)
        except BotFault as exc:
            fault = (seat, exc.reason, exc.detail)
        except Exception as exc:
            fault = (seat, "raised", f"{type(exc).__name__} in start_game: {exc}")
        if fault is not None:
            break
    while fault is None and not game.is_over(state):
        seat = game.current_seat(state)
        legal = game.legal_actions(state)
        bot = bots[seat]
        move_left = clock.move_ms
        game_left = None if clock.game_ms is None else max(0.0, clock.game_ms - 1000 * seconds[seat])
        if isinstance(bot, ExternalBot):
            bot.set_clock(move_left, game_left, clock.cutoff_ms(move_left, game_left))
        elif move_left is not None or game_left is not None:
            bot.set_clock(move_left, game_left)
        a: Any = None
        t0 = time.perf_counter()
        try:
            a = bot.act(game, state, seat)
        except BotFault as exc:
            fault = (seat, exc.reason, exc.detail)
        except Exception as exc:  # a Python bot's bug costs it the game, not the run
            fault = (seat, "raised", f"{type(exc).__name__}: {exc}")
        took = time.perf_counter() - t0
        seconds[seat] += took
        moves[seat] += 1
        times[seat].append(took)
        if fault is None:
            late = clock.over(1000 * took, 1000 * seconds[seat])
            if late is not None and clock.flag_only:
                flagged[seat] += 1
            elif late is not None:
                fault = (seat, "timeout", late)
        if fault is None and a not in legal:
            fault = (seat, "illegal", f"action {a!r:.40} is not legal at step {len(actions)}")
        if fault is not None:
            break
        game.apply(state, a)
        actions.append(int(a))
        if len(actions) > MAX_STEPS:
            raise RuntimeError(f"{task.game_name} game with deal seed {task.deal_seed} did not end "
                               f"after {MAX_STEPS} steps")
    forfeit = None
    if fault is None:
        returns = [float(r) for r in game.returns(state)]
        outcome = json.loads(json.dumps(game.outcome(state)))
        truncated = bool(game.is_truncated(state))
    else:
        seat, reason, detail = fault
        lost_side = task.seat_sides[seat]
        returns = [-1.0 if side == lost_side else 1.0 for side in task.seat_sides]
        outcome, truncated = None, False
        forfeit = {"seat": seat, "bot": job.specs[task.seat_bots[seat]].label, "reason": reason,
                   "detail": detail[:300]}
    return {
        "index": task.index,
        "returns": returns,
        "truncated": truncated,
        "outcome": outcome,
        "forfeit": forfeit,
        "flagged": flagged,
        "actions": actions,
        "version": game.version,
        "config": game.config_dict(),
        "seconds": seconds,
        "moves": moves,
        "times": times,
        "wall": time.perf_counter() - started,
        "cpu": time.thread_time() - cpu,  # this thread's only: a worker's other threads are overhead
    }


def play_range(job: Job, start: int, stop: int) -> tuple[list[dict[str, Any]], float]:
    """Play games ``start`` to ``stop - 1``: their results in order, and the seconds it took."""
    t0 = time.perf_counter()
    results = [play_game(job, task) for task in job.plan.tasks(start, stop)]
    return results, time.perf_counter() - t0
