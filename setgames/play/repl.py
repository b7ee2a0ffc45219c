"""The prompt loop of ``setgames play``: read a command, act, show the result.

Every input line is a move (its number in the list, or its label) or a
command; see :data:`HELP`. Bad input prints one line and asks again, and
never changes the game. End of input (Ctrl-D, or the end of a piped script)
ends the program cleanly, so a game can be scripted through a pipe.

An opponent that fails to move (see :class:`~setgames.play.session.Forfeit`)
forfeits: its line and the result are printed, the game is over, and the loop
goes on (undo, save, load, quit); the program's exit status is unchanged. A
failing hint bot is one error line, as any refused command.
"""

from __future__ import annotations

import argparse
import math
import os
import shlex
import sys
import time
from collections.abc import Callable
from typing import IO, Any

from setgames.bots.levels import LEVELS, bot_title
from setgames.checks import printable
from setgames.play.screen import Colorizer, agent_name, render_screen, use_color
from setgames.play.session import LoadError, Session, SessionError, load_record
from setgames.play.tools import TableCommand, TableTools, command_owner, table_tools

__all__ = ["DEFAULT_DELAY", "HELP", "Repl", "add_arguments", "run"]

DEFAULT_DELAY = 0.8  # seconds between moves in watch mode: readable, not slow
PROMPT = "> "
HELP = """\
Commands:
  N or LABEL    play move number N of the list, or the move with that label
  hint          what the strongest bot would play, and why
  quick         play that move for me
  undo [N]      take back my last move (and the replies), N times
  redo [N]      play again what undo took back
  save FILE     save the game (a JSON game record)
  load FILE     load a saved game and continue it
  watch         let the bots finish the game
  board         show the table again
  help          this list
  quit          leave (Ctrl-D too)"""


class Repl:
    """The prompt loop over one :class:`Session`.

    Args:
        session: the game.
        inp: the text stream read (stdin by default).
        out: the text stream written (stdout by default).
        color: ANSI colour on or off (default: :func:`use_color` of ``out``).
        delay: seconds between moves in watch mode.
        session_loader: ``path -> Session`` for the ``load`` command.
        sleep: the pause function (tests pass a recorder).
    """

    def __init__(self, session: Session, inp: IO[str] | None = None, out: IO[str] | None = None,
                 color: bool | None = None, delay: float = DEFAULT_DELAY,
                 session_loader: Callable[[str], Session] | None = None,
                 sleep: Callable[[float], None] = time.sleep):
        self.session = session
        self.inp = inp if inp is not None else sys.stdin
        self.out = out if out is not None else sys.stdout
        self.color = Colorizer(use_color(self.out) if color is None else color)
        self.delay = max(0.0, float(delay))
        self.session_loader = session_loader
        self.sleep = sleep
        try:
            self._echo = not self.inp.isatty()
        except (AttributeError, ValueError):
            self._echo = True
        self._commands: dict[str, Callable[[list[str]], bool | None]] = {
            "help": self.cmd_help, "?": self.cmd_help,
            "hint": self.cmd_hint, "quick": self.cmd_quick,
            "undo": self.cmd_undo, "redo": self.cmd_redo,
            "save": self.cmd_save, "load": self.cmd_load,
            "watch": self.cmd_watch,
            "board": self.cmd_board, "show": self.cmd_board,
            "quit": self.cmd_quit, "exit": self.cmd_quit, "q": self.cmd_quit,
        }
        for command in self.tools.commands:
            self._commands[command.name] = self._table_command(command)

    # ------------------------------------------------------------------ output
    def say(self, text: str = "") -> None:
        """Write one line (or several) and flush, so a pipe sees it at once."""
        self.out.write(text + "\n")
        self.out.flush()

    def error(self, text: str) -> None:
        """A one-line complaint about the last input."""
        # The message may quote a file's content or name: its control characters are not printed.
        self.say(self.color.paint("! " + printable(text.splitlines()[0] if text else ""), "\033[31m"))

    @property
    def game_name(self) -> str:
        """Registry name of the game."""
        return self.session.game_name

    @property
    def tools(self) -> TableTools:
        """What the game lends the table (extra commands, move warnings, event lines)."""
        return table_tools(self.game_name)

    def show(self) -> None:
        """Print the screen for the human."""
        s = self.session
        # A forfeit can be undone (the deal is not over): only a played-out game shows every card.
        self.say(render_screen(s.game, s.game_name, s.state, s.human_seat, seed=s.seed, ply=s.ply,
                               seat_names=[bot_title(n) for n in s.seat_names()], color=self.color,
                               reveal=s.is_played_out(), forfeit=s.forfeit))

    def move_line(self, seat: int, action: int, who: str) -> str:
        """``"player_1 (greedy): discard green pawn"``; a level is shown with its name."""
        label = self.color.cards(self.session.label(action), self.game_name)
        return f"{agent_name(seat)} ({printable(bot_title(who))}): {label}"

    def say_move(self, seat: int, action: int | None, who: str, events_before: int) -> None:
        """Print a move and what it set off where the game tells (say, the
        card a hit turned up, automatic claims, the end); a None action is the
        bot's forfeit (the session's :attr:`~setgames.play.session.Session.forfeit`)."""
        forfeit = self.session.forfeit
        if action is None and forfeit is not None:
            self.say(self.color.paint(f"{agent_name(seat)} ({printable(bot_title(who))}) forfeits: "
                                      f"{forfeit.reason}", "\033[31m"))
            return
        self.say(self.move_line(seat, action, who))
        describe = self.tools.describe_events
        if describe is not None:
            for line in describe(self.session, events_before):
                self.say(self.color.cards(line, self.game_name))

    def _n_events(self) -> int:
        count = self.tools.event_count
        return 0 if count is None else count(self.session)

    # ------------------------------------------------------------------ loop
    def readline(self, prompt: str = PROMPT) -> str | None:
        """One line of input without its newline, or None at end of input."""
        self.out.write(prompt)
        self.out.flush()
        line = self.inp.readline()
        if not line:
            self.say()
            return None
        line = line.rstrip("\r\n")
        if self._echo:
            # A terminal echoes what was typed; over a pipe we do, so that a
            # transcript reads like the session it was.
            self.say(line)
        return line

    def run_bots(self, delay: float = 0.0) -> None:
        """Let the bots move until the human must decide or the game ends."""
        s = self.session
        while s.bot_to_act():
            n = self._n_events()
            seat, action = s.bot_move()
            self.say_move(seat, action, s.opponents, n)
            if delay:
                self.sleep(delay)

    def run(self) -> int:
        """The loop; returns the exit status (0 on quit or end of input)."""
        try:
            self.run_bots()
            self.show()
            while True:
                line = self.readline()
                if line is None:
                    return 0
                try:
                    if self.handle(line):
                        return 0
                except (KeyboardInterrupt, BrokenPipeError):
                    raise
                except Exception as e:  # a bug must not cost the player the game
                    self.error(f"internal error ({type(e).__name__}: {e}); the game is kept, "
                               "save it and report the bug")
        except KeyboardInterrupt:
            self.say()
            return 130

    def handle(self, line: str) -> bool:
        """Act on one input line; True means quit."""
        text = line.strip()
        if not text:
            return False
        try:
            words = shlex.split(text)
        except ValueError as e:
            self.error(f"cannot read {text!r}: {e}")
            return False
        if not words:
            return False
        cmd = words[0].lower()
        if cmd in self._commands:
            return bool(self._commands[cmd](words[1:]))
        owner = command_owner(cmd)
        if owner is not None:
            self.error(f"{cmd} is a {owner} command")
            return False
        self.play_text(text)
        return False

    # ------------------------------------------------------------------ moves
    def play_text(self, text: str) -> None:
        """Play the move ``text`` names, after the checks and confirmations."""
        s = self.session
        if s.is_over():
            self.error("the game is over: undo, save, load or quit")
            return
        try:
            action = s.parse_move(text)
        except SessionError as e:
            self.error(f"{e} (type help for commands)")
            return
        check = self.tools.warning
        warning = None if check is None else check(s, action)
        if warning is not None:
            self.say(warning.message)
            answer = self.readline(warning.question)
            if answer is None or answer.strip().lower() not in ("y", "yes"):
                self.say(warning.declined)
                return
        self.play_and_reply(action)

    def play_and_reply(self, action: int) -> None:
        """Play the human's ``action``, let the bots reply, show the screen."""
        s = self.session
        n = self._n_events()
        s.play(action)
        self.say_move(s.human_seat, action, "you", n)
        self.run_bots()
        self.show()

    # ------------------------------------------------------------------ commands
    def cmd_help(self, args: list[str]) -> None:
        """``help``: the commands, the game's own ones included."""
        extra = [f"  {c.name:<14}{c.help}" for c in self.tools.commands]
        if not extra:
            self.say(HELP)
            return
        lines = HELP.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith("  board"))
        self.say("\n".join(lines[:at] + extra + lines[at:]))

    def cmd_quit(self, args: list[str]) -> bool:
        """``quit``."""
        self.say("Bye.")
        return True

    def cmd_board(self, args: list[str]) -> None:
        """``board``: show the screen again."""
        self.show()

    def _no_args(self, name: str, args: list[str]) -> bool:
        if args:
            self.error(f"{name} takes no argument")
            return False
        return True

    def _count(self, name: str, args: list[str]) -> int | None:
        if not args:
            return 1
        if len(args) == 1 and args[0].isdigit() and int(args[0]) >= 1:
            return int(args[0])
        self.error(f"{name} takes an optional count >= 1, not {' '.join(args)!r}")
        return None

    def cmd_hint(self, args: list[str]) -> None:
        """``hint``: the hint bot's move and reason; plays nothing."""
        if not self._no_args("hint", args):
            return
        try:
            h = self.session.hint()
        except SessionError as e:
            self.error(str(e))
            return
        number = self.session.legal().index(h.action) + 1
        reason = f" ({h.reason})" if h.reason else ""
        self.say(f"Hint ({h.bot}): {number}. {self.color.cards(h.label, self.game_name)}{reason}")

    def cmd_quick(self, args: list[str]) -> None:
        """``quick``: play the hint bot's move."""
        if not self._no_args("quick", args):
            return
        try:
            action = self.session.hint().action
        except SessionError as e:
            self.error(str(e))
            return
        self.play_and_reply(action)

    def cmd_undo(self, args: list[str]) -> None:
        """``undo [N]``."""
        self._step_history("undo", "Undone", self.session.undo, args)

    def cmd_redo(self, args: list[str]) -> None:
        """``redo [N]``."""
        self._step_history("redo", "Redone", self.session.redo, args)

    def _step_history(self, name: str, past: str, op: Callable[[], object], args: list[str]) -> None:
        """Undo or redo up to N of my moves; stop quietly at the end of the history.

        Undo takes an opponent's forfeit back too; when the human had not moved
        yet, that is all it takes back, and the bot is asked again at once (as
        it is after a redo that replays the moves up to a bot's turn)."""
        n = self._count(name, args)
        if n is None:
            return
        s = self.session
        forfeit = s.forfeit
        done, changed = 0, False
        for _ in range(n):
            try:
                taken = op()
            except SessionError as e:
                if not changed:
                    self.error(str(e))
                    return
                break
            changed = True
            if taken:  # 0: a forfeit alone was taken back, no move of mine
                done += 1
        if forfeit is not None and s.forfeit is None:
            self.say(f"Took back the forfeit of {agent_name(forfeit.seat)}.")
        if done or forfeit is None:
            self.say(f"{past} {done} move{'s' if done > 1 else ''} of yours.")
        self.run_bots()
        self.show()

    def cmd_save(self, args: list[str]) -> None:
        """``save FILE``."""
        if len(args) != 1:
            self.error("usage: save FILE")
            return
        try:
            self.session.save(args[0])
        except SessionError as e:
            self.error(str(e))
            return
        self.say(f"Saved to {args[0]} (continue with: setgames play {self.game_name} --load {args[0]}).")

    def cmd_load(self, args: list[str]) -> None:
        """``load FILE``: replace this game by a saved one."""
        if len(args) != 1:
            self.error("usage: load FILE")
            return
        if self.session_loader is None:
            self.error("loading is not available here")
            return
        try:
            session = self.session_loader(args[0])
        except (SessionError, ValueError) as e:
            self.error(str(e))
            return
        self.session = session
        self.say(f"Loaded {printable(args[0])} at move {session.ply}.")
        self.run_bots()
        self.show()

    def cmd_watch(self, args: list[str]) -> None:
        """``watch``: the bots (the hint bot for the human) finish the game."""
        if not self._no_args("watch", args):
            return
        s = self.session
        if s.is_over():
            self.error("the game is over")
            return
        self.say(f"Watching: {s.hint_bot_name} plays for you (Ctrl-C stops).")
        try:
            while not s.is_over():
                n = self._n_events()
                try:
                    seat, action = s.auto_move()
                except SessionError as e:  # the hint bot failed: the human plays on by hand
                    self.error(f"{e}; stopped watching")
                    break
                who = s.hint_bot_name if seat == s.human_seat else s.opponents
                self.say_move(seat, action, who, n)
                if self.delay and not s.is_over():
                    self.sleep(self.delay)
        except KeyboardInterrupt:
            self.say("Stopped watching.")
            self.run_bots()
        self.show()

    def _table_command(self, command: TableCommand) -> Callable[[list[str]], None]:
        """The handler of one of the game's own commands (no arguments)."""
        def run(args: list[str]) -> None:
            if not self._no_args(command.name, args):
                return
            try:
                text = command.run(self.session)
            except SessionError as e:
                self.error(str(e))
                return
            self.say(self.color.cards(text, self.game_name))
        return run


# ---------------------------------------------------------------------- CLI


_LEVELS_HELP = ", ".join(f"level:{lv.number} {lv.name}" for lv in LEVELS)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``setgames play``."""
    from setgames.registry import GAME_NAMES

    parser.add_argument("game", metavar="GAME", help=f"one of {', '.join(GAME_NAMES)}")
    parser.add_argument("--players", type=int, default=None, metavar="N",
                        help="number of players (default: the game's default)")
    parser.add_argument("--opponents", default="greedy", metavar="BOT",
                        help="greedy (default), ismcts or random; options as ismcts:iterations=100; a "
                             f"strength level: {_LEVELS_HELP}; also a plug-in's name, "
                             "module.path:Name[:key=value,...] or 'exec:COMMAND' (see setgames bots; a "
                             "saved game keeps only the built-in bots)")
    parser.add_argument("--seat", type=int, default=0, metavar="K", help="your seat, 0-based (default 0)")
    parser.add_argument("--seed", type=int, default=None, metavar="S",
                        help="the deal (default: a random one, printed so you can replay it)")
    parser.add_argument("--load", default=None, metavar="FILE", help="continue a saved game")
    parser.add_argument("--delay", type=float, default=DEFAULT_DELAY, metavar="SEC",
                        help=f"seconds between moves in watch mode (default {DEFAULT_DELAY})")
    parser.add_argument("--hint-bot", default=None, metavar="BOT",
                        help="bot for hint, quick and watch (default: the strongest, ismcts)")


def _any_bot_factory(game_name: str) -> Callable[[str, int | None], Any]:
    """Bots from any spec form, for the bots named on the command line (a saved
    game, read by the session's own factory, names built-in bots only)."""
    from setgames.bots.specs import make_any_bot, parse_any_spec

    def build(spec: str, seed: int | None) -> Any:
        target, options = parse_any_spec(spec)
        return make_any_bot(target, game_name, seed, **options)

    return build


def _make_game(name: str, players: int | None, **config: Any) -> Any:
    from setgames.registry import make_game

    if players is not None:
        game = make_game(name, **config)
        if players == game.num_players:
            return game
        try:
            return make_game(name, num_players=players, **config)
        except TypeError:
            raise ValueError(f"{name} is played by {game.num_players} players, not {players}") from None
    return make_game(name, **config)


def _loader(game_name: str, hint_bot: str | None) -> Callable[[str], Session]:
    from setgames.registry import make_game

    def load(path: str) -> Session:
        return Session.from_record(load_record(path), make_game, hint_bot=hint_bot, expect_game=game_name)

    return load


def run(args: argparse.Namespace, inp: IO[str] | None = None, out: IO[str] | None = None,
        err: IO[str] | None = None) -> int:
    """``setgames play``: build the game (or load it) and run the prompt loop.

    Returns:
        the exit status: 0 after quit or end of input, 2 for bad arguments.
    """
    import numpy as np

    from setgames.registry import GAME_NAMES

    err = err if err is not None else sys.stderr
    out = out if out is not None else sys.stdout

    def fail(msg: str) -> int:
        err.write(f"setgames play: error: {msg.splitlines()[0]}\n")
        err.flush()
        return 2

    if args.game not in GAME_NAMES:
        return fail(f"unknown game {args.game!r}; choose from {', '.join(GAME_NAMES)}")
    if not math.isfinite(args.delay) or not 0 <= args.delay <= 60:
        return fail(f"--delay {args.delay} must be a number of seconds in 0..60")
    loader = _loader(args.game, args.hint_bot)
    try:
        if args.load:
            session = loader(args.load)
        else:
            game = _make_game(args.game, args.players)
            seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**63)
            session = Session(game, args.game, seed, args.seat, args.opponents,
                              bot_factory=_any_bot_factory(args.game), hint_bot=args.hint_bot)
    except (LoadError, ValueError, TypeError, ImportError) as e:
        return fail(str(e) or type(e).__name__)
    try:
        return Repl(session, inp, out, delay=args.delay, session_loader=loader).run()
    except BrokenPipeError:
        # The reader went away (e.g. ``| head``): stop quietly, and keep the
        # interpreter's final flush from complaining about the closed pipe.
        if out is sys.stdout:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return 1
    finally:
        for bot in [*session.bots.values(), session.hint_bot]:
            bot.close()  # an exec: opponent's program ends with the game
