"""Shared pieces of the play tests: scripted bots, an independent replay, a
toy-game session factory."""

from __future__ import annotations

import io
from typing import Any

from setgames.bots.base import Bot, RandomBot
from setgames.game import Game, rng_from_seed
from setgames.play.repl import Repl
from setgames.play.session import Session
from tests.setgames.toy_game import ToyGame


class TakeOneBot(Bot):
    """Always the first legal action (the toy's "take 1"); explains itself."""

    name = "takeone"

    def act(self, game: Game, state: Any, seat: int) -> int:
        return game.legal_actions(state)[0]

    def explain(self, game: Game, state: Any, seat: int) -> tuple[int, str]:
        return self.act(game, state, seat), "one token at a time"


def toy_factory(name: str, seed: int | None) -> Bot:
    """Bots by name for the toy game (it has no greedy bot of its own)."""
    if name == "takeone":
        return TakeOneBot(seed)
    if name == "random":
        return RandomBot(seed)
    raise ValueError(f"unknown bot {name!r}")


def toy_game_factory(name: str, **config: Any) -> Game:
    """``make_game`` for records of the toy game."""
    if name != "toy":
        raise ValueError(f"unknown game {name!r}")
    return ToyGame(**config)


def toy_session(seed: int = 3, seat: int = 0, opponents: str = "takeone", hint: str = "takeone") -> Session:
    """A toy-game session with scripted or random opponents."""
    return Session(ToyGame(), "toy", seed, seat, opponents, bot_factory=toy_factory, hint_bot=hint)


def replay(game: Game, seed: int, actions: list[int]) -> Any:
    """The state after ``actions`` from the deal of ``seed``, rebuilt from the
    rules alone (no session code)."""
    state = game.new_state(rng_from_seed(seed))
    for a in actions:
        assert a in game.legal_actions(state)
        game.apply(state, a)
    return state


def snapshot(session: Session) -> tuple[list[int], dict]:
    """What must not change on bad input: the actions and the state."""
    return list(session.actions), session.game.to_json(session.state)


def toy_repl(session: Session, script: str = "", **kw: Any) -> tuple[Repl, io.StringIO]:
    """A prompt loop over ``session`` reading ``script`` and writing to a buffer."""
    out = io.StringIO()
    loader = kw.pop("loader", None)
    return Repl(session, io.StringIO(script), out, color=kw.pop("color", False), delay=kw.pop("delay", 0),
                session_loader=loader, **kw), out
