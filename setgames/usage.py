"""What the ``setgames`` subcommands share: the one-line user error and the game config options.

Below the command line (:mod:`setgames.cli`) and the subcommands other
packages add to it (``setgames train``: :mod:`setgames.learn.cli`), so that
a subcommand never imports the command line that loads it. It imports no
bot, game or torch until a function runs, as ``setgames --help`` loads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["UsageError", "build_game", "parse_config"]


class UsageError(Exception):
    """A problem the user can fix, reported as one line."""


def parse_config(items: Sequence[str]) -> dict[str, Any]:
    """The game config of ``--config key=value`` items, each value read as a bot option is.

    Raises:
        UsageError: an item that is not ``key=value``.

    >>> parse_config(["num_players=3", "extended=true", "name=x"])
    {'num_players': 3, 'extended': True, 'name': 'x'}
    """
    from setgames.bots.registry import _parse_value

    config: dict[str, Any] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise UsageError(f"bad --config {item!r}; write key=value")
        low = value.lower()
        config[key] = {"true": True, "false": False, "none": None}.get(low, _parse_value(value))
    return config


def build_game(cls: type, name: str, config: dict[str, Any]) -> Any:
    """``cls(**config)``, the rules of game ``name``.

    Raises:
        UsageError: the config is not one of the game's.
    """
    try:
        return cls(**config)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"bad config for {name}: {exc}") from None
