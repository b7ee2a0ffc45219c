"""The Ray executor's checks that need no Ray: addresses refused in one line, before Ray is asked."""

from __future__ import annotations

import socket

import pytest

from setgames.arena.ray_executor import check_address


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("address", ["localhost", "host:port", ":6379", "127.0.0.1:0", "127.0.0.1:70000",
                                     "ray://nowhere"])
def test_malformed_addresses_are_refused(address):
    with pytest.raises(ValueError, match="write HOST:PORT, ray://HOST:PORT or auto"):
        check_address(address)


@pytest.mark.parametrize("scheme", ["", "ray://"])
def test_a_closed_port_is_refused_at_once(scheme):
    port = _closed_port()
    with pytest.raises(ConnectionError, match=f"cannot reach a Ray cluster at {scheme}127.0.0.1:{port}: "):
        check_address(f"{scheme}127.0.0.1:{port}", timeout=2.0)


def test_an_open_port_passes_and_auto_is_left_to_ray():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        check_address(f"127.0.0.1:{server.getsockname()[1]}", timeout=2.0)
    check_address("auto")
