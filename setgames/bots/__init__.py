"""Built-in opponents behind one :class:`Bot` protocol.

``make_bot(name, game_name, seed=None, **options)`` builds ``random``,
``greedy`` or ``ismcts`` for any of the games.
"""

from setgames.bots.base import Bot, RandomBot
from setgames.bots.ismcts import IsmctsBot
from setgames.bots.registry import BOT_NAMES, make_bot, parse_bot_spec

__all__ = ["BOT_NAMES", "Bot", "IsmctsBot", "RandomBot", "make_bot", "parse_bot_spec"]
