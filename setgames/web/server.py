"""``setgames serve``: the web table's HTTP server (standard library only).

Safety, as the issue asks: it binds 127.0.0.1 unless ``--host`` says
otherwise; it serves only the files of its own ``static`` folder, by a fixed
list of names; a cookie keeps each browser's game apart (a random token, no
other state in the browser); a malformed or illegal request gets a 4xx and a
JSON message and changes nothing; save and load touch only files directly in
the save folder (:func:`setgames.web.table.save_path`). Requests must name
this server in ``Host`` when it is bound to this machine only (no DNS
rebinding) and POST only JSON (a cross-site form cannot).
"""

from __future__ import annotations

import argparse
import json
import secrets
import threading
import webbrowser
from collections import OrderedDict
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from setgames.web.table import TableError, WebTable

__all__ = ["COOKIE", "MAX_BODY", "MAX_TABLES", "TableServer", "add_arguments", "make_server", "run"]

COOKIE = "setgames_table"
MAX_BODY = 64 * 1024  # bytes of a request body: every request is a few fields
MAX_TABLES = 64  # browsers kept at once; the least recently seen is dropped first
STATIC = Path(__file__).parent / "static"
_FILES = {"/": ("index.html", "text/html; charset=utf-8"),
          "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/static/style.css": ("style.css", "text/css; charset=utf-8")}
_POSTS = {"new": "new_game", "move": "move", "hint": "hint", "quick": "quick", "undo": "undo",
          "redo": "redo", "step": "step", "tool": "tool", "save": "save", "load": "load"}
_TAKES_DATA = {"new_game", "move", "tool", "save", "load"}
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


class TableServer(ThreadingHTTPServer):
    """The HTTP server with its tables (one a browser) and its save folder."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], save_dir: Path):
        super().__init__(address, _Handler)
        self.save_dir = Path(save_dir)
        self.tables: OrderedDict[str, tuple[WebTable, threading.Lock]] = OrderedDict()
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        """Where the page is."""
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/"

    def table(self, token: str | None) -> tuple[str, WebTable, threading.Lock]:
        """The table of ``token``, or a new one (with a new token)."""
        with self.lock:
            if token in self.tables:
                self.tables.move_to_end(token)
                return (token, *self.tables[token])
            token = secrets.token_urlsafe(18)
            self.tables[token] = (WebTable(self.save_dir), threading.Lock())
            while len(self.tables) > MAX_TABLES:
                self.tables.popitem(last=False)
            return (token, *self.tables[token])


class _Handler(BaseHTTPRequestHandler):
    server: TableServer
    server_version = "setgames"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the terminal is the user's
        pass

    # ------------------------------------------------------------------ answers
    def _send(self, status: int, body: bytes, ctype: str, cookie: str | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; "
                                                    "style-src 'self' 'unsafe-inline'")
        if cookie:
            self.send_header("Set-Cookie", f"{COOKIE}={cookie}; Path=/; HttpOnly; SameSite=Strict")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, data: Any, cookie: str | None = None) -> None:
        self._send(status, json.dumps(data).encode(), "application/json", cookie)

    def _error(self, status: int, message: str, extra: dict[str, Any] | None = None) -> None:
        self._json(status, {"error": message, **(extra or {})})

    def _host_ok(self) -> bool:
        host, port = self.server.server_address[:2]
        if host not in _LOOPBACK:
            return True  # served to the network on purpose (--host): any name of this machine may be used
        allowed = {f"{host}:{port}", f"127.0.0.1:{port}", f"localhost:{port}"}
        if self.headers.get("Host") not in allowed:
            self._error(HTTPStatus.FORBIDDEN, "this server answers for its own address only")
            return False
        return True

    def _token(self) -> str | None:
        for part in (self.headers.get("Cookie") or "").split(";"):
            name, _, value = part.strip().partition("=")
            if name == COOKIE:
                return value
        return None

    # ------------------------------------------------------------------ methods
    def do_GET(self) -> None:
        """The page, its two files, ``/api/state``."""
        if not self._host_ok():
            return
        path = self.path.split("?", 1)[0]
        if path in _FILES:
            name, ctype = _FILES[path]
            self._send(HTTPStatus.OK, (STATIC / name).read_bytes(), ctype)
        elif path == "/api/state":
            token, table, lock = self.server.table(self._token())
            with lock:
                view = table.view()
            self._json(HTTPStatus.OK, view, None if token == self._token() else token)
        else:
            self._error(HTTPStatus.NOT_FOUND, f"no such page: {path}")

    def do_POST(self) -> None:
        """``/api/<request>`` with a JSON object body."""
        if not self._host_ok():
            return
        path = self.path.split("?", 1)[0]
        op = _POSTS.get(path.removeprefix("/api/")) if path.startswith("/api/") else None
        if op is None:
            self._error(HTTPStatus.NOT_FOUND, f"no such request: {path}")
            return
        if (self.headers.get("Content-Type") or "").split(";")[0].strip() != "application/json":
            self._error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send the request as application/json")
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            self._error(HTTPStatus.BAD_REQUEST, f"a request body is 0..{MAX_BODY} bytes")
            return
        try:
            data = json.loads(self.rfile.read(length) or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError):
            self._error(HTTPStatus.BAD_REQUEST, "the request body is not JSON")
            return
        if not isinstance(data, dict):
            self._error(HTTPStatus.BAD_REQUEST, "the request body must be a JSON object")
            return
        token, table, lock = self.server.table(self._token())
        cookie = None if token == self._token() else token
        with lock:
            try:
                method = getattr(table, op)
                view = method(data) if op in _TAKES_DATA else method()
            except TableError as e:
                self._json(e.status, {"error": str(e), **e.extra}, cookie)
                return
            except Exception as e:  # a bug must not kill the server; the game is kept
                self._json(HTTPStatus.INTERNAL_SERVER_ERROR,
                           {"error": f"internal error ({type(e).__name__}: {e})"}, cookie)
                return
        self._json(HTTPStatus.OK, view, cookie)

    def do_PUT(self) -> None:
        """Refused."""
        self._error(HTTPStatus.METHOD_NOT_ALLOWED, "GET or POST only")

    do_DELETE = do_PATCH = do_PUT


def make_server(host: str = "127.0.0.1", port: int = 0,
                save_dir: str | Path = "setgames-saves") -> TableServer:
    """A server bound to ``host:port`` (port 0: any free one); call ``serve_forever``."""
    return TableServer((host, int(port)), Path(save_dir))


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``setgames serve``."""
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 picks a free one)")
    p.add_argument("--save-dir", default="setgames-saves", metavar="DIR",
                   help="the only folder the page saves to and loads from (default ./setgames-saves)")
    p.add_argument("--open", action="store_true", help="open the page in the web browser")


def run(args: argparse.Namespace) -> int:
    """``setgames serve``: serve until Ctrl-C."""
    server = make_server(args.host, args.port, args.save_dir)
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
