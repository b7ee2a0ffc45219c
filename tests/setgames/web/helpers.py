"""A web table server on a free port of 127.0.0.1 for the tests, and a small client."""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from setgames.web.server import COOKIE, TableServer, make_server


@contextmanager
def running_server(save_dir: Path, **limits: int) -> Iterator[TableServer]:
    """A server in a thread, answering before it is yielded; shut down on exit."""
    server = make_server("127.0.0.1", 0, save_dir, **limits)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.uvicorn.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    try:
        yield server
    finally:
        server.shutdown()
        thread.join(10)
        server.server_close()


class Client:
    """One browser: keeps the cookie the server gives."""

    def __init__(self, server: TableServer):
        self.port = server.server_address[1]
        self.cookie: str | None = None

    def request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
                raw: bytes | None = None) -> tuple[int, Any]:
        """``(status, decoded JSON or text)``."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        h = {"Content-Type": "application/json"} if method == "POST" else {}
        if self.cookie:
            h["Cookie"] = f"{COOKIE}={self.cookie}"
        h.update(headers or {})
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        conn.request(method, path, body=data, headers=h)
        res = conn.getresponse()
        text = res.read().decode()
        set_cookie = res.getheader("Set-Cookie")
        if set_cookie:
            self.cookie = set_cookie.split(";")[0].split("=", 1)[1]
        conn.close()
        ctype = res.getheader("Content-Type") or ""
        return res.status, json.loads(text) if ctype.startswith("application/json") else text

    def post(self, op: str, body: Any = None) -> tuple[int, Any]:
        """POST ``/api/<op>``."""
        return self.request("POST", f"/api/{op}", body if body is not None else {})

    def state(self) -> dict[str, Any]:
        """GET ``/api/state``."""
        status, view = self.request("GET", "/api/state")
        assert status == 200
        return view
