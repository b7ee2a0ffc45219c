"""Bots from anywhere, one spec syntax (``arena --bots``, ``play --opponents``).

=============================  ==================================================
``greedy``, ``ismcts:c=0.5``   a built-in bot (:mod:`setgames.bots.registry`)
``level:1`` ... ``level:6``    a strength level (:mod:`setgames.bots.levels`)
``NAME[:key=value,...]``       a plug-in installed under the entry-point group
                               ``setgames.bots`` (listed by ``setgames bots``)
``pkg.module:Name[:k=v,...]``  a :class:`~setgames.bots.Bot` subclass, built as
                               ``Name(seed, **options)`` (plus ``game_name=`` when
                               its ``__init__`` takes it), or a factory called as
                               ``Name(game_name, seed, **options)`` returning a Bot
``exec:COMMAND``               an external program speaking the JSON-lines bot
                               protocol (``docs/bot-protocol.md``)
=============================  ==================================================

A plug-in's entry point names a class or factory as the module form does
(``mybot = "mypkg.bots:MyBot"`` in its ``pyproject.toml``). Built-in names
win over plug-ins of the same name. Every refusal (unknown module or class,
an object that is not a Bot, a plug-in that fails to import, a command that
is not found) is a one-line ``ValueError``, raised when the spec is first
built, so before any game of an arena starts.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
from typing import Any

from setgames.bots.base import Bot
from setgames.bots.external import ExternalBot
from setgames.bots.levels import LEVEL_PREFIX
from setgames.bots.registry import BOT_NAMES, _check_options, _parse_value, make_bot, parse_bot_spec

__all__ = ["ENTRY_POINT_GROUP", "EXEC_PREFIX", "bot_listing", "is_builtin_spec", "make_any_bot",
           "parse_any_spec", "plugins"]

ENTRY_POINT_GROUP = "setgames.bots"
EXEC_PREFIX = "exec:"
_NOT_OPTIONS = ("seed", "game_name")


def plugins() -> dict[str, importlib.metadata.EntryPoint]:
    """The installed plug-in bots by name (entry-point group ``setgames.bots``), not loaded."""
    return {ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def _choices() -> str:
    found = sorted(set(plugins()) - set(BOT_NAMES))
    extra = f", plug-ins {', '.join(found)}" if found else ""
    return f"{', '.join(BOT_NAMES)}{extra}, module.path:Name or exec:COMMAND"


def _options(rest: str, text: str, who: str) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise ValueError(f"bad bot option {item!r} in {text!r}; write key=value,key=value")
        if key in _NOT_OPTIONS:
            raise ValueError(f"bad option for bot {who!r}: it has no option {key!r} (the {key} is "
                             "given by whoever builds the bot)")
        options[key] = _parse_value(value.strip())
    return options


def parse_any_spec(text: str) -> tuple[str, dict[str, Any]]:
    """A spec as ``(target, options)``: the target is a built-in or plug-in name,
    ``module:Name`` or ``exec:COMMAND`` (whose options are always empty).

    >>> parse_any_spec("mypkg.bots:Deep:depth=3,style=calm")
    ('mypkg.bots:Deep', {'depth': 3, 'style': 'calm'})
    >>> parse_any_spec("exec:./engine --fast, quiet")
    ('exec:./engine --fast, quiet', {})
    >>> parse_any_spec("ismcts:iterations=50")
    ('ismcts', {'iterations': 50})
    >>> parse_any_spec("level:2")
    ('level', {'n': 2})
    """
    text = text.strip()
    if text.startswith(EXEC_PREFIX):
        return text, {}
    if text.startswith(LEVEL_PREFIX):  # level:N names a level, not a module
        return parse_bot_spec(text)
    first, colon, rest = text.partition(":")
    second, _, more = rest.partition(":")
    if colon and second and "=" not in second and first not in BOT_NAMES:  # module:Name[:options]
        if not first or not second.replace(".", "").replace("_", "").isalnum():
            raise ValueError(f"bad bot spec {text!r}; write module.path:Name[:key=value,...]")
        return f"{first}:{second}", _options(more, text, f"{first}:{second}")
    if not first:
        raise ValueError(f"bad bot spec {text!r}; choose from {_choices()}")
    return first, _options(rest, text, first)


def is_builtin_spec(text: str) -> bool:
    """True for a built-in bot's spec (what saves and the web lobby may name).

    >>> is_builtin_spec("ismcts:iterations=5"), is_builtin_spec("exec:./bot"), is_builtin_spec("m:Bot")
    (True, False, False)
    """
    try:
        target, _ = parse_any_spec(text)
    except ValueError:
        return False
    return target in BOT_NAMES


def make_any_bot(target: str, game_name: str, seed: int | None = None, *, cwd: str | None = None,
                 **options: Any) -> Bot:
    """A fresh bot from a target of :func:`parse_any_spec` (any form); ``cwd`` is where
    an ``exec:`` program runs (None: this process's directory; unused by other bots).

    Raises:
        ValueError: one line naming what is wrong (unknown bot, module or class, not a
            Bot, a plug-in that fails to import, a command not found, a bad option).
    """
    if target.startswith(EXEC_PREFIX):
        if options:
            raise ValueError(f"an exec: bot takes no options (got {', '.join(options)})")
        return ExternalBot(seed, command=target[len(EXEC_PREFIX):], game_name=game_name, cwd=cwd)
    if target in BOT_NAMES:
        return make_bot(target, game_name, seed, **options)
    if ":" in target:
        module_name, _, attr = target.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and module_name.startswith(exc.name):
                raise ValueError(f"bot {target!r}: no module named {module_name!r}") from None
            raise ValueError(f"bot {target!r}: module {module_name!r} fails to import: {exc}") from None
        except Exception as exc:
            raise ValueError(f"bot {target!r}: module {module_name!r} fails to import: "
                             f"{type(exc).__name__}: {exc}") from None
        obj: Any = module
        for part in attr.split("."):
            obj = getattr(obj, part, None)
            if obj is None:
                raise ValueError(f"bot {target!r}: module {module_name!r} has no {attr!r}")
        return _bot_from(obj, target, game_name, seed, options)
    ep = plugins().get(target)
    if ep is None:
        raise ValueError(f"unknown bot {target!r}; choose from {_choices()}")
    try:
        obj = ep.load()
    except Exception as exc:
        raise ValueError(f"plug-in bot {target!r} ({ep.value}) fails to import: "
                         f"{type(exc).__name__}: {exc}") from None
    return _bot_from(obj, target, game_name, seed, options)


def _bot_from(obj: Any, who: str, game_name: str, seed: int | None, options: dict[str, Any]) -> Bot:
    """Build from a Bot subclass or a factory, and check the result is a Bot."""
    kwargs = dict(options)
    if isinstance(obj, type):
        if not issubclass(obj, Bot):
            raise ValueError(f"bot {who!r}: {obj.__qualname__} is not a setgames.bots.Bot subclass")
        _check_options(who, obj, options)
        if "game_name" in inspect.signature(obj.__init__).parameters:
            kwargs["game_name"] = game_name
        call = lambda: obj(seed, **kwargs)  # noqa: E731
    elif callable(obj):
        call = lambda: obj(game_name, seed, **kwargs)  # noqa: E731
    else:
        raise ValueError(f"bot {who!r}: {type(obj).__name__} object is not a Bot class or factory")
    try:
        bot = call()
    except TypeError as exc:
        raise ValueError(f"bad option for bot {who!r}: {exc}") from None
    except Exception as exc:
        raise ValueError(f"bot {who!r} cannot be built: {type(exc).__name__}: {exc}") from None
    if not isinstance(bot, Bot):
        raise ValueError(f"bot {who!r}: the factory returned a {type(bot).__name__}, not a "
                         "setgames.bots.Bot")
    return bot


def bot_listing() -> list[tuple[str, str, str]]:
    """``(name, where, description)`` of the built-in bots, then the installed plug-ins
    (a plug-in that fails to import says so instead of a description)."""
    from setgames.bots import registry

    rows = [(name, "built-in", desc) for name, desc in registry.bot_descriptions().items()]
    for name, ep in sorted(plugins().items()):
        if name in BOT_NAMES:
            rows.append((name, ep.value, "hidden by the built-in bot of the same name"))
            continue
        try:
            obj = ep.load()
        except Exception as exc:
            rows.append((name, ep.value, f"fails to import: {type(exc).__name__}: {exc}"))
            continue
        doc = (inspect.getdoc(obj) or "").strip().splitlines()
        rows.append((name, ep.value, doc[0] if doc else ""))
    return rows
