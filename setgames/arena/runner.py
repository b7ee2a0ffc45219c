"""Round-robin arena: bots against bots on any game and config, in parallel.

Every pair of distinct bots (a *pairing*) plays ``deals`` deals per game;
each deal is a duplicate set (see :mod:`setgames.arena.seating`): the same
seed played once per seating, so luck of the cards cancels. Games run in
this process, in local worker processes or as Ray tasks
(:mod:`setgames.arena.executors`; no global random state anywhere); each
game's deal seed and bot seeds derive from the master seed and the game's
index alone (:mod:`setgames.arena.plan`), so ``results.json`` and
``records.jsonl`` are identical byte for byte whatever the executor and the
number of workers. Games are ordered deal-major (deal 0 of every game and
pairing, then deal 1, ...), so a run stopped early (Ctrl-C or SIGTERM) still
covers every pairing evenly; the games finished by then are kept,
summarised and saved.

Per game, the side (A or B) of the seat with the highest return wins; a tie
for the highest return between the two sides, or between all seats, is a
draw. A bot's *score* is its wins plus half its draws, over games played.
A bot that fails (see :mod:`setgames.arena.worker`) forfeits: its side
loses that game, and ``results.json`` says which bot forfeited and why.

Time controls (:class:`~setgames.arena.worker.TimeControl`) are enforced on
external programs as they play and checked on every bot after each
decision; each decision's time is kept in a log-scale histogram per bot
and game (so memory stays flat), whose median and 99th percentile the
table shows. Wall-clock figures go to ``timing.json``, never to
``results.json``, which stays identical across executors as long as no
bot forfeits or is flagged for its time (those depend on the machine).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from setgames.arena.executors import EXECUTORS, execute
from setgames.arena.plan import GameTask, Plan
from setgames.arena.ratings import rate
from setgames.arena.ray_executor import import_ray
from setgames.arena.seating import SEATING_RULE, seatings
from setgames.arena.signals import Terminated, signals_deferred, sigterm_as_interrupt
from setgames.arena.stats import mean_interval
from setgames.arena.worker import Job, TimeControl, close_bots
from setgames.bots.base import Bot
from setgames.bots.specs import EXEC_PREFIX, make_any_bot, parse_any_spec
from setgames.game import Game
from setgames.records import RECORDS_FILE, make_record, records_writer

__all__ = ["MAX_GAMES_PER_PAIRING", "RESULTS_FILE", "TIMING_FILE", "ArenaGame", "BotSpec", "max_workers",
           "run_arena"]

RESULTS_FILE = "results.json"
TIMING_FILE = "timing.json"
RESULTS_FORMAT = "setgames-arena/1"
# A million games of one pairing is days of play even for the cheapest bots, and their
# summary (one row a game in results.json) is about 200 MB: more is surely a typo.
MAX_GAMES_PER_PAIRING = 1_000_000


@dataclasses.dataclass(frozen=True)
class BotSpec:
    """A bot as the arena builds it, in each worker, for each game.

    Attributes:
        label: unique name in tables (default: the spec text).
        name: what :func:`~setgames.bots.specs.make_any_bot` builds: a built-in
            or plug-in name, ``module:Name`` or ``exec:COMMAND`` (ignored with ``factory``).
        options: keyword options, as sorted ``(key, value)`` pairs.
        factory: optional picklable ``(game_name, seed, **options) -> Bot``
            (a module-level class or function) for bots outside the registry.
        workdir: where an ``exec:`` program runs: :meth:`parse` sets the directory
            it is called in (the run's launching directory), so that a relative path
            in the command means the same in every worker, a Ray worker's included,
            whose own directory is the cluster's. A worker without that directory
            (another machine of a cluster) runs the program in its own.
    """

    label: str
    name: str
    options: tuple[tuple[str, Any], ...] = ()
    factory: Callable[..., Bot] | None = None
    workdir: str | None = None

    @classmethod
    def parse(cls, text: str, label: str | None = None) -> BotSpec:
        """From any spec form (:mod:`setgames.bots.specs`): ``"greedy"``,
        ``"ismcts:iterations=50"``, ``"mypkg.bots:Deep:depth=3"``, ``"exec:./engine"``."""
        name, options = parse_any_spec(text)
        workdir = os.getcwd() if name.startswith(EXEC_PREFIX) else None
        return cls(label or text.strip(), name, tuple(sorted(options.items())), workdir=workdir)

    def build(self, game_name: str, seed: int | None = None) -> Bot:
        """A fresh bot for game ``game_name``."""
        if self.factory is not None:
            return self.factory(game_name, seed, **dict(self.options))
        cwd = self.workdir if self.workdir is not None and os.path.isdir(self.workdir) else None
        return make_any_bot(self.name, game_name, seed, cwd=cwd, **dict(self.options))

    def to_json(self) -> dict[str, Any]:
        """Label, name and options as JSON-able data (not the workdir: where a run was
        launched from is no part of its results)."""
        name = self.name if self.factory is None else getattr(self.factory, "__qualname__", self.name)
        return {"label": self.label, "name": name, "options": dict(self.options)}


@dataclasses.dataclass(frozen=True)
class ArenaGame:
    """One game and config to play the round robin on.

    Attributes:
        game: a registry name (:func:`~setgames.registry.game_names`) or a :class:`Game` subclass
            (importable at module level, so workers can rebuild it).
        config: keyword config for the game.
    """

    game: str | type
    config: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, game: str | type, **config: Any) -> ArenaGame:
        """Convenience constructor with the config as keywords."""
        return cls(game, tuple(sorted(config.items())))

    def make(self) -> Game:
        """The rules object (validates the config)."""
        if isinstance(self.game, str):
            from setgames.registry import make_game

            return make_game(self.game, **dict(self.config))
        return self.game(**dict(self.config))


def side_score(returns: Sequence[float], sides: Sequence[int]) -> float:
    """Score of side A (0) in one game: 1 win, 0.5 draw, 0 loss.

    >>> side_score([1.0, -1.0], [0, 1]), side_score([0.0, 0.0], [1, 0]), side_score([3, 3, -6], [0, 0, 1])
    (1.0, 0.5, 1.0)
    """
    best = max(returns)
    top_sides = {sides[i] for i, r in enumerate(returns) if r == best}
    if len(top_sides) == 2:
        return 0.5
    return 1.0 if top_sides == {0} else 0.0


class _Progress:
    """A one-line progress bar on stderr, redrawn at most 5 times a second."""

    def __init__(self, total: int, enabled: bool, stream: Any = None):
        self.total = total
        self.enabled = enabled and total > 0
        self.stream = stream or sys.stderr
        self.start = time.perf_counter()
        self.last = 0.0
        self.done = 0

    def update(self, done: int) -> None:
        self.done = done
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self.last < 0.2 and done < self.total:
            return
        self.last = now
        elapsed = now - self.start
        width = 30
        filled = int(width * done / self.total)
        left = elapsed / done * (self.total - done) if done else 0.0
        self.stream.write(f"\rarena [{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} games"
                          f"  {elapsed:4.0f}s elapsed  ~{left:3.0f}s left ")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def _label_bots(bots: Sequence[BotSpec | str]) -> tuple[BotSpec, ...]:
    specs: list[BotSpec] = []
    seen: dict[str, int] = {}
    for b in bots:
        spec = BotSpec.parse(b) if isinstance(b, str) else b
        count = seen.get(spec.label, 0) + 1
        seen[spec.label] = count
        if count > 1:
            spec = dataclasses.replace(spec, label=f"{spec.label}#{count}")
        specs.append(spec)
    return tuple(specs)


def _game_name(game: Game, arena_game: ArenaGame) -> str:
    return arena_game.game if isinstance(arena_game.game, str) else game.name


def run_arena(
    games: Sequence[ArenaGame | str],
    bots: Sequence[BotSpec | str],
    games_per_pairing: int = 8,
    seed: int = 0,
    workers: int = 1,
    out: str | Path | None = None,
    progress: bool | None = None,
    pairings: Sequence[tuple[int, int]] | None = None,
    on_interrupt: str = "keep",
    executor: str | None = None,
    address: str | None = None,
    move_ms: float | None = None,
    game_ms: float | None = None,
    flag_only: bool = False,
) -> dict[str, Any]:
    """Play a round robin and return the results (also saved under ``out``).

    Args:
        games: games to play on (registry names or :class:`ArenaGame`).
        bots: bot specs (``"greedy"``, ``"ismcts:iterations=100"``) or :class:`BotSpec`;
            a repeated label gets a ``#2`` suffix (a bot may play a copy of itself).
        games_per_pairing: games per pairing and game, rounded up to whole
            duplicate sets (2 games per deal for 2 and 4 players, 6 for 3);
            at most :data:`MAX_GAMES_PER_PAIRING`.
        seed: master seed (non-negative int); fixes every deal and bot seed.
        workers: worker processes (``local``) or CPUs of the Ray started for
            the run (``ray`` without ``address``); at most :func:`max_workers`.
        out: directory for ``results.json``, ``records.jsonl`` and ``timing.json``.
        progress: progress bar on stderr (default: when stderr is a terminal).
        pairings: bot index pairs to play (default: every pair of distinct bots).
        on_interrupt: ``"keep"``: Ctrl-C or SIGTERM stops the run, keeps and
            saves the finished games and sets ``results["interrupted"]``;
            ``"raise"`` re-raises after saving.
        executor: ``"serial"`` (this process), ``"local"`` (worker processes)
            or ``"ray"`` (Ray tasks; the ``ray`` extra); default ``serial``
            for one worker, else ``local``. The results are the same on all.
        address: with ``ray``, a running cluster to join (``HOST:PORT``,
            ``ray://HOST:PORT`` or ``auto``); default: a Ray of its own.
        move_ms: time limit per decision, in milliseconds (default none).
        game_ms: time limit per game and seat, in milliseconds (default none).
        flag_only: a bot over its time is counted in ``results["arenas"][i]["flagged"]``
            instead of forfeiting (see :class:`~setgames.arena.worker.TimeControl`).

    Returns:
        The results dict written to ``results.json`` (see :data:`RESULTS_FORMAT`).
        Games lost to a worker that died are listed in ``results["lost_games"]``
        (by index; the key is there only when some were lost). A forfeited game
        has a ``forfeit`` entry (seat, bot, reason, detail); per game and config,
        ``forfeits`` counts them by bot and reason.

    Raises:
        ValueError: bad arguments (unknown game or bot, bad config or counts).
        ImportError: ``ray`` without Ray installed.
        ConnectionError: a Ray ``address`` that cannot be reached.
    """
    _check_count("games per pairing", games_per_pairing, MAX_GAMES_PER_PAIRING)
    _check_count("workers", workers, max_workers())
    games_per_pairing, workers = int(games_per_pairing), int(workers)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed {seed!r} must be a non-negative integer")
    if executor is None:
        executor = "serial" if workers == 1 else "local"
    if executor not in EXECUTORS:
        raise ValueError(f"unknown executor {executor!r}; choose from {', '.join(EXECUTORS)}")
    if address is not None and executor != "ray":
        raise ValueError(f"an address ({address!r}) is for the ray executor, not {executor!r}")
    clock = TimeControl(move_ms, game_ms, bool(flag_only))
    specs = _label_bots(bots)
    if len(specs) < 2:
        raise ValueError("an arena needs at least two bots")
    arena_games = [ArenaGame(g) if isinstance(g, str) else g for g in games]
    if not arena_games:
        raise ValueError("an arena needs at least one game")
    built = [g.make() for g in arena_games]  # validates every config before any game runs
    names = [_game_name(gm, ag) for gm, ag in zip(built, arena_games, strict=True)]
    for spec in specs:  # validates every bot and its options for every game
        for name in names:
            spec.build(name, 0).close()
    if pairings is None:
        pairings = [(i, j) for i in range(len(specs)) for j in range(i + 1, len(specs))]
    for i, j in pairings:
        if not (0 <= i < len(specs) and 0 <= j < len(specs)) or i == j:
            raise ValueError(f"bad pairing {(i, j)!r} for {len(specs)} bots")
    sets = [tuple(seatings(game.num_players)) for game in built]
    plan = Plan(tuple(arena_games), tuple(names), tuple(sets),
                tuple(-(-games_per_pairing // len(s)) for s in sets),
                tuple((int(a), int(b)) for a, b in pairings), seed)
    plans = list(zip(plan.seating_sets, plan.deals, strict=True))
    if executor == "ray":
        import_ray()  # refuses at once, before any file is written

    out_dir = Path(out) if out is not None else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    show = sys.stderr.isatty() if progress is None else progress
    bar = _Progress(len(plan), show)
    played: list[tuple[GameTask, dict[str, Any]]] = []
    lost: list[int] = []
    hist: dict[tuple[str, str], dict[int, int]] = {}
    interrupted: str | None = None
    started = time.perf_counter()
    writer = records_writer(out_dir / RECORDS_FILE) if out_dir is not None else None

    def summary() -> tuple[dict[str, Any], dict[str, Any]]:
        results = _summarise(arena_games, built, names, specs, pairings, plans, played, seed,
                             games_per_pairing, interrupted is not None)
        if lost:
            results["lost_games"] = lost
        return results, _timing(played, specs, hist, time.perf_counter() - started)

    with sigterm_as_interrupt():
        try:
            for index, res in execute(Job(plan, specs, clock), executor, workers, address):
                if res is None:
                    lost.append(index)
                    continue
                task = plan.task(index)
                # A game counts once it is both kept and recorded: a signal between
                # the two would leave results.json and records.jsonl a game apart.
                with signals_deferred():
                    if writer is not None:
                        writer.write(make_record(
                            game=task.game_name, version=res["version"], config=res["config"],
                            seed=task.deal_seed, actions=res["actions"],
                            seats=[specs[b].label for b in task.seat_bots], outcome=res["outcome"],
                            returns=res["returns"], forfeit=res["forfeit"],
                        ))
                    played.append((task, _kept(res)))
                for seat, took in enumerate(res["times"]):
                    _add_times(hist.setdefault((task.game_name, specs[task.seat_bots[seat]].label), {}),
                               took)
                bar.update(len(played) + len(lost))
        except KeyboardInterrupt as exc:
            interrupted = "SIGTERM" if isinstance(exc, Terminated) else "SIGINT"
            if on_interrupt != "keep":
                # A second Ctrl-C (people press it twice) waits until the files agree.
                with signals_deferred():
                    _finish(writer, bar)
                    _save(out_dir, *summary())
                raise
        finally:
            close_bots()  # the serial executor's external programs (the workers close their own)
            _finish(writer, bar)
        # The same here: records.jsonl is closed; results.json must follow it whole.
        with signals_deferred():
            results, timing = summary()
            _save(out_dir, results, timing)
    results["timing"] = timing  # wall-clock figures: shown, saved apart, never in results.json
    if interrupted is not None:
        results["stopped_by"] = interrupted  # shown, not saved: results.json says only "interrupted"
    return results


def max_workers() -> int:
    """The most worker processes (or local Ray CPUs) a run may ask for: 4 a core."""
    return 4 * (os.cpu_count() or 1)


def _check_count(what: str, value: Any, most: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not 1 <= value <= most:
        raise ValueError(f"{what} {value!r} must be an integer from 1 to {most:,}")


def _kept(res: dict[str, Any]) -> dict[str, Any]:
    # The actions went to records.jsonl; the summary needs only their number.
    return {"returns": res["returns"], "truncated": res["truncated"], "steps": len(res["actions"]),
            "seconds": res["seconds"], "moves": res["moves"], "wall": res["wall"],
            "cpu": res["cpu"], "forfeit": res["forfeit"], "flagged": res["flagged"]}


# Decision times go into bins 2**(1/16) apart (4% wide) from a microsecond: the median and
# p99 of any number of decisions, to 4%, in a few hundred counters a bot.
_BINS_PER_OCTAVE = 16
_FIRST_BIN = 1e-6


def _add_times(hist: dict[int, int], times: list[float]) -> None:
    for t in times:
        b = max(0, math.floor(_BINS_PER_OCTAVE * math.log2(max(t, _FIRST_BIN) / _FIRST_BIN)))
        hist[b] = hist.get(b, 0) + 1


def _quantile(hist: dict[int, int], q: float) -> float | None:
    """The ``q`` quantile of the times in ``hist`` (the centre of its bin), in seconds."""
    total = sum(hist.values())
    if not total:
        return None
    rank = q * total
    seen = 0
    for b in sorted(hist):
        seen += hist[b]
        if seen >= rank:
            return _FIRST_BIN * 2 ** ((b + 0.5) / _BINS_PER_OCTAVE)
    return None  # pragma: no cover - seen reaches total


def _finish(writer: Any, bar: _Progress) -> None:
    if writer is not None and not writer.closed:
        writer.close()
    if bar.enabled:
        bar.close()
        bar.enabled = False


def _summarise(arena_games: list[ArenaGame], built: list[Game], names: list[str],
               specs: tuple[BotSpec, ...], pairings: Sequence[tuple[int, int]], plans: list,
               played: list[tuple[GameTask, dict[str, Any]]], seed: int, games_per_pairing: int,
               interrupted: bool) -> dict[str, Any]:
    arenas = []
    for gi, (game, name) in enumerate(zip(built, names, strict=True)):
        sets, deals = plans[gi]
        mine = sorted(((t, r) for t, r in played if t.game_index == gi), key=lambda x: x[0].index)
        pair_rows = []
        for pi, (a, b) in enumerate(pairings):
            pr = [(t, r) for t, r in mine if t.pairing == pi]
            pair_rows.append(_pairing_stats(pi, a, b, specs, pr, len(sets)))
        ratings = rate([s.label for s in specs], pair_rows, seed)
        forfeits: dict[str, dict[str, int]] = {}
        flagged: dict[str, int] = {}
        for t, r in mine:
            f = r["forfeit"]
            if f is not None:
                reasons = forfeits.setdefault(f["bot"], {})
                reasons[f["reason"]] = reasons.get(f["reason"], 0) + 1
            for seat, count in enumerate(r["flagged"]):
                if count:
                    label = specs[t.seat_bots[seat]].label
                    flagged[label] = flagged.get(label, 0) + count
        arenas.append({
            "game": name,
            "version": game.version,
            "config": json.loads(json.dumps(game.config_dict())),
            "players": game.num_players,
            "seatings": ["".join("AB"[x] for x in s) for s in sets],
            "deals_planned": deals,
            "pairings": pair_rows,
            "ratings": ratings,
            "forfeits": {k: dict(sorted(v.items())) for k, v in sorted(forfeits.items())},
            "flagged": dict(sorted(flagged.items())),
            "games": [{
                "pairing": t.pairing, "deal": t.deal, "seating": "".join("AB"[x] for x in t.seat_sides),
                "seed": t.deal_seed, "seats": [specs[b].label for b in t.seat_bots],
                "returns": r["returns"], "score_a": side_score(r["returns"], t.seat_sides),
                "steps": r["steps"], "truncated": r["truncated"],
                **({"forfeit": r["forfeit"]} if r["forfeit"] is not None else {}),
            } for t, r in mine],
        })
    return {
        "format": RESULTS_FORMAT,
        "seed": seed,
        "games_per_pairing": int(games_per_pairing),
        "interrupted": interrupted,
        "seating_rule": SEATING_RULE,
        "score": "wins + half the draws, over games; 95% CI over deals (Student t on per-deal "
                 "means, Wilson when every deal scored the same)",
        "bots": [s.to_json() for s in specs],
        "pairings": [[specs[a].label, specs[b].label] for a, b in pairings],
        "arenas": arenas,
    }


def _pairing_stats(pi: int, a: int, b: int, specs: tuple[BotSpec, ...],
                   games: list[tuple[GameTask, dict[str, Any]]], per_deal: int) -> dict[str, Any]:
    by_deal: dict[int, list[tuple[GameTask, dict[str, Any]]]] = {}
    for t, r in games:
        by_deal.setdefault(t.deal, []).append((t, r))
    wins_a = wins_b = draws = 0
    deal_scores: list[list[float]] = []
    deal_means: list[float] = []
    rew_a: list[float] = []
    rew_b: list[float] = []
    for d in sorted(by_deal):
        s_sum = 0.0
        ra: list[float] = []
        rb: list[float] = []
        for t, r in by_deal[d]:
            s = side_score(r["returns"], t.seat_sides)
            s_sum += s
            wins_a += s == 1.0
            wins_b += s == 0.0
            draws += s == 0.5
            ra.append(sum(x for x, side in zip(r["returns"], t.seat_sides, strict=True) if side == 0)
                      / t.seat_sides.count(0))
            rb.append(sum(x for x, side in zip(r["returns"], t.seat_sides, strict=True) if side == 1)
                      / t.seat_sides.count(1))
        n = len(by_deal[d])
        deal_scores.append([s_sum, float(n)])
        deal_means.append(s_sum / n)
        rew_a.append(sum(ra) / n)
        rew_b.append(sum(rb) / n)
    n_games = wins_a + wins_b + draws
    score = (wins_a + draws / 2) / n_games if n_games else None
    ci = mean_interval(deal_means, 0.0, 1.0, proportion=True) if deal_means else None
    return {
        "a": a, "b": b, "bot_a": specs[a].label, "bot_b": specs[b].label,
        "games": n_games, "deals": len(deal_means), "complete_deals": sum(
            1 for d in by_deal.values() if len(d) == per_deal),
        "wins_a": wins_a, "wins_b": wins_b, "draws": draws,
        "score_a": None if score is None else round(score, 6),
        "score_a_ci": None if ci is None else [round(ci.low, 6), round(ci.high, 6)],
        "mean_reward_a": round(sum(rew_a) / len(rew_a), 6) if rew_a else None,
        "mean_reward_a_ci": _rounded(mean_interval(rew_a)) if len(rew_a) > 1 else None,
        "mean_reward_b": round(sum(rew_b) / len(rew_b), 6) if rew_b else None,
        "mean_reward_b_ci": _rounded(mean_interval(rew_b)) if len(rew_b) > 1 else None,
        "deal_scores": deal_scores,
    }


def _rounded(ci: tuple[float, float]) -> list[float]:
    return [round(ci[0], 6), round(ci[1], 6)]


def _timing(played: list[tuple[GameTask, dict[str, Any]]], specs: tuple[BotSpec, ...],
            hist: dict[tuple[str, str], dict[int, int]], wall: float) -> dict[str, Any]:
    per: dict[str, dict[str, dict[str, float]]] = {}
    for t, r in played:
        g = per.setdefault(t.game_name, {})
        for seat, b in enumerate(t.seat_bots):
            row = g.setdefault(specs[b].label, {"seconds": 0.0, "moves": 0, "games": 0})
            row["seconds"] += r["seconds"][seat]
            row["moves"] += r["moves"][seat]
        for b in set(t.seat_bots):
            per[t.game_name][specs[b].label]["games"] += 1
    for (game_name, label), h in hist.items():
        row = per.get(game_name, {}).get(label)
        if row is not None:
            med, p99 = _quantile(h, 0.5), _quantile(h, 0.99)
            row["median_ms"] = None if med is None else round(1000 * med, 4)
            row["p99_ms"] = None if p99 is None else round(1000 * p99, 4)
    # play_seconds: the games' own wall time in the workers, summed (play_cpu_seconds: their
    # CPU time); wall_seconds times the CPUs minus it is what starting, scheduling and idling cost.
    return {"wall_seconds": round(wall, 3), "games": len(played),
            "play_seconds": round(sum(r["wall"] for _, r in played), 3),
            "play_cpu_seconds": round(sum(r["cpu"] for _, r in played), 3), "per_game": per}


def _save(out_dir: Path | None, results: dict[str, Any], timing: dict[str, Any]) -> None:
    if out_dir is None:
        return
    # Written aside and renamed: a kill between the two never leaves half a results.json.
    for name, data in ((RESULTS_FILE, results), (TIMING_FILE, timing)):
        tmp = out_dir / (name + ".tmp")
        tmp.write_text(json.dumps(data, indent=1) + "\n")
        os.replace(tmp, out_dir / name)
