"""An API answers a normal client while 200 idle and a few slow connections are open.

Before the head-first front, each of these held one of the API's 16 worker
threads until its socket timed out, and the normal client waited minutes.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

import pytest
import requests
import yaml

from tests.functional.clients import sdk
from tests.functional.cloud import Cloud
from tests.sockets import readable

pytestmark = pytest.mark.functional
HANG = 30.0  # seconds: only detects a hang
IDLE = 200
SLOW = 8


def _address(cloud: Cloud, kind: str) -> tuple[str, int]:
    url = urlsplit(cloud.url(kind))
    assert url.hostname and url.port
    return url.hostname, url.port


@contextmanager
def held_open(address: tuple[str, int]) -> Iterator[list[socket.socket]]:
    """200 idle connections and 8 that dribble a header that never ends."""
    idle = [socket.create_connection(address, HANG) for _ in range(IDLE)]
    slow = [socket.create_connection(address, HANG) for _ in range(SLOW)]
    stop = threading.Event()

    def dribble() -> None:
        for sock in slow:
            sock.sendall(b"GET /v2.1/servers HTTP/1.1\r\nHost: x\r\n")
        while not stop.wait(0.2):
            for sock in slow:
                sock.sendall(b"X")

    thread = threading.Thread(target=dribble, daemon=True)
    thread.start()
    try:
        yield idle
    finally:
        stop.set()
        thread.join(HANG)
        for sock in idle + slow:
            sock.close()


def _still_open(sock: socket.socket) -> bool:
    return not readable(sock) or sock.recv(1, socket.MSG_PEEK) != b""  # closed reads as b""


def test_the_compute_api_answers_while_idle_and_slow_connections_are_open(cloud: Cloud) -> None:
    token = sdk(cloud.clouds_yaml, "admin").auth_token
    with held_open(_address(cloud, "compute")) as idle:
        root = requests.get(cloud.url("compute").rsplit("/v2.1", 1)[0] + "/", timeout=HANG)
        assert root.status_code == 200 and root.json()["versions"]
        servers = requests.get(
            f"{cloud.url('compute')}/servers", headers={"X-Auth-Token": token}, timeout=HANG
        )
        assert servers.status_code == 200 and servers.json() == {"servers": []}
        assert all(_still_open(sock) for sock in idle)  # nobody was simply dropped


def test_the_identity_api_issues_tokens_while_idle_connections_are_open(cloud: Cloud) -> None:
    auth = yaml.safe_load(cloud.clouds_yaml.read_text())["clouds"]["demo"]["auth"]
    body = {
        "auth": {
            "identity": {
                "methods": ["password"],
                "password": {
                    "user": {
                        "name": auth["username"],
                        "domain": {"name": "Default"},
                        "password": auth["password"],
                    }
                },
            }
        }
    }
    with held_open(_address(cloud, "identity")):
        issued = requests.post(f"{cloud.url('identity')}/auth/tokens", json=body, timeout=HANG)
        assert issued.status_code == 201 and issued.headers["X-Subject-Token"]
