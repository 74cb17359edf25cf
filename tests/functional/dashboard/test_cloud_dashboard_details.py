"""An instance's page against a real `saphira up` (fake driver, 2 s steps), through HTTP:
the actions each state offers (Pause, Suspend, Lock and their opposites), a resize to
VERIFY_RESIZE followed live by the page's own stream with its steps and history, then
confirmed (the confirmation saying what is lost) and a revert; a snapshot followed to
active; the noVNC console framed from the proxy's URL and the serial console's absence
said in words (this cloud does not enable it)."""

from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import requests

from tests.functional.clients import sdk
from tests.functional.cloud import Cloud
from tests.functional.dashboard.world import (
    TIMEOUT,
    Visitor,
    World,
    heard,
)
from tests.polling import wait_for

pytestmark = pytest.mark.functional
_I = "/project/instances"
NOT_HERE = "Not found in this project."


@pytest.fixture(scope="module")
def small(cloud: Cloud, world: World) -> str:
    """A second flavor that fits the fake host, to resize to."""
    made = sdk(cloud.clouds_yaml, "admin").compute.create_flavor(
        name="dash.small", ram=128, vcpus=1, disk=1
    )
    return str(made.id)


@pytest.fixture
def demo(world: World) -> Iterator[Visitor]:
    """demo logged in; logged out after the test, which ends its session's feed and streams."""
    visitor = Visitor(world.base)
    assert visitor.login("demo", world.demo_password).status_code == 303
    yield visitor
    visitor.get("/project/instances/launch")
    assert visitor.post("/auth/logout", {}).status_code == 303


@dataclass(frozen=True)
class Frame:
    kind: str
    data: dict[str, str]


class DetailStream:
    """A details page's event stream, read on a thread of its own."""

    def __init__(self, visitor: Visitor, path: str) -> None:
        self.answer = visitor.http.get(visitor.base + path, stream=True, timeout=TIMEOUT)
        assert self.answer.status_code == 200, self.answer.text
        self.frames: list[Frame] = []
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        kind = ""
        try:
            for line in self.answer.iter_lines(decode_unicode=True):
                if line.startswith("event: "):
                    kind = line.removeprefix("event: ")
                elif line.startswith("data: "):
                    self.frames.append(Frame(kind, json.loads(line.removeprefix("data: "))))
        except (requests.RequestException, OSError, ValueError):
            return  # closed under the reader: the stream is over

    def wait(self, kind: str, key: str, text: str, timeout: float = 60) -> list[Frame]:
        """The frames until one of ``kind`` has ``text`` in its ``key``."""

        def seen() -> list[Frame]:
            done = any(f.kind == kind and text in f.data.get(key, "") for f in self.frames)
            return list(self.frames) if done else []

        return heard(f"no {kind} with {text!r}", seen, self.frames, timeout)

    def close(self) -> None:
        sock = getattr(getattr(self.answer.raw, "connection", None), "sock", None)
        if isinstance(sock, socket.socket):
            sock.shutdown(socket.SHUT_RDWR)
        self.answer.close()
        self._thread.join(TIMEOUT)


def _wait(cloud: Cloud, server_id: str, status: str) -> None:
    conn = sdk(cloud.clouds_yaml, "demo")

    def settled() -> bool:
        found = conn.compute.get_server(server_id)
        return bool(found.status == status and not found.task_state)

    wait_for(f"{server_id} never {status}", settled, timeout=60, interval=0.3)


@pytest.fixture(scope="module")
def servers(cloud: Cloud, world: World) -> dict[str, str]:
    """demo's instances of this module, launched through the dashboard at once, ACTIVE."""
    visitor = Visitor(world.base)
    assert visitor.login("demo", world.demo_password).status_code == 303
    names = ("dash-states", "dash-resize", "dash-revert", "dash-snap")
    for name in names:
        assert visitor.launch(world, name).status_code == 303
    conn = sdk(cloud.clouds_yaml, "demo")
    made = {str(s.name): str(s.id) for s in conn.compute.servers() if s.name in names}
    for server_id in made.values():
        _wait(cloud, server_id, "ACTIVE")
    return made


def _offers(visitor: Visitor, server_id: str) -> list[str]:
    page = visitor.get(f"{_I}/{server_id}")
    assert page.status_code == 200, page.text
    actions = page.text.split('id="actions"')[1].split("</div>")[0]
    return re.findall(r'data-action="([a-z_]+)"', actions)


def _act(visitor: Visitor, server_id: str, action: str) -> None:
    visitor.get(f"{_I}/{server_id}")
    answer = visitor.post(
        f"{_I}/{server_id}/action", {"action": action, "back": f"{_I}/{server_id}"}
    )
    assert answer.status_code == 303, answer.text


def test_pause_suspend_and_lock_are_offered_by_state(
    cloud: Cloud, servers: dict[str, str], demo: Visitor
) -> None:
    made = servers["dash-states"]
    assert _offers(demo, made) == [
        "stop", "reboot", "pause", "suspend", "resize", "snapshot", "lock", "rebuild", "delete",
    ]  # fmt: skip
    _act(demo, made, "pause")
    _wait(cloud, made, "PAUSED")
    assert _offers(demo, made) == ["unpause", "snapshot", "lock", "delete"]
    _act(demo, made, "unpause")
    _wait(cloud, made, "ACTIVE")
    _act(demo, made, "suspend")
    _wait(cloud, made, "SUSPENDED")
    assert "resume" in _offers(demo, made)
    _act(demo, made, "resume")
    _wait(cloud, made, "ACTIVE")
    _act(demo, made, "lock")
    assert _offers(demo, made) == ["snapshot", "unlock"]  # a lock stops all but these
    assert sdk(cloud.clouds_yaml, "demo").compute.get_server(made).is_locked
    _act(demo, made, "unlock")
    assert "pause" in _offers(demo, made)
    history = demo.get(f"{_I}/{made}").text.split('id="history-body"')[1]
    for recorded in ("pause", "unpause", "suspend", "resume", "lock", "unlock"):
        assert f"<td>{recorded}" in history, recorded


def _resize(visitor: Visitor, server_id: str, flavor: str) -> None:
    visitor.get(f"{_I}/{server_id}/resize")
    assert visitor.post(f"{_I}/{server_id}/resize", {"flavor": flavor}).status_code == 303


def test_a_resize_is_followed_live_to_verify_then_confirmed_or_reverted(
    cloud: Cloud, servers: dict[str, str], demo: Visitor, small: str
) -> None:
    made, other = servers["dash-resize"], servers["dash-revert"]
    form = demo.get(f"{_I}/{made}/resize")
    assert "dash.small" in form.text and ">dash.tiny (" not in form.text  # not its own
    assert demo.post(f"{_I}/{made}/resize", {}).status_code == 400
    updated = str(sdk(cloud.clouds_yaml, "demo").compute.get_server(made).updated_at)
    stream = DetailStream(demo, f"{_I}/{made}/events?since={updated}")
    try:
        _resize(demo, made, small)
        _resize(demo, other, small)
        frames = stream.wait("server", "status", "VERIFY_RESIZE")
    finally:
        stream.close()
    shown = [f.data for f in frames if f.kind == "server"]
    steps = " ".join(f["facts"] for f in shown)
    assert "Resizing: step" in steps and "of 4" in steps, steps
    assert "confirm the new flavor" in shown[-1]["facts"]
    assert re.findall(r'data-action="([a-z_]+)"', shown[-1]["actions"])[:2] == [
        "confirm_resize", "revert_resize",
    ]  # fmt: skip
    assert "<td>resize" in shown[-1]["history"]
    asked = demo.get(f"{_I}/{made}/confirm/confirm_resize")
    assert "can no longer go back" in asked.text
    confirmed = demo.post(
        f"{_I}/{made}/action",
        {"action": "confirm_resize", "confirmed": "yes", "back": f"{_I}/{made}"},
    )
    assert confirmed.status_code == 303 and confirmed.headers["Location"] == f"{_I}/{made}"
    _wait(cloud, other, "VERIFY_RESIZE")
    unconfirmed = demo.post(f"{_I}/{other}/action", {"action": "revert_resize"})
    assert unconfirmed.headers["Location"] == f"{_I}/{other}/confirm/revert_resize"
    asked = demo.get(f"{_I}/{other}/confirm/revert_resize")
    assert "everything written since the resize began is lost" in asked.text
    demo.post(f"{_I}/{other}/action", {"action": "revert_resize", "confirmed": "yes"})
    _wait(cloud, made, "ACTIVE")
    _wait(cloud, other, "ACTIVE")
    assert '<dd id="flavor">dash.small</dd>' in demo.get(f"{_I}/{made}").text
    assert '<dd id="flavor">dash.tiny</dd>' in demo.get(f"{_I}/{other}").text


def test_a_snapshot_is_followed_to_active(
    cloud: Cloud, servers: dict[str, str], demo: Visitor
) -> None:
    made = servers["dash-snap"]
    form = demo.get(f"{_I}/{made}/snapshot")
    assert 'value="dash-snap-snapshot"' in form.text
    assert demo.post(f"{_I}/{made}/snapshot", {"name": " "}).status_code == 400
    answer = demo.post(f"{_I}/{made}/snapshot", {"name": "dash-snap-1"})
    assert answer.status_code == 303, answer.text
    location = answer.headers["Location"]
    image = location.split("?snapshot=")[1]
    page = demo.get(location)
    assert f"Snapshot {image}: waiting" in page.text, page.text
    stream = DetailStream(demo, f"{_I}/{made}/events?snapshot={image}")
    try:
        frames = stream.wait("image", "html", "is ready (active)")
    finally:
        stream.close()
    assert sdk(cloud.clouds_yaml, "demo").image.get_image(image).status == "active"
    assert frames[-1].kind == "image" and "dash-snap-1" in frames[-1].data["html"]


def test_the_consoles_are_on_the_page_or_their_absence_in_words(
    cloud: Cloud, servers: dict[str, str], demo: Visitor
) -> None:
    made = servers["dash-snap"]  # after its snapshot
    _wait(cloud, made, "ACTIVE")
    page = demo.get(f"{_I}/{made}")
    frame = re.search(r'<iframe id="novnc" class="console" src="([^"]+)"', page.text)
    assert frame, page.text
    url = frame[1].replace("&amp;", "&")
    assert "/vnc_auto.html?path=" in url and "token" in url
    origin = re.match(r"https?://[^/]+", url)
    assert origin and f"frame-src {origin[0]}" in page.headers["Content-Security-Policy"]
    client = requests.get(url, timeout=TIMEOUT)  # the proxy serves Debian's noVNC page
    assert client.status_code == 200 and "noVNC" in client.text
    assert "offers no serial console" in page.text  # [serial_console] is off here
    assert "connect-src" not in page.headers["Content-Security-Policy"]
    _act(demo, made, "stop")
    _wait(cloud, made, "SHUTOFF")
    stopped = demo.get(f"{_I}/{made}")
    assert 'id="novnc-none"' in stopped.text and "while the instance is running" in stopped.text


def test_another_projects_user_finds_no_form_and_no_action(
    cloud: Cloud, world: World, servers: dict[str, str]
) -> None:
    made = servers["dash-states"]
    other = Visitor(world.base)
    assert other.login(world.other_user, world.other_password).status_code == 303
    for form in ("resize", "snapshot"):
        shown = other.get(f"{_I}/{made}/{form}")
        assert shown.status_code == 404 and NOT_HERE in shown.text
    other.get(_I)
    for path, data in ((f"{_I}/{made}/snapshot", {"name": "stolen"}),
                       (f"{_I}/{made}/action", {"action": "pause"}),
                       (f"{_I}/{made}/resize", {"flavor": world.flavor_id})):  # fmt: skip
        refused = other.post(path, data)
        assert refused.status_code == 404 and NOT_HERE in refused.text, path
    found = sdk(cloud.clouds_yaml, "demo").compute.get_server(made)
    assert found.status == "ACTIVE" and not found.task_state
    assert not list(sdk(cloud.clouds_yaml, "demo").image.images(name="stolen"))
