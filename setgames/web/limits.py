"""How many tables the web table keeps: the defaults of ``setgames serve``'s options.

Below both the command (:mod:`setgames.web.command`, which starts the server)
and the server (:mod:`setgames.web.server`), and importable without the
server stack, so that the command's help can show them.
"""

__all__ = ["MAX_TABLES", "MAX_TABLES_PER_CLIENT"]

MAX_TABLES = 512  # tables kept at once
MAX_TABLES_PER_CLIENT = 256  # per client address (every browser of this machine shares 127.0.0.1)
