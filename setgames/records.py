"""Game records: one JSON line per game, replayed exactly.

A record holds what is needed to re-simulate a game and check it::

    {"game": "<name>", "version": 0, "config": {...}, "seed": 123,
     "seats": ["greedy", "random"], "actions": [3, 17, ...],
     "outcome": {...}, "returns": [1.0, -1.0]}

``game``, ``version``, ``config``, ``seed`` and ``actions`` are required
(:meth:`setgames.aec.SetGameEnv.record` gives exactly those); ``seats``
(who played each seat), ``outcome`` and ``returns`` are optional and, when
present, are checked by :func:`replay`. An arena game a bot forfeited
(``forfeit``: the seat, the bot and the reason) ends before the rules end it:
its actions replay, its game is not over, and its returns are the forfeit's.
Replaying rebuilds the deal with
``game.new_state(rng_from_seed(seed))`` and applies the actions one by one,
each checked for legality, so a record is a few hundred bytes however long
the game.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from setgames.checks import (
    MAX_RECORD_BYTES,
    check_real,
    check_seed,
    decode_text,
    parse_json,
    printable,
    short_repr,
)
from setgames.game import Game, rng_from_seed

__all__ = [
    "RECORDS_FILE",
    "RecordError",
    "RecordWriter",
    "ReplayResult",
    "load_records",
    "make_record",
    "record_from_env",
    "records_writer",
    "render_replay",
    "replay",
    "validate_record",
]

RECORDS_FILE = "records.jsonl"
_REQUIRED = {"game": str, "version": int, "config": dict, "seed": int, "actions": list}
_OPTIONAL = {"seats": list, "outcome": dict, "returns": list, "forfeit": dict}
_MAX_VERSION = 2**31 - 1  # versions are small counters; a bound keeps messages and checks short


class RecordError(ValueError):
    """A record that is malformed, from another game version, or that does not replay."""


def make_record(game: str, version: int, config: dict[str, Any], seed: int, actions: list[int],
                seats: list[str] | None = None, outcome: dict[str, Any] | None = None,
                returns: list[float] | None = None, forfeit: dict[str, Any] | None = None) -> dict[str, Any]:
    """A record dict; optional fields are left out when None."""
    rec: dict[str, Any] = {"game": game, "version": int(version), "config": dict(config),
                           "seed": int(seed), "actions": [int(a) for a in actions]}
    if seats is not None:
        rec["seats"] = list(seats)
    if outcome is not None:
        rec["outcome"] = outcome
    if returns is not None:
        rec["returns"] = [float(r) for r in returns]
    if forfeit is not None:
        rec["forfeit"] = dict(forfeit)
    return rec


def record_from_env(env: Any, seats: list[str] | None = None) -> dict[str, Any]:
    """The record of the game an env (bare or wrapped) has played, with its
    outcome and returns once it is over."""
    base = getattr(env, "unwrapped", env)
    rec = base.record()
    game, state = base.game, base.game_state
    over = game.is_over(state)
    return make_record(rec["game"], rec["version"], rec["config"], rec["seed"], rec["actions"],
                       seats=seats,
                       outcome=json.loads(json.dumps(game.outcome(state))) if over else None,
                       returns=list(game.returns(state)) if over else None)


def validate_record(rec: Any) -> dict[str, Any]:
    """``rec`` if it has the record shape, else :class:`RecordError` naming the problem."""
    if not isinstance(rec, dict):
        raise RecordError(f"a record is a JSON object, not {type(rec).__name__}")
    for key, typ in _REQUIRED.items():
        if key not in rec:
            raise RecordError(f"record has no {key!r} field")
        value = rec[key]
        if not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
            raise RecordError(f"record field {key!r} must be {typ.__name__}, not {value!r:.40}")
    for key, typ in _OPTIONAL.items():
        if key in rec and rec[key] is not None and not isinstance(rec[key], typ):
            raise RecordError(f"record field {key!r} must be {typ.__name__}, not {rec[key]!r:.40}")
    if any(not isinstance(a, int) or isinstance(a, bool) for a in rec["actions"]):
        raise RecordError("record 'actions' must be a list of integer action ids")
    try:
        check_seed(rec["seed"], "record 'seed'")
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    if not 0 <= rec["version"] <= _MAX_VERSION:
        raise RecordError(f"record 'version' {short_repr(rec['version'])} must be 0..{_MAX_VERSION}")
    seats, returns = rec.get("seats"), rec.get("returns")
    if seats is not None and any(not isinstance(x, str) for x in seats):
        raise RecordError("record 'seats' must be a list of names (strings)")
    if returns is not None:
        try:
            for r in returns:
                check_real("record 'returns' entry", r, -sys.float_info.max, sys.float_info.max)
        except ValueError as exc:
            raise RecordError(str(exc)) from None
    return rec


def load_records(path: str | Path) -> list[dict[str, Any]]:
    """Every record of a JSON-lines file (blank lines skipped), validated.

    Each line is read through at most :data:`~setgames.checks.MAX_RECORD_BYTES`
    bytes, so a file without line ends (``/dev/zero``) is refused, not read whole.

    Raises:
        RecordError: a line that is too long, not text, not JSON or not a record
            (with its line number).
        OSError: the file cannot be read.
    """
    path = Path(path)
    out = []
    with path.open("rb") as fh:
        for lineno, raw in enumerate(iter(lambda: fh.readline(MAX_RECORD_BYTES + 1), b""), 1):
            where = f"{path}:{lineno}"
            if len(raw) > MAX_RECORD_BYTES:
                raise RecordError(f"{where}: line longer than {MAX_RECORD_BYTES:,} bytes: not a record")
            try:
                line = decode_text(raw, where)
                if not line.strip():
                    continue
                rec = parse_json(line, where)
            except ValueError as exc:
                raise RecordError(str(exc)) from None
            try:
                out.append(validate_record(rec))
            except RecordError as exc:
                raise RecordError(f"{where}: {exc}") from None
    if not out:
        raise RecordError(f"{path}: no records in the file")
    return out


class RecordWriter:
    """Appends records as JSON lines, flushed one by one so a crash keeps them."""

    def __init__(self, fh: IO[str]):
        self._fh = fh

    @property
    def closed(self) -> bool:
        """True once closed."""
        return self._fh.closed

    def write(self, rec: dict[str, Any]) -> None:
        """Write one record line."""
        self._fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
        self._fh.flush()

    def close(self) -> None:
        """Close the file."""
        self._fh.close()


def records_writer(path: str | Path) -> RecordWriter:
    """A :class:`RecordWriter` on a new (truncated) file."""
    return RecordWriter(Path(path).open("w", encoding="utf-8"))


@dataclass
class ReplayResult:
    """A replayed game: the rules, the final state, its returns and outcome."""

    game: Game
    state: Any
    returns: tuple[float, ...]
    outcome: dict[str, Any]


def _game_of(rec: dict[str, Any], game_factory: Callable[..., Game] | None) -> Game:
    if game_factory is None:
        from setgames.registry import game_class

        cls = game_class(rec["game"])  # ValueError on an unknown game
        if rec["version"] != cls.version:
            raise RecordError(f"record is for {rec['game']} version {rec['version']}, but this "
                              f"library implements version {cls.version}")
        factory: Callable[..., Game] = cls
    else:
        factory = game_factory
    try:
        game = factory(**rec["config"])
    except (TypeError, ValueError) as exc:
        raise RecordError(f"record config does not fit {rec['game']}: {exc}") from None
    if game.version != rec["version"]:
        raise RecordError(f"record is for {rec['game']} version {rec['version']}, but this "
                          f"library implements version {game.version}")
    return game


def replay(rec: dict[str, Any], game_factory: Callable[..., Game] | None = None,
           on_step: Callable[[Game, Any, int, int], None] | None = None) -> ReplayResult:
    """Re-simulate a record and check it.

    Args:
        rec: a record (validated here).
        game_factory: builds the game from the config (default: the registry class
            of ``rec["game"]``, after checking the version).
        on_step: called as ``on_step(game, state, index, action)`` before each action.

    Raises:
        RecordError: bad shape, other version, an illegal action, a game that
            does not end with the last action, or an outcome/returns mismatch.
    """
    validate_record(rec)
    game = _game_of(rec, game_factory)
    state = game.new_state(rng_from_seed(rec["seed"]))
    for i, a in enumerate(rec["actions"]):
        if game.is_over(state):
            raise RecordError(f"record has {len(rec['actions'])} actions but the game ended after {i}")
        if a not in game.legal_actions(state):
            raise RecordError(f"action {i} ({short_repr(a)}) is illegal in the replayed game: the "
                              "record does not belong to this deal or rules version")
        if on_step is not None:
            on_step(game, state, i, a)
        game.apply(state, a)
    outcome = json.loads(json.dumps(game.outcome(state))) if game.is_over(state) else {}
    returns = tuple(float(r) for r in game.returns(state))
    # An optional field written as null counts as absent (validate_record allows it).
    has_outcome, has_returns = rec.get("outcome") is not None, rec.get("returns") is not None
    if rec.get("forfeit") is not None:
        if game.is_over(state) or has_outcome:
            raise RecordError("record says a bot forfeited, but its game ended by the rules")
        if has_returns:
            returns = tuple(float(r) for r in rec["returns"])
    elif has_outcome or has_returns:
        if not game.is_over(state):
            raise RecordError("record claims an outcome but its game is not over after its actions")
        if has_outcome and rec["outcome"] != outcome:
            raise RecordError(f"replayed outcome {short_repr(outcome, 200)} differs from the recorded "
                              f"{short_repr(rec['outcome'], 200)}")
        if has_returns and [float(r) for r in rec["returns"]] != list(returns):
            raise RecordError(f"replayed returns {list(returns)} differ from the recorded "
                              f"{short_repr(rec['returns'], 200)}")
    return ReplayResult(game, state, returns, outcome)


def render_replay(rec: dict[str, Any], seat: int | None = None,
                  game_factory: Callable[..., Game] | None = None) -> Iterator[str]:
    """The game step by step as text blocks: the table before each action
    (all cards, or only ``seat``'s view), then the action; last, the outcome.

    The record is fully replayed and checked before the first block is yielded.
    """
    result = replay(rec, game_factory)
    game = result.game
    # Names come from the file: no control characters reach the terminal.
    seats = [printable(x) for x in rec.get("seats") or [f"seat {s}" for s in range(game.num_players)]]
    state = game.new_state(rng_from_seed(rec["seed"]))
    head = (f"{rec['game']} v{rec['version']}  seed {rec['seed']}  config {json.dumps(rec['config'])}\n"
            f"seats: " + ", ".join(f"{i}={name}" for i, name in enumerate(seats)))
    yield head
    for i, a in enumerate(rec["actions"]):
        mover = game.current_seat(state)
        board = game.render(state, seat)
        who = seats[mover] if 0 <= mover < len(seats) else f"seat {mover}"
        yield f"{board}\n-> step {i + 1}: seat {mover} ({who}) plays {game.action_to_str(a)}"
        game.apply(state, a)
    returns = ", ".join(f"{r:+g}" for r in result.returns)
    forfeit = rec.get("forfeit")
    if forfeit is not None:
        # Bot-written text (a crash's stderr line) reaches the terminal only as printable text.
        why = printable(f"{forfeit.get('reason', '?')}: {forfeit.get('detail', '')}")
        yield (f"{game.render(state, seat)}\n== forfeited by seat {printable(str(forfeit.get('seat')))} "
               f"({printable(str(forfeit.get('bot')))}): {why}; returns {returns}")
        return
    yield (f"{game.render(state, seat)}\n== final: returns {returns}; outcome {json.dumps(result.outcome)}")
