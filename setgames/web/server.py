"""``setgames serve``: the web table's server, a Starlette app on uvicorn (the ``web`` extra).

Safety rules:

- it binds 127.0.0.1 unless ``--host`` says otherwise, and while bound to this
  machine it answers only requests that name it in ``Host`` (no DNS rebinding);
- it serves only the files of its own ``static`` folder, by a fixed list of names;
- a request that changes anything is a POST of a JSON object (a cross-site form
  cannot send one, and a cross-site script cannot without a CORS preflight, which
  is refused); a request whose ``Origin`` or ``Sec-Fetch-Site`` says it came from
  another site is refused; so only the page itself can create a table;
- a browser's cookie (a random token, ``HttpOnly``, ``SameSite=Strict``) names
  its table and its own save folder (a hash of the token, inside ``--save-dir``);
- the tables are bounded in total and per client address; a table idle for
  :data:`IDLE_LIMIT` seconds is dropped, and when the server is full only a
  table idle for :data:`EVICT_IDLE` seconds makes room (a game in progress is
  never pushed out by others' traffic: the newcomer is told to come back);
- every malformed request (not JSON, too long, a 5000-digit number, nesting
  deeper than the parser goes, a body that never arrives) gets a 4xx JSON answer
  and changes nothing; a half-sent request or an idle connection is closed after
  :data:`REQUEST_TIMEOUT` seconds;
- nothing sent to a seat tells what that seat cannot see until the game is over
  (:meth:`setgames.web.table.WebTable.view`).

``/api/ws`` is a WebSocket taking the same requests as the POSTs: while the bots
play (after a move, or when watching) it pushes every position as it is reached.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from typing import Any

try:
    import anyio
    import uvicorn
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route, WebSocketRoute
    from starlette.websockets import WebSocket, WebSocketDisconnect
    from uvicorn.protocols.http.h11_impl import H11Protocol
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(f"setgames serve needs the web extra: pip install -e '.[web]' in a checkout, "
                      f"or pip install 'setgames[web]' ({e})") from None

from setgames.web.limits import MAX_TABLES, MAX_TABLES_PER_CLIENT
from setgames.web.table import TableError, WebTable

__all__ = ["COOKIE", "EVICT_IDLE", "IDLE_LIMIT", "MAX_BODY", "MAX_TABLES", "MAX_TABLES_PER_CLIENT",
           "REQUEST_TIMEOUT", "TableServer", "Tables", "make_app", "make_server"]

COOKIE = "setgames_table"
MAX_BODY = 64 * 1024  # bytes of a request body: every request is a few fields
IDLE_LIMIT = 4 * 3600  # seconds: a table nobody touched for this long is dropped
EVICT_IDLE = 15 * 60  # seconds: when full, only a table idle this long is dropped to make room
REQUEST_TIMEOUT = 15  # seconds to send a whole request; also how long an idle connection stays
BACKLOG = 2048
WATCH_DELAY = 0.35  # seconds between the pushed positions while watching the bots
STATIC = Path(__file__).parent / "static"
_FILES = {"/": ("index.html", "text/html; charset=utf-8"),
          "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/static/style.css": ("style.css", "text/css; charset=utf-8"),
          "/static/favicon.svg": ("favicon.svg", "image/svg+xml"),
          "/favicon.ico": ("favicon.svg", "image/svg+xml")}
_OPS = {"new": "new_game", "move": "move", "hint": "hint", "quick": "quick", "undo": "undo",
        "redo": "redo", "step": "step", "tool": "tool", "save": "save", "load": "load"}
_TAKES_DATA = {"new_game", "move", "tool", "save", "load"}
_CREATES = {"new_game", "load"}  # the only requests that may make a table
_LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,64}$")
_HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY",
            "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                                       "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'"}


@dataclass
class _Entry:
    table: WebTable
    client: str
    used: float
    lock: threading.Lock = field(default_factory=threading.Lock)


class Tables:
    """The server's tables by browser token, bounded in total and per client address.

    Args:
        save_dir: the folder holding one save folder per browser.
        max_total, max_per_client: the bounds.
        idle_limit: seconds after which an untouched table is dropped.
        evict_idle: seconds a table must have been idle to make room for a new one.
        clock: seconds (the tests pass their own).
    """

    def __init__(self, save_dir: Path, max_total: int = MAX_TABLES,
                 max_per_client: int = MAX_TABLES_PER_CLIENT, idle_limit: float = IDLE_LIMIT,
                 evict_idle: float = EVICT_IDLE, clock: Callable[[], float] = time.monotonic):
        self.save_dir = Path(save_dir)
        self.max_total, self.max_per_client = max_total, max_per_client
        self.idle_limit, self.evict_idle = idle_limit, evict_idle
        self.clock = clock
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def folder(self, token: str) -> Path:
        """The save folder of the browser ``token`` (a hash: the token itself is a secret)."""
        return self.save_dir / ("b-" + hashlib.sha256(token.encode()).hexdigest()[:32])

    def _sweep(self, now: float) -> None:
        for token in [t for t, e in self._entries.items() if now - e.used > self.idle_limit]:
            del self._entries[token]

    def get(self, token: str | None) -> _Entry | None:
        """The table of ``token`` (marked as used now), or None."""
        with self._lock:
            now = self.clock()
            self._sweep(now)
            entry = self._entries.get(token) if token else None
            if entry is not None:
                entry.used = now
            return entry

    def create(self, token: str, client: str) -> _Entry:
        """A new table for ``token``, whose requests come from ``client``.

        Raises:
            TableError: 429 when this client has its share, 503 when the server is
                full and no table has been idle for ``evict_idle`` seconds.
        """
        with self._lock:
            now = self.clock()
            self._sweep(now)
            if token in self._entries:
                return self._entries[token]
            mine = [e for e in self._entries.values() if e.client == client]
            if len(mine) >= self.max_per_client:
                raise TableError(f"this address has {len(mine)} tables, the most it may keep; "
                                 "an idle one is cleared after a while", HTTPStatus.TOO_MANY_REQUESTS)
            if len(self._entries) >= self.max_total:
                token_old, oldest = min(self._entries.items(), key=lambda kv: kv[1].used)
                if now - oldest.used < self.evict_idle:
                    raise TableError("every table is in use; try again in a few minutes",
                                     HTTPStatus.SERVICE_UNAVAILABLE)
                del self._entries[token_old]
            entry = _Entry(WebTable(self.folder(token)), client, now)
            self._entries[token] = entry
            return entry

    def policy(self) -> str:
        """What the page says about the bounds."""
        return (f"A game left untouched for {self.idle_limit / 3600:g} hours is cleared; when all "
                f"{self.max_total} tables are taken, one idle for {self.evict_idle / 60:g} minutes "
                "makes room. "
                "Save a game to keep it (saves belong to this browser).")


# ---------------------------------------------------------------------------- the app
def _json(status: int, data: Any, cookie: str | None = None) -> Response:
    res = JSONResponse(data, status_code=int(status), headers=_HEADERS)
    if cookie:
        res.set_cookie(COOKIE, cookie, max_age=365 * 24 * 3600, path="/", httponly=True, samesite="strict")
    return res


def _error(status: int, message: str, **extra: Any) -> Response:
    return _json(status, {"error": message, **extra})


def _token(cookies: dict[str, str]) -> str | None:
    token = cookies.get(COOKIE)
    return token if token and _TOKEN.match(token) else None


class _Guard:
    """ASGI middleware: the Host rule and the same-site rule, for HTTP and WebSocket alike."""

    def __init__(self, app: Any, bound_host: Callable[[], tuple[str, int]]):
        self.app, self.bound_host = app, bound_host

    def _refusal(self, scope: dict[str, Any]) -> str | None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host, port = self.bound_host()
        own = None
        if host in _LOOPBACK:
            names = ("127.0.0.1", "localhost", "[::1]")
            allowed = {f"{n}:{port}" for n in names}
            if headers.get("host") not in allowed:
                return "this server answers for its own address only"
        own = headers.get("host")
        changes = scope["type"] == "websocket" or scope.get("method") not in ("GET", "HEAD")
        if changes:
            origin = headers.get("origin")
            if origin is not None and origin not in (f"http://{own}", f"https://{own}"):
                return "requests from another site are refused"
            if headers.get("sec-fetch-site") not in (None, "same-origin", "none"):
                return "requests from another site are refused"
        return None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            why = self._refusal(scope)
            if why is not None:
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                await _error(HTTPStatus.FORBIDDEN, why)(scope, receive, send)
                return
        await self.app(scope, receive, send)


async def _read_json(request: Request) -> dict[str, Any] | Response:
    """The body as a JSON object, or the 4xx answer saying why not."""
    if (request.headers.get("content-type") or "").split(";")[0].strip() != "application/json":
        return _error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send the request as application/json")
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        return _error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"a request body is 0..{MAX_BODY} bytes")

    async def read() -> bytes:
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_BODY:
                raise OverflowError
            chunks.append(chunk)
        return b"".join(chunks)

    try:
        body = await asyncio.wait_for(read(), REQUEST_TIMEOUT)
    except OverflowError:
        return _error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"a request body is 0..{MAX_BODY} bytes")
    except asyncio.TimeoutError:
        return _error(HTTPStatus.REQUEST_TIMEOUT, f"the body did not arrive within {REQUEST_TIMEOUT} s")
    return _parse(body)


def _parse(body: bytes | str) -> dict[str, Any] | Response:
    try:
        data = json.loads(body or b"{}")
    # ValueError: not JSON, not UTF-8, or an integer of more digits than Python converts;
    # RecursionError: nesting deeper than the parser's stack.
    except (ValueError, RecursionError):
        return _error(HTTPStatus.BAD_REQUEST, "the request body is not JSON this server reads "
                      "(at most 4300 digits a number, a few hundred levels of nesting)")
    if not isinstance(data, dict):
        return _error(HTTPStatus.BAD_REQUEST, "the request body must be a JSON object")
    return data


def _call(entry: _Entry, op: str, data: dict[str, Any],
          progress: Callable[[dict[str, Any]], None] | None = None) -> tuple[int, dict[str, Any]]:
    """Run ``op`` on the table (in a worker thread): ``(status, answer)``."""
    with entry.lock:
        table = entry.table
        try:
            method = getattr(table, op)
            kwargs = {"progress": progress} if progress is not None and op in WebTable.PROGRESS else {}
            view = method(data, **kwargs) if op in _TAKES_DATA else method(**kwargs)
        except TableError as e:
            return int(e.status), {"error": str(e), **e.extra}
        except Exception as e:  # a bug must not kill the server; the game is kept
            return (int(HTTPStatus.INTERNAL_SERVER_ERROR),
                    {"error": f"internal error ({type(e).__name__}: {str(e)[:200]})"})
        return int(HTTPStatus.OK), view


class _App:
    def __init__(self, tables: Tables):
        self.tables = tables

    def _with_policy(self, view: dict[str, Any]) -> dict[str, Any]:
        view["policy"] = self.tables.policy()
        return view

    def _entry(self, token: str | None, op: str, client: str) -> tuple[_Entry | None, str | None]:
        """The browser's table, made (with a new token when it has none) only by a creating op."""
        entry = self.tables.get(token)
        if entry is not None or op not in _CREATES:
            return entry, None
        new = token or secrets.token_urlsafe(24)
        return self.tables.create(new, client), (None if new == token else new)

    async def page(self, request: Request) -> Response:
        name, ctype = _FILES[request.url.path]
        return Response((STATIC / name).read_bytes(), media_type=ctype, headers=_HEADERS)

    async def state(self, request: Request) -> Response:
        token = _token(request.cookies)
        entry = self.tables.get(token)
        if entry is None:
            # No table is made by a GET: the lobby, with this browser's saves when it has a token.
            lobby = WebTable(self.tables.folder(token)) if token else WebTable(None)
            return _json(HTTPStatus.OK, self._with_policy(lobby.view()))
        status, view = await anyio.to_thread.run_sync(_call, entry, "view", {})
        return _json(status, self._with_policy(view) if status == 200 else view)

    async def post(self, request: Request) -> Response:
        op = _OPS.get(request.path_params["op"])
        if op is None:
            return _error(HTTPStatus.NOT_FOUND, f"no such request: {request.url.path[:80]}")
        data = await _read_json(request)
        if isinstance(data, Response):
            return data
        client = request.client.host if request.client else "?"
        try:
            entry, cookie = self._entry(_token(request.cookies), op, client)
        except TableError as e:
            return _error(e.status, str(e))
        if entry is None:
            return _error(HTTPStatus.CONFLICT, "no game yet: start one")
        status, view = await anyio.to_thread.run_sync(_call, entry, op, data)
        return _json(status, self._with_policy(view) if status == 200 else view, cookie)

    async def socket(self, ws: WebSocket) -> None:
        """Requests as ``{"op": ..., ...}``; answers ``{"status", "view"}`` or ``{"status", "error"}``,
        with ``"push": true`` on the positions sent while the bots play."""
        await ws.accept()
        token = _token(ws.cookies)
        client = ws.client.host if ws.client else "?"
        watching: asyncio.Task | None = None

        async def send(status: int, body: dict[str, Any], push: bool = False) -> None:
            if status == 200:
                await ws.send_json({"status": 200, "view": self._with_policy(body), "push": push})
            else:
                await ws.send_json({"status": status, **body})

        async def run(entry: _Entry, op: str, data: dict[str, Any]) -> tuple[int, dict[str, Any]]:
            def progress(view: dict[str, Any]) -> None:
                anyio.from_thread.run(send, 200, view, True)
            return await anyio.to_thread.run_sync(_call, entry, op, data, progress)

        async def watch(entry: _Entry) -> None:
            while True:
                status, body = await run(entry, "step", {})
                await send(status, body)
                if status != 200 or body.get("over"):
                    return
                await asyncio.sleep(WATCH_DELAY)

        try:
            while True:
                try:
                    text = await asyncio.wait_for(ws.receive_text(), IDLE_LIMIT)
                except (asyncio.TimeoutError, KeyError):
                    await ws.close(1000)
                    return
                if len(text) > MAX_BODY:
                    await send(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, {"error": "message too long"})
                    continue
                data = _parse(text)
                if isinstance(data, Response):
                    await send(data.status_code, json.loads(data.body))
                    continue
                name = data.pop("op", None)
                if watching is not None:
                    watching.cancel()
                    watching = None
                if name == "stop":
                    continue
                op = "watch" if name == "watch" else _OPS.get(name) if isinstance(name, str) else None
                if op is None:
                    await send(HTTPStatus.NOT_FOUND, {"error": f"no such request: {str(name)[:40]!r}"})
                    continue
                # The socket cannot set a cookie: it serves the table the page's POSTs made.
                entry = self.tables.get(token)
                if entry is None:
                    await send(HTTPStatus.CONFLICT, {"error": "no game yet: start one"})
                    continue
                if op == "watch":
                    watching = asyncio.create_task(watch(entry))
                    continue
                await send(*await run(entry, op, data))
        except WebSocketDisconnect:
            pass
        finally:
            if watching is not None:
                watching.cancel()
        del client


def make_app(tables: Tables, bound_host: Callable[[], tuple[str, int]]) -> Any:
    """The ASGI app serving ``tables``; ``bound_host()`` is the address it is bound to."""
    app = _App(tables)

    async def not_found(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        if status == 405:
            return _error(405, "GET or POST only")
        return _error(status, f"no such page: {request.url.path[:80]}" if status == 404 else "refused")

    star = Starlette(routes=[
        *[Route(path, app.page, methods=["GET"]) for path in _FILES],
        Route("/api/state", app.state, methods=["GET"]),
        Route("/api/{op}", app.post, methods=["POST"]),
        WebSocketRoute("/api/ws", app.socket),
    ], exception_handlers={HTTPException: not_found})
    return _Guard(star, bound_host)


class _TimedProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for every request: uvicorn times out a kept-alive
    connection only after a first answer, so a client that sends half a request line (or
    nothing) would hold its connection for ever."""

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._arm()

    def _arm(self) -> None:
        old = getattr(self, "_deadline", None)
        if old is not None:
            old.cancel()
        self._deadline = self.loop.call_later(REQUEST_TIMEOUT, self._expire)

    def _expire(self) -> None:
        # A request being answered (a long bot move) is not cut: its body read has a timeout of its own.
        if (self.cycle is None or self.cycle.response_complete) and not self.transport.is_closing():
            self.transport.close()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def handle_websocket_upgrade(self, event: Any) -> None:
        # The socket is the WebSocket protocol's from here; it has its own pings and idle limit.
        self._deadline.cancel()
        super().handle_websocket_upgrade(event)

    def connection_lost(self, exc: Exception | None) -> None:
        if getattr(self, "_deadline", None) is not None:
            self._deadline.cancel()
        super().connection_lost(exc)


class TableServer:
    """The web table's server: a bound socket, its :class:`Tables` and the uvicorn server.

    Args:
        host, port: where to listen (port 0: any free one).
        save_dir: the folder of the browsers' save folders.
        max_tables, max_tables_per_client: the table bounds.
    """

    def __init__(self, host: str, port: int, save_dir: Path, max_tables: int = MAX_TABLES,
                 max_tables_per_client: int = MAX_TABLES_PER_CLIENT):
        self.save_dir = Path(save_dir)
        self.tables = Tables(self.save_dir, max_tables, max_tables_per_client)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.socket = socket.create_server((host, port), family=family, backlog=BACKLOG)
        self.server_address = self.socket.getsockname()[:2]
        self.app = make_app(self.tables, lambda: (host, self.server_address[1]))
        config = uvicorn.Config(self.app, http=_TimedProtocol, ws="websockets-sansio", lifespan="off",
                                log_level="warning", access_log=False, backlog=BACKLOG,
                                timeout_keep_alive=REQUEST_TIMEOUT, limit_concurrency=4 * BACKLOG,
                                ws_max_size=MAX_BODY, server_header=False)
        self.uvicorn = uvicorn.Server(config)

    @property
    def url(self) -> str:
        """Where the page is."""
        host, port = self.server_address
        return f"http://{f'[{host}]' if ':' in host else host}:{port}/"

    def serve_forever(self) -> None:
        """Serve until :meth:`shutdown` (or Ctrl-C in the main thread)."""
        self.uvicorn.run(sockets=[self.socket])

    def shutdown(self) -> None:
        """Ask :meth:`serve_forever` to return."""
        self.uvicorn.should_exit = True

    def server_close(self) -> None:
        """Close the listening socket."""
        self.socket.close()


def make_server(host: str = "127.0.0.1", port: int = 0, save_dir: str | Path = "setgames-saves",
                max_tables: int = MAX_TABLES,
                max_tables_per_client: int = MAX_TABLES_PER_CLIENT) -> TableServer:
    """A server bound to ``host:port`` (port 0: any free one); call ``serve_forever``."""
    return TableServer(host, int(port), Path(save_dir), max_tables, max_tables_per_client)
