"""Bots in any language: a program speaking JSON lines over stdin/stdout.

``exec:COMMAND`` on the command line builds an :class:`ExternalBot`; the
protocol (:data:`PROTOCOL_VERSION`) is specified in ``docs/bot-protocol.md``
and implemented, importing nothing from setgames, in
``examples/external_bot.py``.

The program is distrusted: every read has a deadline and a size bound, its
stderr is drained into a small tail buffer (so a chatty bot cannot block
itself or grow our memory), and every way it can fail raises
:class:`~setgames.bots.base.BotFault`, which the arena turns into a forfeit.
It runs in a session of its own (a Ctrl-C at the terminal is the arena's to
handle, not the bot's) and, on Linux, dies with the process that started it,
so neither a killed arena nor a killed worker leaves it behind.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import select
import shlex
import shutil
import signal
import subprocess
import sys
import time
from typing import Any

import numpy as np

from setgames.bots.base import Bot, BotFault
from setgames.game import Game

__all__ = ["DEFAULT_MOVE_MS", "HANDSHAKE_MS", "MAX_LINE_BYTES", "MAX_STDERR_BYTES", "PROTOCOL_VERSION",
           "ExternalBot", "check_command"]

PROTOCOL_VERSION = 1
MAX_LINE_BYTES = 4096  # a reply is one action id: anything near this is a bot gone wrong
MAX_STDERR_BYTES = 1 << 20  # logs beyond this per game are a flood, not a log
STDERR_TAIL = 2048  # kept to explain a crash
HANDSHAKE_MS = 10_000  # starting an interpreter or loading weights can take seconds
DEFAULT_MOVE_MS = 10_000  # without a time control a hung program must still be cut off
_CLOSE_GRACE = 0.5  # seconds a bot gets to exit after "quit" before it is killed


def check_command(command: str, cwd: str | None = None) -> list[str]:
    """``command`` split as a shell would (no shell runs it); its program must exist
    (a relative path, such as ``./bot``, in ``cwd`` when given: where it will run).

    Raises:
        ValueError: an empty command or a program that is not found or not executable.
    """
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise ValueError(f"bad exec: command {command!r}: {exc}") from None
    if not argv:
        raise ValueError("exec: needs a command, e.g. exec:./mybot or 'exec:python3 bot.py'")
    program = argv[0]
    if cwd is not None and os.sep in program and not os.path.isabs(program):
        program = os.path.join(cwd, program)  # as Popen finds it, run in cwd
    if shutil.which(program) is None:
        raise ValueError(f"exec: command {argv[0]!r} not found (or not executable)")
    return argv


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    # PR_SET_PDEATHSIG: the kernel kills the bot when the process that started it dies, so a
    # worker or an arena killed by SIGKILL leaves no orphan (Linux only; elsewhere close() does).
    os.setsid()
    if sys.platform.startswith("linux"):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


class ExternalBot(Bot):
    """A bot played by an external program (``exec:COMMAND``).

    The program starts at the first game (:meth:`start_game`) and serves every
    later game of the same bot and seat; after a fault it is killed and the
    next game starts a fresh one.

    Args:
        seed: sent to the program with each new game (its own generator's seed).
        command: the command line; its program must exist.
        game_name: the game it will play (unused: each new-game message names it).
        cwd: the directory the program runs in, where the command's relative paths
            are (None: this process's); the arena passes the one it was launched
            from, which a Ray worker's own need not be.
    """

    name = "exec"

    def __init__(self, seed: int | None = None, command: str = "", game_name: str | None = None,
                 cwd: str | None = None):
        super().__init__(seed)
        self.command = command
        self.cwd = cwd
        self.argv = check_command(command, cwd)
        self.seed = seed
        self.bot_name: str | None = None  # what the program calls itself in the handshake
        self.move_ms: float | None = None
        self.game_ms: float | None = None
        self.hard_move_ms: float = DEFAULT_MOVE_MS
        self._proc: subprocess.Popen | None = None
        self._out = bytearray()
        self._err_tail = bytearray()
        self._err_total = 0
        self._ply = 0

    def __repr__(self) -> str:
        return f"ExternalBot({self.command!r})"

    # ------------------------------------------------------------------ Bot protocol
    def reset(self, seed: int | None) -> None:
        """Keep the seed for the next new-game message."""
        super().reset(seed)
        self.seed = seed

    def set_clock(self, move_ms: float | None, game_ms: float | None, hard_ms: float | None = None) -> None:
        """The time left for the next decision and for the game (None: no limit);
        ``hard_ms`` is when the program is cut off (default: the tighter of the two)."""
        self.move_ms, self.game_ms = move_ms, game_ms
        limits = [x for x in (move_ms, game_ms) if x is not None]
        self.hard_move_ms = hard_ms if hard_ms is not None else (min(limits) if limits else DEFAULT_MOVE_MS)

    def start_game(self, game: Game, seat: int) -> None:
        """Start the program if needed (with the handshake), then send the new game."""
        if self._proc is None or self._proc.poll() is not None:
            self._spawn()
        self._err_total = 0
        self._ply = 0
        self._send({"type": "new_game", "game": game.name, "version": game.version,
                    "config": _jsonable(game.config_dict()), "seat": int(seat),
                    "players": int(game.num_players), "num_actions": int(game.num_actions),
                    "seed": self.seed}, time.monotonic() + HANDSHAKE_MS / 1000)

    def act(self, game: Game, state: Any, seat: int) -> int:
        """Ask the program; its reply, checked, or :class:`BotFault`."""
        if self._proc is None:
            self.start_game(game, seat)
        legal = [int(a) for a in game.legal_actions(state)]
        msg = {"type": "act", "ply": self._ply, "seat": int(seat),
               "observation": np.asarray(game.observe(state, seat)).tolist(),
               "legal": [[a, game.action_to_str(a)] for a in legal],
               "view": game.render(state, seat),
               "history": _jsonable(game.events(state)),
               "time_left_ms": {"move": _ms(self.move_ms), "game": _ms(self.game_ms)}}
        self._ply += 1
        deadline = time.monotonic() + self.hard_move_ms / 1000
        self._send(msg, deadline)
        reply = self._read_json(deadline, "act")
        action = reply.get("action")
        if not isinstance(action, int) or isinstance(action, bool):
            self._fault("garbage", f"reply has no integer 'action': {_short(reply)}")
        if action not in legal:
            # Not the legal list: a seat's legal moves can name its hidden cards, and the
            # detail is shown to the person playing against this bot (setgames play).
            self._fault("illegal", f"action {action} is not legal (its act message of ply {self._ply - 1})")
        return action

    def close(self, grace: float = _CLOSE_GRACE) -> None:
        """Ask the program to quit; kill it (and its process group) if it has not within
        ``grace`` seconds (none after a fault: it is not listening)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if grace and proc.poll() is None:
            with contextlib.suppress(OSError):
                os.write(proc.stdin.fileno(), b'{"type": "quit"}\n')
        for f in (proc.stdin, proc.stdout, proc.stderr):
            with contextlib.suppress(OSError):
                f.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(grace)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # also what it started, had it exited already
        proc.wait()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    # ------------------------------------------------------------------ plumbing
    def _spawn(self) -> None:
        self.close()
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, preexec_fn=_die_with_parent, bufsize=0,
                                    cwd=self.cwd)
        except OSError as exc:
            raise BotFault("crashed", f"cannot start {self.argv[0]!r}: {exc.strerror or exc}") from None
        self._proc = proc
        for f in (proc.stdin, proc.stdout, proc.stderr):
            os.set_blocking(f.fileno(), False)
        self._out.clear()
        self._err_tail.clear()
        self._err_total = 0
        deadline = time.monotonic() + HANDSHAKE_MS / 1000
        self._send({"type": "hello", "protocol": PROTOCOL_VERSION}, deadline)
        reply = self._read_json(deadline, "hello")
        if reply.get("type") != "hello" or reply.get("protocol") != PROTOCOL_VERSION:
            self._fault("handshake", f"expected hello with protocol {PROTOCOL_VERSION}, got {_short(reply)}")
        name = reply.get("name")
        self.bot_name = name if isinstance(name, str) else None

    def _fault(self, reason: str, detail: str) -> None:
        tail = bytes(self._err_tail).decode("utf-8", "replace").strip().splitlines()
        if tail and reason in ("crashed", "exited"):
            detail += f"; stderr: {tail[-1][:200]}"
        self.close(grace=0)
        raise BotFault(reason, detail)

    def _gone(self) -> None:
        proc = self._proc
        assert proc is not None
        try:
            rc = proc.wait(1.0)
        except subprocess.TimeoutExpired:
            rc = None
        if rc == 0:
            self._fault("exited", "the program exited")
        how = ("closed its stdout" if rc is None else
               f"killed by signal {-rc}" if rc < 0 else f"exit status {rc}")
        self._fault("crashed", f"the program crashed ({how})")

    def _drain_err(self) -> None:
        proc = self._proc
        assert proc is not None
        try:
            chunk = os.read(proc.stderr.fileno(), 65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        self._err_total += len(chunk)
        self._err_tail += chunk
        del self._err_tail[:-STDERR_TAIL]
        if self._err_total > MAX_STDERR_BYTES:
            self._fault("output_flood", f"more than {MAX_STDERR_BYTES} bytes on stderr in one game")

    def _pump(self, data: bytes, deadline: float, want_line: bool, what: str) -> bytes | None:
        """Write ``data``, then (``want_line``) read one line, draining stderr all along."""
        proc = self._proc
        if proc is None:
            raise BotFault("crashed", "the program is not running")
        out_fd, err_fd, in_fd = proc.stdout.fileno(), proc.stderr.fileno(), proc.stdin.fileno()
        view = memoryview(data)
        while True:
            if want_line and not view:
                nl = self._out.find(b"\n")
                if nl >= 0:
                    line = bytes(self._out[:nl])
                    del self._out[:nl + 1]
                    return line
            elif not view:
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                self._fault("timeout", f"no {what} reply within {self._limit_text(what)}")
            readers = [err_fd] + ([out_fd] if want_line else [])
            writers = [in_fd] if view else []
            try:
                r, w, _ = select.select(readers, writers, [], left)
            except InterruptedError:
                continue
            if err_fd in r:
                self._drain_err()
            if w:
                try:
                    n = os.write(in_fd, view)
                except BlockingIOError:
                    n = 0
                except (BrokenPipeError, OSError):
                    self._gone()
                view = view[n:]
            if out_fd in r:
                try:
                    chunk = os.read(out_fd, MAX_LINE_BYTES + 1)
                except BlockingIOError:
                    continue
                if not chunk:
                    self._gone()
                self._out += chunk
                nl = self._out.find(b"\n")
                if (nl if nl >= 0 else len(self._out)) > MAX_LINE_BYTES:
                    self._fault("line_too_long", f"a reply line longer than {MAX_LINE_BYTES} bytes")

    def _limit_text(self, what: str) -> str:
        ms = HANDSHAKE_MS if what in ("hello", "new_game") else self.hard_move_ms
        return f"{ms:.0f} ms"

    def _send(self, msg: dict[str, Any], deadline: float) -> None:
        data = (json.dumps(msg, separators=(",", ":"), allow_nan=False) + "\n").encode()
        self._pump(data, deadline, False, msg["type"])

    def _read_json(self, deadline: float, what: str) -> dict[str, Any]:
        line = self._pump(b"", deadline, True, what)
        assert line is not None
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            self._fault("not_utf8", f"the {what} reply is not UTF-8: {line[:40]!r}")
        try:
            reply = json.loads(text)
        except ValueError:
            self._fault("garbage", f"the {what} reply is not JSON: {text[:80]!r}")
        if not isinstance(reply, dict):
            self._fault("garbage", f"the {what} reply is not a JSON object: {text[:80]!r}")
        return reply


def _ms(value: float | None) -> float | None:
    return None if value is None else max(0.0, math.floor(value * 10) / 10)


def _short(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else value
    return text if len(text) <= 80 else text[:77] + "..."
