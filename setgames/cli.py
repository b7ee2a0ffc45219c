"""The ``setgames`` command line: ``setgames arena | eval | bots | replay | bench | train | play | serve``.

Subcommands live in :data:`COMMANDS`; a new one (``play``, ...) is one
:func:`register_command` call with a function that adds its arguments and
one that runs it and returns the exit status.

Errors the user can fix (an unknown game or bot, a player count the game
does not allow, a corrupt record or one from another game version, a file
that cannot be read) end with one line on stderr, ``setgames: error: ...``,
and exit status 2; never a traceback. Ctrl-C during an arena keeps and
saves the games already finished and exits with status 130 (SIGTERM: the
same, status 143); an arena that lost games to a dead worker saves the rest,
names the lost ones in one line and exits with status 1.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import inspect
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from setgames.usage import UsageError, build_game, parse_config

__all__ = ["COMMANDS", "Command", "main", "register_command"]

DEFAULT_OUT = "arena-results"  # directory the arena writes its results to
# The main job: 50 duplicate deals (100 games) a pairing is what a minute on 2 cores allows
# with the compiled search at its default budget, and enough that search beats greedy and
# greedy beats random clearly in two games of three (measured: 59 s, load ~0.6). In the
# third, search vs greedy stays unclear: 2,000 games put it at 52% (docs/guides/strength.md).
DEFAULT_GAMES_PER_PAIRING = 100
# The compiled search at each game's default budget (its search module's DEFAULT_ITERS), the
# one the strength table is about; three bots keep the pairings to three a game.
DEFAULT_BOTS = ("search", "greedy", "random")
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143  # 128 + SIGTERM, as a shell reports a process that SIGTERM ended
EXIT_LOST = 1


class ArenaLost(Exception):
    """An arena finished but lost games to dead workers: one line, exit status 1."""


@dataclass(frozen=True)
class Command:
    """A subcommand: its help line, its argument setup and its action."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


COMMANDS: dict[str, Command] = {}


def register_command(name: str, help: str, add_arguments: Callable[[argparse.ArgumentParser], None],
                     run: Callable[[argparse.Namespace], int]) -> None:
    """Add (or replace) subcommand ``name``."""
    COMMANDS[name] = Command(name, help, add_arguments, run)


# ---------------------------------------------------------------- arena
def split_bot_specs(items: Sequence[str]) -> list[str]:
    """Bot specs from the command line: ``random greedy`` or ``random,greedy``;
    ``key=value`` pieces after a comma belong to the bot before them; an
    ``exec:`` item is one command, commas and all.

    >>> split_bot_specs(["random,ismcts:iterations=50,c=0.5", "greedy", "exec:./bot --a,b"])
    ['random', 'ismcts:iterations=50,c=0.5', 'greedy', 'exec:./bot --a,b']
    """
    out: list[str] = []
    for item in items:
        if item.strip().startswith("exec:"):
            out.append(item.strip())
            continue
        for token in item.split(","):
            token = token.strip()
            if not token:
                continue
            if "=" in token and ":" not in token and out:
                out[-1] += ("," if ":" in out[-1] and not out[-1].endswith(":") else "") + token
            else:
                out.append(token)
    return out


def _arena_game(name: str, config: dict[str, Any], players: int | None) -> Any:
    from setgames.arena import ArenaGame
    from setgames.registry import game_class

    cls = game_class(name)
    if players is None:
        build_game(cls, name, config)
        return ArenaGame.of(name, **config)
    if "num_players" not in inspect.signature(cls).parameters:
        game = build_game(cls, name, config)
        if game.num_players != players:
            raise UsageError(f"{name} is played by {game.num_players} players, not {players}")
        return ArenaGame.of(name, **config)
    try:
        cls(**config, num_players=players)
    except ValueError as exc:
        raise UsageError(f"{name} does not allow {players} players: {exc}") from None
    except TypeError as exc:
        raise UsageError(f"bad config for {name}: {exc}") from None
    return ArenaGame.of(name, **config, num_players=players)


def _add_run_arguments(p: argparse.ArgumentParser) -> None:
    """Where the games run and their time controls: the options ``arena`` and ``eval`` share."""
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="worker processes, or the CPUs of the Ray started for the run (default: the "
                        "number of cores, at most 4; with --address the cluster's CPUs are used)")
    p.add_argument("--executor", choices=("serial", "local", "ray"), default=None,
                   help="where the games run: this process, local worker processes, or Ray tasks "
                        "(pip install -e '.[ray]'); default serial for one worker, else local")
    p.add_argument("--address", default=None, metavar="ADDR",
                   help="with --executor ray: join the Ray cluster at HOST:PORT (ray start --head), "
                        "ray://HOST:PORT or auto, instead of starting one")
    p.add_argument("--move-ms", type=float, default=None, metavar="MS",
                   help="time limit per decision in milliseconds: enforced on exec: bots, checked on "
                        "all; over it a bot forfeits the game (default: none; exec: bots are cut off "
                        "after 10 s)")
    p.add_argument("--game-ms", type=float, default=None, metavar="MS",
                   help="time limit per game for each seat's decisions together, in milliseconds")
    p.add_argument("--flag-only", action="store_true",
                   help="a bot over its time is only flagged in the results, not forfeited (an exec: "
                        "bot is still cut off at 10 times the limit, at least 10 s)")
    p.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="force the progress bar on (default: when stderr is a terminal)")
    p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")


def _check_run_options(args: argparse.Namespace) -> int:
    """Refuse bad run options (:func:`_add_run_arguments`) in one line; the worker count."""
    from setgames.arena.runner import max_workers

    workers = args.workers if args.workers is not None else max(1, min(4, os.cpu_count() or 1))
    if not 1 <= workers <= max_workers():
        raise UsageError(f"--workers {workers} must be from 1 to {max_workers()} (4 a core)")
    if args.address is not None and args.executor != "ray":
        raise UsageError("--address is for --executor ray")
    for key in ("move_ms", "game_ms"):
        value = getattr(args, key)
        if value is not None and not 0 < value < 1e9:
            raise UsageError(f"--{key.replace('_', '-')} {value:g} must be a positive number of milliseconds")
    if args.flag_only and args.move_ms is None and args.game_ms is None:
        raise UsageError("--flag-only needs a time limit: --move-ms or --game-ms")
    return workers


def _add_arena_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", dest="game", action="append", metavar="NAME",
                   help="game(s) to play, comma-separated or repeated (default: all three)")
    p.add_argument("--bots", nargs="+", metavar="BOT",
                   help="bots, e.g. random greedy ismcts:iterations=100 (default: search greedy random, "
                        "the compiled search at its default budget); also a plug-in's name, "
                        "module.path:Name[:key=value,...] or 'exec:COMMAND' (see setgames bots)")
    p.add_argument("--games", type=int, default=DEFAULT_GAMES_PER_PAIRING, metavar="N",
                   help=f"games per pairing and game, rounded up to whole duplicate deals "
                        f"(default {DEFAULT_GAMES_PER_PAIRING})")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="master seed (default 0)")
    p.add_argument("--out", default=DEFAULT_OUT, metavar="DIR",
                   help=f"directory for results.json and records.jsonl (default ./{DEFAULT_OUT})")
    p.add_argument("--players", type=int, default=None, metavar="N",
                   help="player count, for games that allow several")
    p.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                   help="game config option (repeatable)")
    p.add_argument("--plot", action="store_true", help="also save ratings.png (needs the plot extra)")
    _add_run_arguments(p)


def _run_arena(args: argparse.Namespace) -> int:
    from setgames.arena import RESULTS_FILE, BotSpec, format_results, run_arena
    from setgames.arena.runner import MAX_GAMES_PER_PAIRING
    from setgames.records import RECORDS_FILE
    from setgames.registry import GAME_NAMES

    names: list[str] = []
    for item in args.game or [",".join(GAME_NAMES)]:
        names += [x.strip() for x in item.split(",") if x.strip()]
    for n in names:
        if n not in GAME_NAMES:
            raise UsageError(f"unknown game {n!r}; choose from {', '.join(GAME_NAMES)}")
    if args.players is not None and args.players < 1:
        raise UsageError(f"--players {args.players} must be a positive number")
    if not 1 <= args.games <= MAX_GAMES_PER_PAIRING:
        raise UsageError(f"--games {args.games} must be from 1 to {MAX_GAMES_PER_PAIRING:,}")
    if args.seed < 0:
        raise UsageError(f"--seed {args.seed} must be >= 0")
    workers = _check_run_options(args)
    config = parse_config(args.config)
    games = [_arena_game(n, config, args.players) for n in names]
    bots = [BotSpec.parse(s) for s in split_bot_specs(args.bots or DEFAULT_BOTS)]
    out = Path(args.out)
    results = run_arena(games, bots, games_per_pairing=args.games, seed=args.seed, workers=workers,
                        out=out, progress=args.progress, executor=args.executor, address=args.address,
                        move_ms=args.move_ms, game_ms=args.game_ms, flag_only=args.flag_only)
    print(format_results(results))
    print(f"\nSaved {out / RESULTS_FILE} and {out / RECORDS_FILE} "
          f"(replay a game: setgames replay {out / RECORDS_FILE} --index 0)")
    if args.plot:
        from setgames.arena.plot import PLOT_FILE, plot_ratings

        try:
            print(f"Saved {plot_ratings(results, out / PLOT_FILE)}")
        except ImportError as exc:
            raise UsageError(str(exc)) from None
    return _run_status(results, sum(len(a["games"]) for a in results["arenas"]), out)


def _run_status(results: dict[str, Any], played: int, out: Path) -> int:
    """The exit status of a finished run (arena or gauntlet): interrupted, or games lost to a
    dead worker (``results["lost_games"]``; ``played`` games were kept)."""
    from setgames.arena.plan import describe_indices

    if results["interrupted"]:  # a signal to the whole group also ends workers: that is no loss
        return EXIT_TERMINATED if results.get("stopped_by") == "SIGTERM" else EXIT_INTERRUPTED
    lost = results.get("lost_games")
    if lost:
        raise ArenaLost(f"a worker died: lost {len(lost)} game(s) (game indices {describe_indices(lost)}); "
                        f"the other {played} are kept in {out}")
    return 0


# ---------------------------------------------------------------- eval
DEFAULT_EVAL_OUT = "gauntlet-results"
DEFAULT_GAMES_PER_CONFIG = 20


def _add_eval_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("bot", metavar="BOT",
                   help="the bot to evaluate: any spec (greedy, level:3, ismcts:iterations=50, a plug-in's "
                        "name, module.path:Name[:key=value,...] or 'exec:COMMAND')")
    p.add_argument("--games-per-config", type=int, default=DEFAULT_GAMES_PER_CONFIG, metavar="N",
                   help=f"games against each reference in each game and config, rounded up to whole "
                        f"duplicate deals (default {DEFAULT_GAMES_PER_CONFIG})")
    p.add_argument("--seed-set", type=int, default=0, metavar="K",
                   help="which fixed set of deals (default 0, the standard one: reports compare; "
                        "another set checks a rating on other deals)")
    p.add_argument("--out", default=DEFAULT_EVAL_OUT, metavar="DIR",
                   help=f"directory for gauntlet.md, gauntlet.json, gauntlet.png and the arena's files "
                        f"(default ./{DEFAULT_EVAL_OUT})")
    p.add_argument("--no-plot", dest="plot", action="store_false",
                   help="no gauntlet.png (it needs the plot extra; without it the plot is skipped "
                        "with a note)")
    _add_run_arguments(p)


def _run_eval(args: argparse.Namespace) -> int:
    from setgames.arena.gauntlet import GAUNTLET_FILE, run_gauntlet
    from setgames.arena.gauntlet_report import format_gauntlet, save_report
    from setgames.arena.runner import MAX_GAMES_PER_PAIRING

    if not 1 <= args.games_per_config <= MAX_GAMES_PER_PAIRING:
        raise UsageError(f"--games-per-config {args.games_per_config} must be from 1 to "
                         f"{MAX_GAMES_PER_PAIRING:,}")
    if args.seed_set < 0:
        raise UsageError(f"--seed-set {args.seed_set} must be >= 0")
    workers = _check_run_options(args)
    out = Path(args.out)
    report = run_gauntlet(args.bot, games_per_config=args.games_per_config, seed_set=args.seed_set,
                          workers=workers, executor=args.executor, address=args.address, out=out,
                          progress=args.progress, move_ms=args.move_ms, game_ms=args.game_ms,
                          flag_only=args.flag_only)
    print(format_gauntlet(report))
    try:
        written = save_report(report, out, plot=args.plot)
    except ImportError as exc:  # the Markdown is saved; only the picture needs matplotlib
        written = [out / "gauntlet.md"]
        print(f"No plot: {exc}")
    print(f"Saved {out / GAUNTLET_FILE}, {', '.join(str(p) for p in written)} and the arena's files in {out}")
    played = sum(r["games"] for entry in report["configs"] for r in entry["references"])
    return _run_status(report, played, out)


# ---------------------------------------------------------------- bots
def _add_bots_arguments(p: argparse.ArgumentParser) -> None:
    pass


def _run_bots(args: argparse.Namespace) -> int:
    from setgames.bots.specs import ENTRY_POINT_GROUP, bot_listing

    rows = bot_listing()
    width = max(len(name) for name, _, _ in rows)
    where_width = max(len(where) for _, where, _ in rows)
    for name, where, desc in rows:
        print(f"{name:<{width}}  {where:<{where_width}}  {desc}")
    from setgames.bots.levels import LADDER_VERSION, LEVELS

    print(f"\nStrength levels (ladder version {LADDER_VERSION}), what each plays per game:")
    for lv in LEVELS:
        plays = "; ".join(f"{game} {spec}" for game, spec in lv.specs)
        print(f"  level:{lv.number} {lv.name:<12}  {plays}")
    print(f"\nAlso: module.path:Name[:key=value,...] (a setgames.bots.Bot class or factory), plug-ins "
          f"installed\nunder the entry-point group {ENTRY_POINT_GROUP!r}, and 'exec:COMMAND' for a program "
          f"in any\nlanguage speaking the JSON-lines bot protocol (docs/bot-protocol.md).")
    return 0


# ---------------------------------------------------------------- replay
def _add_replay_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="a records file (one JSON record per line)")
    p.add_argument("--index", type=int, default=0, metavar="K",
                   help="which record to render step by step (default 0, the first)")
    p.add_argument("--seat", type=int, default=None, metavar="S",
                   help="show only what seat S could see (default: everything)")
    p.add_argument("--check", action="store_true",
                   help="only re-simulate and check every record; render nothing")
    p.add_argument("--html", default=None, metavar="OUT",
                   help="write record K as a self-contained HTML page that steps through it (pictures)")


def _write_replay_html(rec: dict, seat: int | None, out: str) -> None:
    from setgames.draw.replay import replay_html

    try:
        with open(out, "w", encoding="utf-8") as f:
            f.write(replay_html(rec, seat=seat))
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from None
    print(f"wrote {out}: {len(rec['actions'])} moves as pictures")


def _run_replay(args: argparse.Namespace) -> int:
    from setgames.records import load_records, render_replay, replay

    records = load_records(args.file)
    players = []
    for i, rec in enumerate(records):
        try:
            players.append(replay(rec).game.num_players)
        except ValueError as exc:
            raise UsageError(f"{args.file}: record {i}: {exc}") from None
    if not args.check:
        if not 0 <= args.index < len(records):
            raise UsageError(f"--index {args.index} is out of range: the file has {len(records)} records")
        rec = records[args.index]
        if args.seat is not None and not 0 <= args.seat < players[args.index]:
            raise UsageError(f"--seat {args.seat} is not a seat of this game")
        if args.html is not None:
            _write_replay_html(rec, args.seat, args.html)
        else:
            for block in render_replay(rec, seat=args.seat):
                print(block)
                print()
    print(f"replayed {len(records)} record(s) from {args.file}: every outcome matches")
    return 0


# ---------------------------------------------------------------- bench
def _add_bench_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("bench_args", nargs=argparse.REMAINDER, help="arguments for the benchmarks")


def _run_bench(args: argparse.Namespace) -> int:
    try:
        bench = importlib.import_module("setgames.bench")
    except ModuleNotFoundError as exc:
        if exc.name in ("setgames.bench",):
            raise UsageError("the benchmarks are not installed in this copy of setgames "
                             "(no setgames.bench module)") from None
        raise
    if not callable(getattr(bench, "main", None)):
        raise UsageError("setgames.bench has no main() yet: the benchmarks are not finished in this copy")
    status = bench.main(list(args.bench_args))
    return int(status or 0)


# ---------------------------------------------------------------- train
def _add_train_arguments(p: argparse.ArgumentParser) -> None:
    from setgames.learn.cli import add_arguments

    add_arguments(p)


def _run_train(args: argparse.Namespace) -> int:
    from setgames.learn.cli import run

    return run(args)


# ---------------------------------------------------------------- play
def _add_play_arguments(p: argparse.ArgumentParser) -> None:
    from setgames.play import add_arguments

    add_arguments(p)


def _run_play(args: argparse.Namespace) -> int:
    from setgames.play import run

    return run(args)


register_command("arena", "round robin of bots on the games, with a results table",
                 _add_arena_arguments, _run_arena)
register_command("eval", "the standard gauntlet: a bot against the versioned ladder of references, "
                 "with a rating on a fixed scale", _add_eval_arguments, _run_eval)
register_command("bots", "list the bots: built-in and installed plug-ins, and the other spec forms",
                 _add_bots_arguments, _run_bots)
register_command("replay", "re-simulate a game record, check it and show it step by step",
                 _add_replay_arguments, _run_replay)
register_command("bench", "run the throughput benchmarks", _add_bench_arguments, _run_bench)
register_command("train", "train the ppo bot's policy on a game's batched engine (needs torch)",
                 _add_train_arguments, _run_train)
register_command("play", "play against the bots in a terminal: hints, undo/redo, save/load, watch",
                 _add_play_arguments, _run_play)


# ---------------------------------------------------------------- serve
def _add_serve_arguments(p: argparse.ArgumentParser) -> None:
    from setgames.web.command import add_arguments

    add_arguments(p)


def _run_serve(args: argparse.Namespace) -> int:
    from setgames.web.command import run

    return run(args)


register_command("serve", "a local web page to play the games against the bots (127.0.0.1)",
                 _add_serve_arguments, _run_serve)


def _version_line() -> str:
    """``setgames X.Y.Z`` and whether the compiled engines are in use (what ``--version`` prints)."""
    from setgames import __version__
    from setgames.engine import engine_class
    from setgames.registry import GAME_NAMES, make_game

    built = [name for name in GAME_NAMES if engine_class(make_game(name)) is not None]
    engines = ", ".join(built) if built else "none (the pure-Python rules layer steps every game)"
    return f"setgames {__version__} (compiled engines: {engines})"


class _VersionAction(argparse.Action):
    """``--version``: print :func:`_version_line` (computed only when asked) and exit 0."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **{k: v for k, v in kwargs.items() if k != "nargs"})

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        print(_version_line())
        parser.exit(0)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage dump
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every registered subcommand."""
    from setgames import registry

    parser = _Parser(prog="setgames", allow_abbrev=False,
                     description="Bots, arena and game records for the setgames card games "
                                 f"({', '.join(registry.game_title(n) for n in registry.game_names())}).")
    parser.add_argument("--version", action=_VersionAction,
                        help="print the version and the compiled engines in use")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for cmd in COMMANDS.values():
        sp = sub.add_parser(cmd.name, help=cmd.help, description=cmd.help)
        cmd.add_arguments(sp)
        sp.set_defaults(_run=cmd.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``setgames``; returns the exit status (also when run as a script)."""
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    # The benchmarks own their flags (--quick, --only, ...): argparse's REMAINDER
    # would refuse a first one that starts with "-", so hand them over untouched.
    passthrough: list[str] | None = None
    if argv[:1] == ["bench"]:
        argv, passthrough = argv[:1], argv[1:]
    try:
        args = parser.parse_args(argv)
        if passthrough is not None:
            args.bench_args = passthrough
        if args.command is None:
            parser.print_help()
            return EXIT_USAGE
        return int(args._run(args) or 0)
    except UsageError as exc:
        return _fail(str(exc))
    except ArenaLost as exc:
        _fail(str(exc))
        return EXIT_LOST
    except KeyboardInterrupt:
        print("setgames: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # `setgames replay FILE | head`: the reader has gone, which is not an error. stdout is
        # pointed at devnull so that the interpreter's last flush does not complain either.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_INTERRUPTED
    except (ValueError, OSError, ImportError, RuntimeError) as exc:
        return _fail(str(exc) or type(exc).__name__)
    except (MemoryError, RecursionError) as exc:  # an input too large or too deep for this machine
        return _fail(f"out of memory or stack on this input ({type(exc).__name__})")


def _fail(message: str) -> int:
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    print(f"setgames: error: {message.splitlines()[0] if message else 'failed'}", file=sys.stderr)
    return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
