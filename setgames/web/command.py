"""``setgames serve``'s options and entry point, importable without the server stack (the
``web`` extra), so that ``setgames --help`` works where it is not installed."""

from __future__ import annotations

import argparse
import webbrowser
from pathlib import Path

from setgames.web.limits import MAX_TABLES, MAX_TABLES_PER_CLIENT

__all__ = ["MAX_TABLES", "MAX_TABLES_PER_CLIENT", "add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``setgames serve``."""
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 picks a free one)")
    p.add_argument("--save-dir", default="setgames-saves", metavar="DIR",
                   help="the folder of the browsers' save folders (default ./setgames-saves)")
    p.add_argument("--max-tables", type=int, default=MAX_TABLES, metavar="N",
                   help=f"games kept at once (default {MAX_TABLES})")
    p.add_argument("--max-tables-per-client", type=int, default=MAX_TABLES_PER_CLIENT, metavar="N",
                   help=f"games kept per client address (default {MAX_TABLES_PER_CLIENT})")
    p.add_argument("--open", action="store_true", help="open the page in the web browser")


def run(args: argparse.Namespace) -> int:
    """``setgames serve``: serve until Ctrl-C; 2 with one line when it cannot."""
    for key in ("max_tables", "max_tables_per_client"):
        if getattr(args, key) < 1:
            print(f"setgames serve: --{key.replace('_', '-')} must be at least 1")
            return 2
    try:
        from setgames.web.server import make_server
    except ImportError as e:
        print(f"setgames serve: {e}")
        return 2
    try:
        server = make_server(args.host, args.port, args.save_dir, args.max_tables, args.max_tables_per_client)
    except OSError as e:
        print(f"setgames serve: cannot listen on {args.host}:{args.port}: {e.strerror or e}")
        return 2
    print(f"setgames web table at {server.url} (saves in {Path(args.save_dir).resolve()}); Ctrl-C stops it",
          flush=True)
    if args.open:
        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
