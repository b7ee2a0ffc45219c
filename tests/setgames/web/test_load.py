"""Load on loopback: 200 browsers at once against one server (``.ci/web-smoke``;
``pytest -m load``). Bounded: a fixed number of requests, every socket with a
timeout, the whole run under a deadline. Nothing may be reset or refused, and
every browser's game must be there afterwards with every move it made."""

from __future__ import annotations

import threading
import time

import pytest

from tests.setgames.web.helpers import Client, running_server

pytestmark = pytest.mark.load

CLIENTS = 200
MOVES = 3  # quick moves per client, after its new game
DEADLINE = 240  # seconds for the whole run


def test_200_concurrent_browsers_on_loopback(tmp_path):
    with running_server(tmp_path / "saves") as server:
        start = threading.Barrier(CLIENTS, timeout=60)
        failures: list[str] = []
        plies: dict[int, tuple[str, int]] = {}

        def browser(k: int) -> None:
            c = Client(server)
            try:
                start.wait()  # every client connects at once: the listen backlog is what is tested
                status, view = c.post("new", {"game": ("tethsi", "bharg", "tusac")[k % 3], "seed": k,
                                              "opponents": "random", "hint_bot": "random"})
                if status != 200:
                    failures.append(f"client {k}: new answered {status}")
                    return
                for _ in range(MOVES):
                    if view["over"]:
                        break
                    status, view = c.post("quick")
                    if status != 200:
                        failures.append(f"client {k}: quick answered {status}")
                        return
                plies[k] = (c.cookie, view["ply"])
            except Exception as e:  # a reset, a refused connection, a timeout: all are failures here
                failures.append(f"client {k}: {type(e).__name__}: {e}")

        t0 = time.monotonic()
        threads = [threading.Thread(target=browser, args=(k,), daemon=True) for k in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(max(1.0, DEADLINE - (time.monotonic() - t0)))
        assert not any(t.is_alive() for t in threads), "the load did not finish in time"
        assert failures == [], failures[:10]
        assert len(plies) == CLIENTS and len(server.tables) == CLIENTS
        for cookie, ply in plies.values():  # every game kept, at the move it reached
            c = Client(server)
            c.cookie = cookie
            assert c.state()["ply"] == ply
