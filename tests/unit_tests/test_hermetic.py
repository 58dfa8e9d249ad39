"""The suite is hermetic: a test reaches loopback (the emulator) and nothing else (tests/conftest.py)."""

from __future__ import annotations

import socket

import pytest
from pytest_socket import SocketConnectBlockedError

# Warnings these tests provoke on purpose (each is the behaviour under test or a habit kept on purpose);
# filtered here so that `make test` shows only warnings nobody expected.
pytestmark = [
    pytest.mark.filterwarnings("ignore:A test tried to use socket.socket.connect:UserWarning"),
]


def test_a_host_beyond_loopback_is_blocked() -> None:
    with socket.socket() as sock, pytest.raises(SocketConnectBlockedError):
        sock.connect(("192.0.2.1", 443))  # TEST-NET-1 (RFC 5737): never a real host


def test_loopback_is_reachable() -> None:
    with socket.socket() as server, socket.socket() as client:
        server.bind(("127.0.0.1", 0))
        server.listen()
        client.connect(server.getsockname())
