"""Bytes between a websocket (websockify's) and the guest's console socket."""

from __future__ import annotations

import select
import socket
import time
from typing import Any

from websockify.websocket import WebSocketWantReadError, WebSocketWantWriteError

CHUNK = 65536
POLL = 1.0  # seconds between checks of the deadline and of a stopping proxy


def relay(websocket: Any, target: socket.socket, deadline: float | None, stopping: Any) -> str:
    """Relay until a side closes, ``deadline`` (time.time()) passes or ``stopping``
    (an Event) is set; returns why it ended."""
    sock: socket.socket = websocket.socket
    while not stopping.is_set():
        wait = POLL if deadline is None else min(POLL, deadline - time.time())
        if wait <= 0:
            return "token expired"
        readable, _, _ = select.select([sock, target], [], [], wait)
        if sock in readable and not _client_to_target(websocket, target):
            return "client closed"
        if target in readable and not _target_to_client(websocket, target):
            return "console closed"
    return "proxy stopping"


def _client_to_target(websocket: Any, target: socket.socket) -> bool:
    while True:
        try:
            data = websocket.recv()
        except WebSocketWantReadError:
            return True  # a partial frame: wait for the rest
        if data is None:
            return False
        target.sendall(data)
        if not websocket.pending():
            return True


def _target_to_client(websocket: Any, target: socket.socket) -> bool:
    data = target.recv(CHUNK)
    if not data:
        return False
    while True:
        try:
            websocket.send(data)
            return True
        except WebSocketWantWriteError:
            select.select([], [websocket.socket], [], POLL)
