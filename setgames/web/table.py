"""One browser's game at the web table: :class:`WebTable`.

Everything the page shows comes from here and everything it asks goes
through the play session and the game's table tools, as at the terminal
(:mod:`setgames.play.repl`): the page adds no rules. A refused request raises
:class:`TableError` (the server answers 4xx with its message) and leaves the
game as it was.

An opponent that fails to move forfeits (:class:`~setgames.play.session.Forfeit`):
the view says the game is over, names the seat, the bot and the reason, and
gives the returns (the person wins). Nothing hidden is shown, neither the cards
nor the seed, since the deal is not over (undo takes the forfeit back), nor the
fault's detail (a bot's exception text could name any card); the log line names
the reason only too. A failing hint bot is a refused request; the game goes on.
"""

from __future__ import annotations

import copy
import functools
import re
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

from setgames import registry
from setgames.bots.levels import LEVEL_PREFIX, LEVELS, bot_title
from setgames.draw import draw_state
from setgames.play.session import LoadError, Session, SessionError, load_record, make_named_bot
from setgames.play.tools import TableTools, table_tools
from setgames.search import extra_specs

__all__ = ["BOT_CHOICES", "MAX_LOG", "TableError", "WebTable", "bot_choices", "game_choices", "save_path"]

# The lobby's allow-list, weakest to strongest: the named bots, then the strength levels (the page
# shows each with its title; the hint bot defaults to the last, the strongest). A game adds the
# bots its compiled search offers (bot_choices).
BOT_CHOICES = ("random", "greedy", "ismcts:iterations=50", "ismcts", "search",
               *(f"{LEVEL_PREFIX}{lv.number}" for lv in LEVELS))
MAX_LOG = 200  # lines of the move log kept per table
Progress = Callable[[dict[str, Any]], None]
_SAVE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class TableError(ValueError):
    """A request the table refuses; ``status`` is the HTTP status to answer."""

    def __init__(self, message: str, status: int = 400, extra: dict[str, Any] | None = None):
        super().__init__(message)
        self.status = status
        self.extra = extra or {}


def game_choices() -> list[dict[str, Any]]:
    """Per registered game with an env: name, title and the player counts it allows."""
    return copy.deepcopy(_game_choices())


@functools.lru_cache(maxsize=1)
def _game_choices() -> list[dict[str, Any]]:
    # Every view carries the lobby's choices: built once, since each try builds a game.
    out = []
    for name in registry.game_names():
        if registry.describe(name).drawing is None:
            continue
        counts = []
        for n in range(1, 7):
            try:
                registry.make_game(name, num_players=n)
            except TypeError:  # the game takes no num_players: its default count only
                counts = [registry.make_game(name).num_players]
                break
            except ValueError:
                continue
            counts.append(n)
        out.append({"name": name, "title": registry.game_title(name), "players": counts})
    return out


def bot_choices(name: str) -> tuple[str, ...]:
    """The lobby's bots for game ``name``, weakest to strongest: :data:`BOT_CHOICES`, then
    those its compiled search adds (an inferring search, where the engine is built)."""
    return _bot_choices(name) if name in registry.game_names() else BOT_CHOICES


@functools.cache  # making a game per request would cost more than the request
def _bot_choices(name: str) -> tuple[str, ...]:
    return BOT_CHOICES + extra_specs(registry.make_game(name))


def _lobby_bots() -> dict[str, Any]:
    """The view's menus: each game's bots, and the title each bot shows."""
    per_game = {g["name"]: list(bot_choices(g["name"])) for g in game_choices()}
    specs = dict.fromkeys([*BOT_CHOICES, *(b for bots in per_game.values() for b in bots)])
    return {"bots": list(BOT_CHOICES), "game_bots": per_game, "bot_titles": {b: bot_title(b) for b in specs}}


def _check_bot(name: str, spec: Any) -> None:
    if spec not in bot_choices(name):
        raise TableError(f"bot {spec!r} is not one of {', '.join(bot_choices(name))}")


def save_path(folder: Path, name: Any) -> Path:
    """The file ``name`` inside ``folder``: a plain file name (letters, digits,
    ``_ . -``, not starting with a dot), ``.json`` added when it has no suffix.

    >>> save_path(Path("/saves"), "game1").as_posix(), save_path(Path("/s"), "a.jsonl").name
    ('/saves/game1.json', 'a.jsonl')
    >>> save_path(Path("/saves"), "../etc/passwd")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    setgames.web.table.TableError: a save name is a plain file name ..., not '../etc/passwd'
    """
    if not isinstance(name, str) or not _SAVE_NAME.match(name) or ".." in name:
        raise TableError(f"a save name is a plain file name (letters, digits, _ . -), not {name!r}")
    if "." not in name:
        name += ".json"
    path = (folder / name).resolve()
    if path.parent != folder.resolve():
        raise TableError(f"{name!r} is outside the save folder")
    return path


def _int(data: dict[str, Any], key: str, default: int | None = None, limit: int = 2**63) -> int:
    value = data.get(key, default)
    # The bound keeps a 4000-digit number out of the game and out of the error message.
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < limit:
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        raise TableError(f"{key} must be an integer in 0..{limit - 1}, not {shown}")
    return value


def _lobby_bot(game_name: str):
    """A bot factory that builds only the lobby's bots: a save names its bots, and a name
    outside the list (``ismcts:iterations=100000``, ``ppo:weights=/etc/shadow``) must not
    reach the bot's constructor, which would search for minutes or open the file."""
    def make(spec: str, seed: int | None):
        _check_bot(game_name, spec)  # a TableError, which is a ValueError as the session expects
        return make_named_bot(spec, game_name, seed)
    return make


def _lobby_config(name: str, config: Any) -> None:
    """Refuse a saved config the lobby could not have made (only the player count is chosen there)."""
    allowed = next((g["players"] for g in game_choices() if g["name"] == name), None)
    if allowed is None:
        raise TableError(f"the save is of {name!r}, which is not played here")
    for n in allowed:
        try:
            game = registry.make_game(name, num_players=n)
        except TypeError:
            game = registry.make_game(name)
        if game.config_dict() == config:
            return
    raise TableError(f"the save's options {str(config)[:80]} are not among the lobby's choices")


class WebTable:
    """One game between a person and bots, for one browser.

    Args:
        save_dir: the only folder save and load touch (None: this table has no saves).
    """

    #: The requests that take ``progress``: called with the view after every bot move.
    PROGRESS = frozenset({"new_game", "move", "quick", "load"})

    def __init__(self, save_dir: Path | None):
        self.save_dir = None if save_dir is None else Path(save_dir)
        self.session: Session | None = None
        self.log: list[str] = []

    # ------------------------------------------------------------------ helpers
    @property
    def tools(self) -> TableTools:
        """The game's table tools (empty before a game)."""
        return table_tools(self.session.game_name) if self.session else TableTools()

    def _need(self) -> Session:
        if self.session is None:
            raise TableError("no game yet: start one", 409)
        return self.session

    def _start(self, session: Session) -> None:
        # The hints get a key of their own: seeded from the game's seed, they would answer
        # differently for another deal of the cards the person cannot see.
        session.hint_key = secrets.randbelow(2**63)
        self.session, self.log = session, []

    def _folder(self) -> Path:
        if self.save_dir is None:
            raise TableError("this table has no save folder", 409)
        return self.save_dir

    def _say(self, line: str) -> None:
        self.log.append(line)
        del self.log[:-MAX_LOG]

    def _events_mark(self) -> int:
        count = self.tools.event_count
        return 0 if count is None else count(self.session)

    def _record_move(self, seat: int, action: int | None, who: str, mark: int) -> None:
        s = self.session
        if action is None and s.forfeit is not None:  # the bot failed: its forfeit, not a move
            self._say(f"player_{seat} ({bot_title(who)}) forfeits: {s.forfeit.reason}")
            return
        self._say(f"player_{seat} ({bot_title(who)}): {s.label(action)}")
        describe = self.tools.describe_events
        if describe is not None:
            for line in describe(s, mark):
                self._say(line.strip())

    def _run_bots(self, progress: Progress | None = None) -> None:
        s = self.session
        while s.bot_to_act():
            mark = self._events_mark()
            seat, action = s.bot_move()
            self._record_move(seat, action, s.opponents, mark)
            if progress is not None and s.bot_to_act():
                progress(self.view())

    # ------------------------------------------------------------------ requests
    def new_game(self, data: dict[str, Any], progress: Progress | None = None) -> dict[str, Any]:
        """Start a game: ``game``, ``players``, ``seat``, ``seed``, ``opponents``, ``hint_bot``."""
        name = data.get("game")
        if name not in registry.game_names():
            raise TableError(f"unknown game {name!r}; choose from {', '.join(registry.game_names())}")
        config: dict[str, Any] = {}
        if data.get("players") is not None:
            config["num_players"] = _int(data, "players", limit=100)
        try:
            game = registry.make_game(name, **config)
        except TypeError:
            game = registry.make_game(name)
            if config["num_players"] != game.num_players:
                raise TableError(f"{registry.game_title(name)} is played by {game.num_players}") from None
        except ValueError as e:
            raise TableError(str(e)) from None
        # A chosen seed is the person's own business; a random one spans all 63 bits, so that the
        # person's own hand cannot be matched against every deal to find the seed.
        seed = _int(data, "seed", secrets.randbelow(2**63))
        opponents, hint = data.get("opponents", "greedy"), data.get("hint_bot")
        for spec in (opponents, hint):
            if spec is not None:
                _check_bot(name, spec)
        try:
            session = Session(game, name, seed, _int(data, "seat", 0, limit=100), opponents, hint_bot=hint)
        except ValueError as e:
            raise TableError(str(e)) from None
        self._start(session)
        self._say(f"New {registry.game_title(name)} game: you are player_{session.human_seat}")
        self._run_bots(progress)
        return self.view()

    def move(self, data: dict[str, Any], progress: Progress | None = None) -> dict[str, Any]:
        """Play ``action`` for the person; a move the game warns about needs ``confirm``."""
        s = self._need()
        action = _int(data, "action")
        if s.is_over():
            raise TableError("the game is over: undo, save, load or start a new one", 409)
        if not s.human_to_act():
            raise TableError("it is not your turn", 409)
        if action not in s.legal():
            raise TableError(f"move {action} is not legal now")
        check = self.tools.warning
        warning = None if check is None else check(s, action)
        if warning is not None and data.get("confirm") is not True:
            raise TableError(warning.message, 409, {"warning": {"title": warning.title,
                                                                "message": warning.message,
                                                                "action": action}})
        self._play(action, progress)
        return self.view()

    def _play(self, action: int, progress: Progress | None = None) -> None:
        s = self.session
        mark = self._events_mark()
        s.play(action)
        self._record_move(s.human_seat, action, "you", mark)
        if progress is not None and s.bot_to_act():
            progress(self.view())
        self._run_bots(progress)

    def hint(self) -> dict[str, Any]:
        """The hint bot's move with its reason; plays nothing."""
        s = self._need()
        try:
            h = s.hint()
        except SessionError as e:
            raise TableError(str(e), 409) from None
        view = self.view()
        view["hint"] = {"action": h.action, "label": h.label, "reason": h.reason, "bot": h.bot,
                        "number": s.legal().index(h.action) + 1}
        return view

    def quick(self, progress: Progress | None = None) -> dict[str, Any]:
        """Play the hint bot's move."""
        s = self._need()
        try:
            action = s.hint().action
        except SessionError as e:
            raise TableError(str(e), 409) from None
        self._play(action, progress)
        return self.view()

    def undo(self) -> dict[str, Any]:
        """Take back my last move and the replies (and an opponent's forfeit: before my
        first move, the forfeit alone, and the bot is asked again)."""
        s = self._need()
        forfeit = s.forfeit
        try:
            n = s.undo()
        except SessionError as e:
            raise TableError(str(e), 409) from None
        if forfeit is not None:
            self._say(f"Took back the forfeit of player_{forfeit.seat}")
        if n:
            self._say(f"Undone ({n} move{'s' if n != 1 else ''})")
        self._run_bots()
        return self.view()

    def redo(self) -> dict[str, Any]:
        """Play again what undo took back (then the bots to act move: after an undone
        forfeit, the bot is asked again)."""
        try:
            n = self._need().redo()
        except SessionError as e:
            raise TableError(str(e), 409) from None
        self._say(f"Redone ({n} move{'s' if n != 1 else ''})")
        self._run_bots()
        return self.view()

    def step(self) -> dict[str, Any]:
        """Watch mode: whoever is to act moves (my seat by the hint bot)."""
        s = self._need()
        if s.is_over():
            raise TableError("the game is over", 409)
        mark = self._events_mark()
        try:
            seat, action = s.auto_move()
        except SessionError as e:  # the hint bot failed for my seat: nothing was played
            raise TableError(str(e), 409) from None
        who = s.hint_bot_name if seat == s.human_seat else s.opponents
        self._record_move(seat, action, who, mark)
        return self.view()

    def tool(self, data: dict[str, Any]) -> dict[str, Any]:
        """Run the game's command ``name`` (``trash``, say): its text and picks."""
        s = self._need()
        command = next((c for c in self.tools.commands if c.name == data.get("name")), None)
        if command is None:
            raise TableError(f"this game has no command {data.get('name')!r}")
        try:
            text = command.run(s)
        except SessionError as e:
            raise TableError(str(e), 409) from None
        view = self.view()
        view["tool"] = {"name": command.name, "text": text,
                        "picks": command.picks(s) if command.picks else []}
        return view

    def save(self, data: dict[str, Any]) -> dict[str, Any]:
        """Save the game as a record in the save folder, under ``name``."""
        s = self._need()
        path = save_path(self._folder(), data.get("name"))
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            s.save(path)
        except SessionError as e:
            raise TableError(str(e), 500) from None
        self._say(f"Saved as {path.name}")
        return self.view()

    def load(self, data: dict[str, Any], progress: Progress | None = None) -> dict[str, Any]:
        """Load the record ``name`` from the save folder and continue it."""
        path = save_path(self._folder(), data.get("name"))
        if not path.is_file():
            raise TableError(f"no saved game {path.name!r}", 404)
        try:
            record = load_record(path)
            name = record.get("game")
            if name not in registry.game_names():
                raise TableError(f"the save is not of a game played here ({str(name)[:40]!r})")
            _lobby_config(name, record.get("config"))
            session = Session.from_record(record, registry.make_game, _lobby_bot(name))
        except LoadError as e:
            raise TableError(str(e)) from None
        self._start(session)
        self._say(f"Loaded {path.name}: {session.ply} moves")
        self._run_bots(progress)
        return self.view()

    def saves(self) -> list[str]:
        """The saved games' names."""
        if self.save_dir is None or not self.save_dir.is_dir():
            return []
        return sorted(p.name for p in self.save_dir.iterdir()
                      if p.is_file() and p.suffix in (".json", ".jsonl"))

    # ------------------------------------------------------------------ the view
    def view(self) -> dict[str, Any]:
        """Everything the page shows, JSON-able."""
        s = self.session
        if s is None:
            return {"game": None, "games": game_choices(), **_lobby_bots(), "saves": self.saves()}
        over, mine = s.is_over(), s.human_to_act()
        # A forfeit ends the game but not the deal (undo takes it back): only a game played
        # to its end shows what was hidden.
        played_out = s.is_played_out()
        legal = s.legal() if mine else []
        layout = s.game.layout
        moves = [{"number": i + 1, "action": a, "label": s.label(a), "block": layout.decode(a)[0]}
                 for i, a in enumerate(legal)]
        # At the end every card is shown, as the terminal does.
        seat = None if played_out else s.human_seat
        tools = self.tools
        f = s.forfeit
        return {
            # The seed deals every hand: it is shown only once the game is played out.
            "game": s.game_name, "title": registry.game_title(s.game_name),
            "seed": s.seed if played_out else None, "ply": s.ply,
            "players": s.game.num_players, "human_seat": s.human_seat, "to_act": s.to_act(),
            "over": over, "your_turn": mine, "opponents": s.opponents, "hint_bot": s.hint_bot_name,
            "svg": draw_state(s.game, s.state, seat, legal,
                              drawn=None if played_out else s.last_drawn(s.human_seat)).svg, "moves": moves,
            "can_undo": s.can_undo(), "can_redo": s.can_redo(), "log": self.log[-40:],
            "outcome": s.game.outcome(s.state) if played_out else None,
            # The reason, not the detail: a bot's exception text could name a hidden card.
            "forfeit": None if f is None else {"seat": f.seat, "bot": f.bot, "title": bot_title(f.bot),
                                               "reason": f.reason},
            "returns": s.returns() if over else None,
            "commands": [{"name": c.name, "title": c.title or c.name, "help": c.help}
                         for c in tools.commands],
            "buttons": [{"title": b.title, "blocks": list(b.blocks)} for b in tools.buttons],
            "games": game_choices(), **_lobby_bots(), "saves": self.saves(),
        }
