"""The ``search`` bot: the compiled determinized search (:mod:`setgames.search`) on the game's engine.

Each decision re-deals the cards its seat has not seen, many times, and on
every deal plays each legal action then the game's greedy bot for every seat
to the end; the move is the action with the best mean return (the algorithm
and why it is this one: :mod:`setgames.search._pimc`). It runs in C without
the GIL, on one core.

Budget: ``iters`` re-deals per decision (the same moves on any machine: what
the arena's strength tables use) and/or ``ms`` milliseconds per decision (what
a time control wants; the moves then depend on the machine's speed). With
neither, the ``DEFAULT_ITERS`` of the game's search module
(``<game>_env/_search.pyx``). Every decision draws its search's seed from the
bot's generator, so a seeded bot replays its games.
"""

from __future__ import annotations

from typing import Any

from setgames import registry
from setgames.bots.base import Bot
from setgames.engine import engine_class
from setgames.game import Game
from setgames.search import search_module
from setgames.search.budget import DEFAULT_Z, check_budget, check_infer, check_z

__all__ = ["FALLBACK_ITERS", "SearchBot"]

FALLBACK_ITERS = 1024  # a game whose search module names no DEFAULT_ITERS
_SEED_SPAN = 2**63


def _inferring_searches() -> str:
    """Which games' searches infer (their module's ``INFERS``), for a refusal: "only <title>'s infers"."""
    titles = [f"{registry.game_title(n)}'s" for n in registry.game_names()
              if getattr(search_module(registry.make_game(n)), "INFERS", False)]
    if not titles:
        return "no game's search infers"
    return f"only {' and '.join(titles)} {'infers' if len(titles) == 1 else 'infer'}"


class SearchBot(Bot):
    """Compiled determinized search with greedy play-outs.

    Args:
        seed: seeds the bot's generator (each decision's search seed is drawn from it).
        game_name: the game it will play (its compiled search must be built); None: the
            registry's first game.
        iters: re-deals per decision.
        ms: milliseconds per decision (with ``iters`` too, the first reached stops it).
        z: how many standard errors of the paired difference another move must beat the
            greedy move by to be played instead (0: the best mean).
        infer: how far to trust that the others play like greedy when weighing the re-deals
            by the moves they made (0: off; only games whose search module sets ``INFERS``).
    """

    name = "search"

    def __init__(self, seed: int | None = None, game_name: str | None = None, iters: int | None = None,
                 ms: float | None = None, z: float = DEFAULT_Z, infer: float = 0.0):
        super().__init__(seed)
        game_name = registry.game_names()[0] if game_name is None else game_name
        game = registry.make_game(game_name)
        module = search_module(game)
        if module is None:
            raise ValueError(f"the search bot needs {game_name}'s compiled engine and search, which are not "
                             f"built here (install with a C compiler)")
        if iters is None and ms is None:
            iters = getattr(module, "DEFAULT_ITERS", FALLBACK_ITERS)
        self.iters, self.ms = check_budget(iters, ms)
        self.z = check_z(z)
        self.infer = check_infer(infer)
        if self.infer and not getattr(module, "INFERS", False):
            raise ValueError(f"infer: {game_name}'s search draws its re-deals without inference "
                             f"({_inferring_searches()} from the opponent's moves)")
        self.game_name = game_name
        self._engines: dict[Any, Any] = {}
        self.last: tuple[Any, ...] | None = None  # the last search's (action, legal, values, iters, ms)

    def _budget(self) -> dict[str, Any]:
        return {"iters": self.iters or None, "ms": self.ms or None}

    def _search(self, game: Game, engine: Any) -> int:
        module = search_module(game)
        seed = int(self.rng.integers(_SEED_SPAN))
        extra = {"infer": self.infer} if self.infer else {}
        self.last = module.search(engine, seed=seed, z=self.z, **self._budget(), **extra)
        return int(self.last[0])

    def _engine_for(self, game: Game) -> Any:
        key = (type(game), repr(game.config))
        engine = self._engines.get(key)
        if engine is None:
            engine = self._engines[key] = engine_class(game)(game)
        return engine

    def act(self, game: Game, state: Any, seat: int) -> int:
        """The searched move for ``seat`` (the seat to act) in the rules-layer ``state``."""
        engine = self._engine_for(game)
        engine.load(state)
        return self._search(game, engine)

    def explain(self, game: Game, state: Any, seat: int) -> tuple[int, str]:
        """The move and its mean return over the search's re-deals."""
        action = self.act(game, state, seat)
        _, legal, values, iters, _ms = self.last
        k = list(legal).index(action)
        return action, f"mean return {values[k]:+.2f} over {iters} re-deals ({len(legal)} moves)"

    def supports_engine(self, game: Game, engine: Any) -> bool:
        """Searches a compiled engine in place (the same move as :meth:`act` on its state)."""
        return self._moves_as(SearchBot) and search_module(game) is not None and isinstance(
            engine, engine_class(game))

    def act_engine(self, game: Game, engine: Any, seat: int) -> int:
        """:meth:`act` on the position ``engine`` holds, without leaving C."""
        return self._search(game, engine)

    def __repr__(self) -> str:
        budget = ", ".join(f"{k}={v}" for k, v in self._budget().items() if v is not None)
        return f"SearchBot({budget})"
