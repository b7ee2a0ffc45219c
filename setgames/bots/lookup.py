"""The greedy bot of a game, found through :mod:`setgames.registry`.

Its own module (not named ``greedy``: tests tell the games' ``*.greedy`` modules by
the name), below both the bot factory (:mod:`setgames.bots.registry`)
and the learned policies (:mod:`setgames.bots.ppo`, whose prior plays
greedy's moves), so that neither imports the other.
"""

from __future__ import annotations

from setgames import registry
from setgames.bots.base import Bot

__all__ = ["greedy_class"]


def greedy_class(game_name: str) -> type[Bot]:
    """The greedy bot class of game ``game_name`` (its descriptor's ``greedy``).

    Raises:
        ValueError: the game is unknown or has no greedy bot.
    """
    cls = registry.part(game_name, "greedy") if game_name in registry.game_names() else None
    if cls is None:
        have = [n for n in registry.game_names() if registry.describe(n).greedy is not None]
        raise ValueError(f"no greedy bot for game {game_name!r}; greedy bots exist for "
                         f"{', '.join(have)}")
    return cls
