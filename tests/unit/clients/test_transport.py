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


def test_a_service_that_never_answers_is_not_worth_retrying() -> None:
    with socket.socket() as sock:  # listening: the kernel accepts, nobody answers
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
        with pytest.raises(TransportError) as raised:
            RequestsTransport().send(Request("GET", url, timeout=0.5))
    assert raised.value.retryable is False


def test_a_refused_connection_is_worth_retrying() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(TransportError) as raised:
        RequestsTransport().send(Request("GET", f"http://127.0.0.1:{port}/", timeout=2))
    assert raised.value.retryable is True
