"""Built-in opponents behind one :class:`Bot` protocol."""

from setgames.bots.base import Bot, RandomBot

__all__ = ["Bot", "RandomBot"]
