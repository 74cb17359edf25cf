"""The requests transport: a refused connection is a TransportError, not requests'."""

from __future__ import annotations

import socket

import pytest

from saphira.clients.transport import Request, RequestsTransport, TransportError


def test_a_closed_port_is_a_transport_error() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(TransportError):
        RequestsTransport().send(Request("GET", f"http://127.0.0.1:{port}/", timeout=2))
