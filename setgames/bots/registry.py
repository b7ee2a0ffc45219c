"""Bots by name: ``make_bot("greedy", game_name, seed=1)``.

Three strengths for every game: ``random`` (uniform legal), ``greedy``
(a rule-based player per game, in its package: ``<game>_env/greedy.py``,
found through :mod:`setgames.registry`) and ``ismcts`` (information-set MCTS,
any game); ``ppo``, a trained policy (:mod:`setgames.bots.ppo`) for the
games whose package ships its weights; ``dmc``, an action-value network trained by
``setgames train --algo dmc`` (:mod:`setgames.bots.dmc`); and the strength levels ``level:1``
to ``level:6`` (:mod:`setgames.bots.levels`), each one of those bots. A bot
*spec* is a name with options, written ``"ismcts:iterations=400,c=0.5"`` on
the command line. Every bot but a level also takes ``epsilon=P``: a share
``P`` of its moves are uniformly random (:class:`~setgames.bots.epsilon.EpsilonBot`).
"""

from __future__ import annotations

import inspect
from typing import Any

from setgames.bots import levels
from setgames.bots.base import Bot, RandomBot
from setgames.bots.dmc import DmcBot
from setgames.bots.epsilon import EpsilonBot
from setgames.bots.ismcts import IsmctsBot
from setgames.bots.lookup import greedy_class
from setgames.bots.ppo import PpoBot
from setgames.bots.search import SearchBot

__all__ = ["BOT_DESCRIPTIONS", "BOT_NAMES", "bot_descriptions", "greedy_class", "make_bot", "parse_bot_spec"]

BOT_NAMES = ("random", "greedy", "ismcts", "ppo", "dmc", "search", "level")
BOT_DESCRIPTIONS = {
    "random": "uniform over the legal actions",
    "greedy": "the game's rule-based player (in its package)",
    "ismcts": "information-set Monte Carlo tree search (options: iterations, c, rollout, ...)",
    "ppo": "the trained policy shipped with the game's package",
    "dmc": "an action-value network trained by setgames train --algo dmc (option: weights=PATH)",
    "search": ("compiled determinized search with greedy play-outs (options: iters, ms, z; infer where "
               "the game's search infers)"),
    "level": "strength levels level:1 to level:6: " + ", ".join(
        f"{lv.number} {lv.name}" for lv in levels.LEVELS),
}
_NOT_OPTIONS = ("seed", "game_name")  # make_bot's arguments, never a bot spec's options
EPSILON = "epsilon"  # the option every bot but a level takes: a share of random moves


def bot_descriptions() -> dict[str, str]:
    """:data:`BOT_DESCRIPTIONS` with what each game's descriptor says of its ``ppo`` policies
    (``GameInfo.ppo_note``), after the game's title: the bots listing's words."""
    from setgames import registry as games

    notes = [f"{games.game_title(n)}'s {note}" for n in games.game_names()
             if (note := games.describe(n).ppo_note)]
    out = dict(BOT_DESCRIPTIONS)
    if notes:
        out["ppo"] += f" ({'; '.join(notes)})"
    return out


def make_bot(name: str, game_name: str, seed: int | None = None, **options: Any) -> Bot:
    """A fresh bot ``name`` for game ``game_name`` seeded with ``seed``.

    Raises:
        ValueError: an unknown bot name, an unknown option or a bad option value.

    >>> from setgames.registry import game_names
    >>> make_bot("random", game_names()[0], seed=0).name
    'random'
    >>> make_bot("level", game_names()[-1], seed=0, n=5).name
    'greedy'
    """
    if name == "level":
        if set(options) != {"n"}:
            raise ValueError("bad options for bot 'level': write level:1 to "
                             f"level:{len(levels.LEVELS)}")
        spec_name, spec_options = parse_bot_spec(levels.level_spec(options["n"], game_name))
        return make_bot(spec_name, game_name, seed, **spec_options)
    if EPSILON in options:
        # Any bot weakened by random moves: the wrapper owns the option, the inner bot never sees it.
        inner_options = {k: v for k, v in options.items() if k != EPSILON}
        return EpsilonBot(make_bot(name, game_name, None, **inner_options), options[EPSILON], seed)
    if name == "random":
        cls: type[Bot] = RandomBot
    elif name == "greedy":
        cls = greedy_class(game_name)
    elif name in ("ismcts", "ppo", "dmc", "search"):
        search_or_policy = {"ismcts": IsmctsBot, "ppo": PpoBot, "dmc": DmcBot, "search": SearchBot}[name]
        _check_options(name, search_or_policy, options)
        try:
            return search_or_policy(seed, game_name=game_name, **options)
        except TypeError as exc:
            raise ValueError(f"bad option for bot {name!r}: {exc}") from None
    else:
        raise ValueError(f"unknown bot {name!r}; choose from {', '.join(BOT_NAMES)}")
    _check_options(name, cls, options)
    try:
        return cls(seed, **options)
    except TypeError as exc:
        raise ValueError(f"bad option for bot {name!r}: {exc}") from None


def _check_options(name: str, cls: type, options: dict[str, Any]) -> None:
    """Refuse an option ``cls`` does not take (the seed and game are make_bot's own
    arguments, not options), naming it and the options there are."""
    params = inspect.signature(cls.__init__).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return
    allowed = [k for k, p in params.items() if k != "self" and k not in _NOT_OPTIONS
               and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    for key in options:
        if key not in allowed:
            raise ValueError(f"bad option for bot {name!r}: it has no option {key!r}; its options: "
                             f"{', '.join(allowed) or 'none'}")


def _parse_value(text: str) -> Any:
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def parse_bot_spec(text: str) -> tuple[str, dict[str, Any]]:
    """``"ismcts:iterations=400,c=0.5"`` -> ``("ismcts", {"iterations": 400, "c": 0.5})``.

    >>> parse_bot_spec("ismcts:iterations=50,rollout=random")
    ('ismcts', {'iterations': 50, 'rollout': 'random'})
    >>> parse_bot_spec("level:5")
    ('level', {'n': 5})
    """
    if text.strip().startswith(levels.LEVEL_PREFIX):
        return "level", {"n": levels.parse_level(text)}
    name, _, rest = text.strip().partition(":")
    if name not in BOT_NAMES:
        raise ValueError(f"unknown bot {name!r}; choose from {', '.join(BOT_NAMES)}")
    options: dict[str, Any] = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"bad bot option {item!r} in {text!r}; write name:key=value,key=value")
        key = key.strip()
        if key in _NOT_OPTIONS:  # make_bot's own arguments: a spec cannot set them
            raise ValueError(f"bad option for bot {name!r}: it has no option {key!r} (the {key} is "
                             "given by whoever builds the bot)")
        options[key] = _parse_value(value.strip())
    return name, options
