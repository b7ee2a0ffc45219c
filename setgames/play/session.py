"""The model behind a terminal game against the bots: no input, no output.

A :class:`Session` holds one game between a human seat and bots: the seed and
the actions played (which replay the game exactly), a snapshot of the state
before every action (so undo costs nothing), the redo stack, and the tools a
human player asks for: a hint from the strongest bot, a quick legal move, and
saving or loading the game as a record.

An opponent that fails to move (an ``exec:`` program that crashes, hangs, answers an
illegal move or garbage: :class:`~setgames.bots.base.BotFault`; a Python bot that
raises or returns an illegal action) forfeits, as in the arena: the session records
a :class:`Forfeit` and its game is over (the human wins). The deal itself is not
over, so nothing hidden is revealed: ``undo`` takes the forfeit back with the
human's last move, and a save holds only the moves (its format is unchanged), so
loading it asks the bot again. The hint bot is the human's helper, not an
opponent: its failure is a :class:`SessionError` and the game goes on.

Bots are reseeded before every move from ``(seed, seat, ply)``: a bot's move is
then a function of the position and the move number only, so a saved game
that is loaded and continued with the same human moves reaches the same end,
and undoing then replaying the same move brings back the same replies.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from setgames.bots import Bot, make_bot, parse_bot_spec
from setgames.bots.base import BotFault
from setgames.checks import as_action, is_integer, parse_json, read_text, short_repr
from setgames.game import Game, rng_from_seed
from setgames.play.tools import table_tools
from setgames.records import RecordError, make_record, validate_record

__all__ = [
    "BOT_STRENGTH_ORDER",
    "HUMAN",
    "MAX_DETAIL",
    "Forfeit",
    "Hint",
    "LoadError",
    "Session",
    "SessionError",
    "bot_seed",
    "load_record",
    "make_named_bot",
    "strongest_bot_name",
]

HUMAN = "human"  # the name a human seat has in a saved record's "seats"
# Strongest first; the hint uses the first available.
BOT_STRENGTH_ORDER = ("search", "ismcts", "greedy", "random")
_SEED_LIMIT = 2**63  # seeds live in [0, 2**63), as the env's
MAX_DETAIL = 300  # characters of a forfeit's detail kept (as the arena's records)


class SessionError(ValueError):
    """A request the session refuses (nothing to undo, illegal move, ...); the
    state is unchanged when it is raised."""


class LoadError(SessionError):
    """A save file that cannot be read, is not a record, or does not replay."""


def bot_seed(seed: int, seat: int, ply: int) -> int:
    """Seed of the bot at ``seat`` for the move at ``ply`` of the game ``seed``.

    >>> bot_seed(7, 1, 3) == bot_seed(7, 1, 3), bot_seed(7, 1, 3) == bot_seed(7, 1, 4)
    (True, False)
    """
    return int(np.random.SeedSequence([int(seed), int(seat), int(ply)]).generate_state(1, np.uint64)[0]
               % _SEED_LIMIT)


def make_named_bot(spec: str, game_name: str, seed: int | None = None) -> Bot:
    """A bot from a spec such as ``"greedy"`` or ``"ismcts:iterations=50"``.

    Raises:
        ValueError: an unknown bot or a bad option, naming it.
    """
    name, options = parse_bot_spec(spec)
    try:
        return make_bot(name, game_name, seed, **options)
    except ImportError as e:
        raise ValueError(f"bot {name!r} is not available for {game_name} ({e})") from None


def strongest_bot_name(game_name: str) -> str:
    """The strongest bot that can be built for ``game_name`` (for hints)."""
    for name in BOT_STRENGTH_ORDER:
        try:
            make_named_bot(name, game_name, 0)
        except (ValueError, ImportError):
            continue
        return name
    return "random"


@dataclass(frozen=True)
class Forfeit:
    """An opponent failed to move and lost the game.

    Attributes:
        seat: the seat whose bot failed.
        bot: that bot's spec (the session's ``opponents``).
        reason: one of :data:`~setgames.bots.base.FAULT_REASONS` (``"raised"`` for a
            Python bot's exception, ``"illegal"`` for an action that is not legal).
        detail: one line for people (at most :data:`MAX_DETAIL` characters).
    """

    seat: int
    bot: str
    reason: str
    detail: str


def _one_line(text: str) -> str:
    """The first line of ``text``, at most :data:`MAX_DETAIL` characters."""
    lines = str(text).strip().splitlines()
    return lines[0][:MAX_DETAIL] if lines else ""


@dataclass(frozen=True)
class Hint:
    """What a bot would play for the human, and why (``reason`` may be empty)."""

    action: int
    label: str
    reason: str
    bot: str


class Session:
    """One game between a human seat and bots, with undo/redo, hint and save.

    Args:
        game: the rules under their config.
        game_name: the registry name written to records (usually ``game.name``).
        seed: the deal; with the actions it replays the game exactly.
        human_seat: the seat the human plays.
        opponents: bot name for every other seat.
        bot_factory: ``(name, seed) -> Bot``; defaults to :func:`make_named_bot`.
        hint_bot: name of the bot that gives hints and plays ``quick`` and
            ``watch`` moves for the human; default the strongest available.

    Raises:
        ValueError: naming a bad seat or an unknown bot.
    """

    def __init__(self, game: Game, game_name: str, seed: int, human_seat: int = 0,
                 opponents: str = "random",
                 bot_factory: Callable[[str, int | None], Bot] | None = None,
                 hint_bot: str | None = None):
        if not is_integer(human_seat) or not 0 <= human_seat < game.num_players:  # not 1.5, True
            raise ValueError(f"seat {short_repr(human_seat)} is not a seat of a {game.num_players}-player "
                             f"game (0..{game.num_players - 1})")
        if not is_integer(seed) or not 0 <= seed < _SEED_LIMIT:
            raise ValueError(f"seed {short_repr(seed)} must be in 0..2**63-1")
        for key, spec in (("opponents", opponents), ("hint_bot", hint_bot)):
            if spec is not None and not isinstance(spec, str):
                raise ValueError(f"{key} {short_repr(spec)} is not a bot name")
        self.game = game
        self.game_name = game_name
        self.seed = int(seed)
        self.human_seat = int(human_seat)
        self.opponents = opponents
        self._factory = bot_factory or (lambda name, s: make_named_bot(name, game_name, s))
        self.bots: dict[int, Bot] = {s: self._factory(opponents, 0)
                                     for s in range(game.num_players) if s != self.human_seat}
        self.hint_bot_name = hint_bot or strongest_bot_name(game_name)
        self.hint_bot = self._factory(self.hint_bot_name, 0)
        # The hint bot's moves for the human seat are reseeded from this key: the seed by default (a
        # saved game replays its hints), a secret of its own where the seed must stay hidden (the web
        # table), since a bot seeded from the seed answers differently for another deal.
        self.hint_key = self.seed
        self.actions: list[int] = []
        self.actors: list[int] = []  # seat that played actions[i]
        self.draws: list[int | None] = []  # the card actions[i] drew from a pile, if any
        self._drawn_card = table_tools(game_name).drawn_card
        self._states: list[Any] = [game.new_state(rng_from_seed(self.seed))]
        self._redo: list[list[int]] = []  # groups of actions, last undone last
        self.forfeit: Forfeit | None = None  # set when an opponent failed to move; undo clears it

    # ------------------------------------------------------------------ queries
    @property
    def state(self) -> Any:
        """The current state (do not mutate: use :meth:`play`)."""
        return self._states[-1]

    @property
    def ply(self) -> int:
        """Number of actions played so far."""
        return len(self.actions)

    def is_over(self) -> bool:
        """True once the game has ended: played out, or forfeited by an opponent."""
        return self.forfeit is not None or self.game.is_over(self.state)

    def is_played_out(self) -> bool:
        """True when the game itself has ended (not by a forfeit): only then may
        every hidden card be shown, since a forfeit can be undone."""
        return self.game.is_over(self.state)

    def returns(self) -> list[float]:
        """Each seat's return: the game's, or after a forfeit +1 for the human and
        -1 for every bot (the opponents are one bot, so one side, as in the arena)."""
        if self.forfeit is not None:
            return [1.0 if s == self.human_seat else -1.0 for s in range(self.game.num_players)]
        return [float(r) for r in self.game.returns(self.state)]

    def to_act(self) -> int:
        """Seat to act now, -1 when the game is over."""
        if self.forfeit is not None:
            return -1
        return self.game.current_seat(self.state)

    def human_to_act(self) -> bool:
        """True when the pending decision is the human's."""
        return self.to_act() == self.human_seat

    def bot_to_act(self) -> bool:
        """True when a bot must move before the human can."""
        seat = self.to_act()
        return seat >= 0 and seat != self.human_seat

    def legal(self) -> list[int]:
        """Legal action ids now, ascending (none once the game is over)."""
        if self.forfeit is not None:
            return []
        return self.game.legal_actions(self.state)

    def label(self, action: int) -> str:
        """Readable label of ``action``."""
        return self.game.action_to_str(action)

    def can_undo(self) -> bool:
        """True when the human has a decision to take back, or a forfeit to take back."""
        return self.forfeit is not None or self.human_seat in self.actors

    def can_redo(self) -> bool:
        """True when an undone step can be played again."""
        return bool(self._redo)

    def last_drawn(self, seat: int) -> int | None:
        """The card ``seat`` drew on its last draw from a pile (the game's table tools
        tell), None when it has not drawn yet."""
        for actor, card in zip(reversed(self.actors), reversed(self.draws), strict=True):
            if actor == seat and card is not None:
                return card
        return None

    def seat_names(self) -> list[str]:
        """Per seat: ``"human"`` or the opponents' bot name."""
        return [HUMAN if s == self.human_seat else self.opponents for s in range(self.game.num_players)]

    # ------------------------------------------------------------------ moves
    def parse_move(self, text: str) -> int:
        """The legal action meant by ``text``: a number from the numbered list
        of legal moves (1-based) or a move label.

        Raises:
            SessionError: naming the bad input (out of range, unknown or illegal).
        """
        legal = self.legal()
        text = text.strip()
        if not legal:
            raise SessionError("the game is over: undo, save, load or quit")
        if text.isdigit():
            k = int(text)
            if not 1 <= k <= len(legal):
                raise SessionError(f"move {k} is out of range: choose 1..{len(legal)}")
            return legal[k - 1]
        try:
            action = self.game.str_to_action(text)
        except ValueError as e:
            _, sep, guess = str(e).splitlines()[0].partition("; did you mean")
            raise SessionError(f"{text!r} is not a command or a move"
                               + (f"; did you mean{guess}" if sep else "")) from None
        if action not in legal:
            raise SessionError(f"{self.label(action)!r} is not legal now")
        return action

    def _apply(self, action: int) -> None:
        seat = self.to_act()
        self.game.check_action(self.state, action)
        nxt = self.game.clone(self.state)
        self.game.apply(nxt, action)
        drawn = None if self._drawn_card is None else self._drawn_card(self.game, self.state, nxt, seat,
                                                                         int(action))
        self._states.append(nxt)
        self.actions.append(int(action))
        self.actors.append(seat)
        self.draws.append(drawn)

    def play(self, action: int) -> None:
        """Play ``action`` for the human; this forgets the redo stack.

        Raises:
            SessionError: when it is not the human's turn or the move is illegal.
        """
        if not self.human_to_act():
            raise SessionError("it is not your turn" if not self.is_over() else "the game is over")
        if action not in self.legal():
            raise SessionError(f"move {action} is not legal now")
        self._apply(action)
        self._redo.clear()

    def bot_move(self) -> tuple[int, int | None]:
        """Let the bot whose turn it is move; returns ``(seat, action)``.

        A bot that fails to move forfeits: the action is None, :attr:`forfeit`
        says why, and the game is over.
        """
        seat = self.to_act()
        if seat < 0 or seat == self.human_seat:
            raise SessionError("no bot is to move")
        try:
            action, _ = self._ask(self.bots[seat], seat)
        except BotFault as fault:
            self.forfeit = Forfeit(seat, self.opponents, fault.reason, _one_line(fault.detail))
            self._redo.clear()  # as after any bot move: what was undone no longer follows
            return seat, None
        self._apply(action)
        self._redo.clear()
        return seat, action

    def auto_move(self) -> tuple[int, int | None]:
        """Watch mode: whoever is to act moves, the human seat by the hint bot.

        Returns ``(seat, action)``; the action is None when an opponent forfeits
        (as in :meth:`bot_move`).

        Raises:
            SessionError: the game is over, or the hint bot failed (the human does
                not forfeit for their helper: nothing is played).
        """
        seat = self.to_act()
        if seat < 0:
            raise SessionError("the game is over")
        if seat != self.human_seat:
            return self.bot_move()
        action, _ = self._ask_hint_bot()
        self._apply(action)
        self._redo.clear()
        return seat, action

    def _ask(self, bot: Bot, seat: int, explain: bool = False) -> tuple[int, str]:
        """The bot's legal move for ``seat`` (and its reason with ``explain``).

        Raises:
            BotFault: the bot's own fault (an ``exec:`` program's), an exception of a
                Python bot (reason ``"raised"``) or an action that is not legal now.
        """
        bot.reset(bot_seed(self.hint_key if seat == self.human_seat else self.seed, seat, self.ply))
        try:
            # A clone, so that no bot can change the game by mistake.
            if explain:
                action, reason = bot.explain(self.game, self.game.clone(self.state), seat)
            else:
                action, reason = bot.act(self.game, self.game.clone(self.state), seat), ""
        except BotFault:
            raise
        except Exception as exc:  # a bot's bug is its fault, as in the arena: not the session's
            raise BotFault("raised", f"{type(exc).__name__}: {exc}") from exc
        try:
            chosen = as_action(action)  # 1.0 or True are no actions
        except ValueError:
            raise BotFault("illegal", f"{short_repr(action)} is not an action id (move {self.ply})") from None
        # The message does not list the legal moves: an opponent's would show its hand.
        if chosen not in self.legal():
            raise BotFault("illegal", f"action {chosen} is not legal at move {self.ply}")
        return chosen, reason

    def _ask_hint_bot(self, explain: bool = False) -> tuple[int, str]:
        """:meth:`_ask` of the hint bot for the human; its failure is a SessionError."""
        try:
            return self._ask(self.hint_bot, self.human_seat, explain)
        except BotFault as fault:
            detail = f" ({_one_line(fault.detail)})" if fault.detail else ""
            raise SessionError(f"the hint bot {self.hint_bot_name} failed: {fault.reason}{detail}") from None

    def hint(self) -> Hint:
        """What the hint bot would play for the human now, with its reason.

        Raises:
            SessionError: the game is over, it is not the human's turn, or the hint
                bot failed (raised, answered an illegal move, ...); nothing changes.
        """
        if self.is_over():
            raise SessionError("the game is over")
        if not self.human_to_act():
            raise SessionError("no decision of yours is pending")
        action, reason = self._ask_hint_bot(explain=True)
        return Hint(action, self.label(action), str(reason or "").splitlines()[0] if reason else "",
                    self.hint_bot_name)

    def quick(self) -> int:
        """Play the hint bot's move for the human; returns it."""
        action = self.hint().action
        self.play(action)
        return action

    # ------------------------------------------------------------------ undo / redo
    def undo(self) -> int:
        """Go back to the human's previous decision point: the human's last
        move and every move played after it are taken back, and an opponent's
        forfeit with them (the human may try again; the bot is asked again).
        Before the human's first move, a forfeit alone is taken back: the bot to
        act is then asked again by whoever drives the session.

        Returns:
            how many actions were taken back (0 for a forfeit alone).

        Raises:
            SessionError: when the human has no move (and no forfeit) to take back.
        """
        if not self.can_undo():
            raise SessionError("nothing to undo")
        self.forfeit = None
        if self.human_seat not in self.actors:
            return 0
        i = len(self.actors) - 1 - self.actors[::-1].index(self.human_seat)
        group = self.actions[i:]
        del self.actions[i:], self.actors[i:], self.draws[i:], self._states[i + 1:]
        self._redo.append(group)
        return len(group)

    def redo(self) -> int:
        """Play again the moves the last :meth:`undo` took back.

        Returns:
            how many actions were replayed.

        Raises:
            SessionError: when there is nothing to redo.
        """
        if not self._redo:
            raise SessionError("nothing to redo")
        group = self._redo.pop()
        for a in group:
            self._apply(a)
        return len(group)

    # ------------------------------------------------------------------ records
    def record(self) -> dict[str, Any]:
        """The game so far as a record (:mod:`setgames.records` format: the keys
        of ``SetGameEnv.record()``, game, version, config, seed, actions, plus
        seats) with the human seat, the opponents and the hint bot."""
        rec = make_record(self.game_name, self.game.version, self.game.config_dict(), self.seed,
                          self.actions, seats=self.seat_names())
        rec.update(human_seat=self.human_seat, opponents=self.opponents, hint_bot=self.hint_bot_name)
        return rec

    def save(self, path: str | os.PathLike) -> None:
        """Write :meth:`record` as JSON to ``path``.

        Raises:
            SessionError: when the file cannot be written (one line, naming it).
        """
        # One JSON line, so the file is also a records file of one game.
        text = json.dumps(self.record(), separators=(",", ":")) + "\n"
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            raise SessionError(f"cannot save to {os.fspath(path)!r}: {e.strerror or e}") from None

    @classmethod
    def from_record(cls, record: dict[str, Any], game_factory: Callable[..., Game],
                    bot_factory: Callable[[str, int | None], Bot] | None = None,
                    hint_bot: str | None = None, expect_game: str | None = None) -> Session:
        """Rebuild a session from a record and replay its actions.

        Args:
            record: as written by :meth:`record`.
            game_factory: ``(name, **config) -> Game``.
            bot_factory: as in :class:`Session`.
            hint_bot: overrides the record's hint bot.
            expect_game: refuse a record of another game.

        Raises:
            LoadError: naming what is wrong with the record.
        """
        try:
            validate_record(record)
        except RecordError as e:
            raise LoadError(f"not a game record: {e}") from None
        name = record["game"]
        if expect_game is not None and name != expect_game:
            raise LoadError(f"the record is a {name!r} game, not {expect_game!r}")
        try:
            game = game_factory(name, **record["config"])
        except (ValueError, TypeError, KeyError) as e:
            raise LoadError(f"the record's game or config is not valid: {e}") from None
        if record["version"] != game.version:
            raise LoadError(f"the record is of {name} version {record['version']!r}; "
                            f"this is version {game.version}")
        seats = record.get("seats")
        human_seat = record.get("human_seat")
        if human_seat is None and isinstance(seats, list) and HUMAN in seats:
            human_seat = seats.index(HUMAN)
        opponents = record.get("opponents")
        if opponents is None and isinstance(seats, list):
            opponents = next((s for s in seats if s != HUMAN), "random")
        seed, actions = record["seed"], record["actions"]
        # The save's own fields, typed: a list where a name goes must not reach the bots.
        if human_seat is not None and not is_integer(human_seat):
            raise LoadError(f"the record's human_seat {short_repr(human_seat)} is not a seat number")
        for key, value in (("opponents", opponents), ("hint_bot", record.get("hint_bot"))):
            if value is not None and not isinstance(value, str):
                raise LoadError(f"the record's {key} {short_repr(value)} is not a bot name")
        try:
            session = cls(game, name, seed, int(human_seat or 0), opponents or "random",
                          bot_factory, hint_bot or record.get("hint_bot"))
        except (ValueError, TypeError) as e:
            raise LoadError(f"the record cannot be played: {e}") from None
        for i, a in enumerate(actions):
            if session.is_over() or a not in session.legal():
                raise LoadError(f"the record does not replay: action {i} ({a}) is not legal there")
            session._apply(a)
        return session


def load_record(path: str | os.PathLike) -> dict[str, Any]:
    """Read a saved game: one JSON object, or the first line of a JSON-lines file.

    Raises:
        LoadError: a missing, unreadable or corrupt file (one line, naming it).
    """
    where = os.fspath(path)
    try:
        text = read_text(where)  # at most MAX_RECORD_BYTES: /dev/zero is refused, not read
    except OSError as e:
        raise LoadError(f"cannot read {where!r}: {e.strerror or e}") from None
    except ValueError as e:
        raise LoadError(f"{e}: not a saved game") from None
    try:
        data = parse_json(text, repr(where))
    except ValueError:
        first = text.strip().splitlines()[:1]
        try:
            data = parse_json(first[0], repr(where)) if first else None
        except ValueError:
            data = None
        if data is None:
            raise LoadError(f"{where!r} is not a saved game (not JSON)") from None
    if not isinstance(data, dict):
        raise LoadError(f"{where!r} is not a saved game (expected a JSON object)")
    return data
