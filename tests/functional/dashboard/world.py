"""The dashboard's functional and browser tests: a cloud with what a walk needs.

``prepare`` makes, as admin through openstacksdk, a tiny flavor, one too big
for any fake host, a public raw image, a second project the demo user is a
member of, and another user in a project of its own. ``Visitor`` is one
browser's cookie jar driven through plain HTTP, reading each form's CSRF
token as a browser would.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import socket
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import requests
import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from tests.functional.clients import sdk
from tests.functional.cloud import Cloud, start_cloud
from tests.polling import wait_for

TIMEOUT = 30
Event = TypeVar("Event")
# Each fake guest operation takes 2 s (a build is seen building by a 1 s feed); with no
# L2 agent in these clouds, nothing reports a port plugged: guests do not wait for it.
FAKE_DRIVER_CONF = "[DEFAULT]\nvif_plugging_timeout = 0\n[fake_driver]\ndelay = 2\n"


@dataclass(frozen=True)
class World:
    base: str
    demo_password: str
    other_user: str
    other_password: str
    image_id: str
    flavor_id: str
    big_flavor_id: str
    second_project: str
    network_id: str


@contextmanager
def dashboard_cloud(where: Path, more_conf: str = "") -> Iterator[Cloud]:
    """A ``saphira up`` on the fake driver (2 s steps) in ``where``, stopped cleanly after;
    ``more_conf``: configuration sections added to the fake driver's."""
    conf = where / "fake.conf"
    conf.write_text(FAKE_DRIVER_CONF + more_conf, encoding="utf-8")
    running = start_cloud(str(where), ["--config-file", str(conf)])
    yield running
    if running.proc is not None and running.proc.poll() is None:
        assert running.stop() == 0, running.log()
    assert "threads still running" not in running.log()


def prepare(cloud: Cloud) -> World:
    admin = sdk(cloud.clouds_yaml, "admin")
    flavor = admin.compute.create_flavor(name="dash.tiny", ram=64, vcpus=1, disk=1)
    big = admin.compute.create_flavor(name="dash.big", ram=32768, vcpus=1, disk=1)
    image = admin.image.create_image(
        name="dash-image", data=os.urandom(4096), disk_format="raw",
        container_format="bare", visibility="public",
    )  # fmt: skip
    member = admin.identity.find_role("member")
    demo = admin.identity.find_user("demo")
    second = admin.identity.create_project(name="dash-two", domain_id="default")
    admin.identity.assign_project_role_to_user(second, demo, member)
    other_project = admin.identity.create_project(name="dash-other", domain_id="default")
    password = secrets.token_urlsafe(12)
    other = admin.identity.create_user(name="dash-other", password=password, domain_id="default")
    admin.identity.assign_project_role_to_user(other_project, other, member)
    passwords = yaml.safe_load(cloud.clouds_yaml.read_text())["clouds"]
    network = _demo_network_and_key(cloud)
    return World(
        cloud.url("dashboard").rstrip("/"), passwords["demo"]["auth"]["password"],
        "dash-other", password, str(image.id), str(flavor.id), str(big.id), str(second.id),
        network,
    )  # fmt: skip


def _demo_network_and_key(cloud: Cloud) -> str:
    """demo's own network with a DHCP subnet, and its key pair ``dash-key``."""
    demo = sdk(cloud.clouds_yaml, "demo")
    network = demo.network.create_network(name="dash-net")
    demo.network.create_subnet(
        network_id=network.id, ip_version=4, cidr="10.20.0.0/24", enable_dhcp=True
    )
    public = ed25519.Ed25519PrivateKey.generate().public_key()
    key = public.public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
    demo.compute.create_keypair(name="dash-key", public_key=key.decode())
    return str(network.id)


def revocations(cloud: Cloud) -> int:
    """Revocation events the identity service holds (read from its SQLite file)."""
    with sqlite3.connect(f"file:{cloud.state_dir / 'keystone.sqlite'}?mode=ro", uri=True) as db:
        return int(db.execute("SELECT count(*) FROM revocation_event").fetchone()[0])


@dataclass
class Visitor:
    """One browser: a cookie jar, the last page, and its CSRF token."""

    base: str
    http: requests.Session = field(default_factory=requests.Session)
    page: requests.Response | None = None

    def get(self, path: str) -> requests.Response:
        self.page = self.http.get(self.base + path, timeout=TIMEOUT, allow_redirects=False)
        return self.page

    def token(self) -> str:
        assert self.page is not None
        found = re.search(r'name="csrf_token" value="([^"]+)"', self.page.text)
        assert found, self.page.text
        return found.group(1)

    def post(
        self, path: str, data: dict[str, str], *, token: str | None = None
    ) -> requests.Response:
        """A form post with the token of the last page (``token``: another one; "": none)."""
        given = self.token() if token is None else token
        body = {**data, **({"csrf_token": given} if given else {})}
        return self.http.post(self.base + path, data=body, timeout=TIMEOUT, allow_redirects=False)

    def login(self, user: str, password: str) -> requests.Response:
        self.get("/auth/login")
        return self.post("/auth/login", {"username": user, "password": password})

    def launch(self, world: World, name: str, flavor: str = "") -> requests.Response:
        self.get("/project/instances/launch")
        form = {"name": name, "image": world.image_id, "flavor": flavor or world.flavor_id,
                "security_groups": "default"}  # fmt: skip
        return self.post("/project/instances/launch", form)

    def row_ids(self) -> list[str]:
        page = self.get("/project/instances")
        assert page.status_code == 200, page.text
        return re.findall(r'<tr id="server-([0-9a-f-]{36})"', page.text)


def heard(
    what: str, seen: Callable[[], list[Event]], stream: Sequence[object], timeout: float
) -> list[Event]:
    """``wait_for`` ``seen`` (events an event stream's reader thread has gathered); failing,
    it names all the stream said, the one clue to why the awaited event never came."""
    try:
        found: list[Event] = wait_for(what, seen, timeout=timeout, interval=0.1)
    except AssertionError as late:
        raise AssertionError(f"{late}: {list(stream)}") from None
    return found


@dataclass(frozen=True)
class RowEvent:
    id: str
    deleted: bool
    status: str  # the row's data-status ("" for a deleted row)


class Stream:
    """The Instances page's event stream, read on a thread of its own."""

    def __init__(self, visitor: Visitor, since: str = "") -> None:
        url = f"{visitor.base}/project/instances/events?since={since}"
        self.answer = visitor.http.get(url, stream=True, timeout=TIMEOUT)
        self.rows: list[RowEvent] = []
        self.kinds: list[str] = []
        self.error: Exception | None = None
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            self._lines()
        except Exception as error:  # closed under the reader: the stream is over
            self.error = error

    def _lines(self) -> None:
        kind = ""
        for line in self.answer.iter_lines(decode_unicode=True):
            if line.startswith("event: "):
                kind = line.removeprefix("event: ")
                self.kinds.append(kind)
            elif line.startswith("data: ") and kind == "row":
                data = json.loads(line.removeprefix("data: "))
                status = re.search(r'data-status="([^"]*)"', data["html"])
                self.rows.append(RowEvent(data["id"], data["deleted"], status[1] if status else ""))

    def wait(self, server_id: str, status: str, timeout: float = 60) -> list[RowEvent]:
        """The events of ``server_id`` until one has ``status`` ("DELETED" for its removal)."""

        def seen() -> list[RowEvent]:
            mine = [r for r in self.rows if r.id == server_id]
            done = any((r.deleted and status == "DELETED") or r.status == status for r in mine)
            return mine if done else []

        return heard(f"no {status} for {server_id}", seen, self.rows, timeout)

    def close(self) -> None:
        """Shut the socket first: closing the response alone would wait for the reader's
        blocked read, until the server's next keep-alive comment (5 s)."""
        sock = getattr(getattr(self.answer.raw, "connection", None), "sock", None)
        if isinstance(sock, socket.socket):
            sock.shutdown(socket.SHUT_RDWR)
        self.answer.close()
        self._thread.join(TIMEOUT)


def streamed(visitor: Visitor) -> Iterator[Stream]:
    stream = Stream(visitor)
    try:
        yield stream
    finally:
        stream.close()
