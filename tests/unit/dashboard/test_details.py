"""An instance's page: a long action's step, the consoles' URLs or reasons, the action
history re-read only while it can change, and the page's live stream."""

from __future__ import annotations

import dataclasses
import json
import queue
from typing import Any, cast

import pytest
from openstack import exceptions as sdk
from openstack.compute.v2.server_action import ServerAction
from werkzeug.wrappers import Response

from saphira.dashboard import cloud_actions
from saphira.dashboard.actions import offered
from saphira.dashboard.cloud import Conn
from saphira.dashboard.feed import END, Event
from saphira.dashboard.progress import step_of
from saphira.dashboard.render import SECURITY_HEADERS, Templates
from saphira.dashboard.rows import ServerRow
from saphira.dashboard.views import detail, detail_live

ID = "6a0540a2-c781-4ac1-936b-b25714bed2fd"


def server(sid: str = ID, status: str = "ACTIVE", task: str | None = None) -> ServerRow:
    vm = {"VERIFY_RESIZE": "resized", "RESIZE": "active"}.get(status, status.lower())
    return ServerRow(
        id=sid, name="web", image_id="i", image_name="img", flavor="tiny", addresses=(),
        status=status, vm_state=vm, task_state=task, power_state="running", fault="",
        updated="2026-01-01T00:00:01Z",
        offers=offered(vm, task, launched=True, locked=False),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("task", "words"),
    [
        ("scheduling", "Building: step 1 of 4 (scheduling)"),
        ("spawning", "Building: step 4 of 4 (spawning)"),
        ("resize_migrating", "Resizing: step 2 of 4 (resize migrating)"),
        ("image_uploading", "Snapshotting: step 4 of 4 (image uploading)"),
        ("powering-off", "Shutting off: step 1 of 1 (powering off)"),
    ],
)
def test_a_task_state_is_a_step_of_its_action(task: str, words: str) -> None:
    step = step_of(task)
    assert step is not None and step.words == words


def test_no_step_when_idle_or_for_an_unknown_task() -> None:
    assert step_of(None) is None and step_of("dancing") is None


def _action(request_id: str, finished: bool) -> ServerAction:
    end, result = ("t2", "Success") if finished else (None, None)
    event = {"event": "compute_resize", "start_time": "t1", "finish_time": end, "result": result}
    return ServerAction(action="resize", request_id=request_id, start_time="t0", message=None,
                        events=[event])  # fmt: skip


class Compute:
    """The compute proxy's few calls the page makes, answering as told; counts reads."""

    def __init__(self, console: Exception | str = "", actions: int = 2) -> None:
        self.console = console
        self.ids = [f"req-{n}" for n in range(actions)]
        self.finished = False
        self.reads: list[str] = []

    def create_server_remote_console(self, server: str, **attrs: str) -> Any:
        if isinstance(self.console, Exception):
            raise self.console
        return type("Made", (), {"url": self.console})()

    def server_actions(self, server: str) -> list[ServerAction]:
        return [_action(i, self.finished) for i in self.ids]

    def get_server_action(self, request_id: str, server: str) -> ServerAction:
        self.reads.append(request_id)
        return _action(request_id, self.finished)

    def finish(self) -> None:
        self.finished = True


class FakeConn:
    def __init__(self, compute: Compute) -> None:
        self.compute = compute


def conn(compute: Compute) -> Conn:
    return cast(Conn, FakeConn(compute))


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        (sdk.ConflictException("Instance is not ready", http_status=409), "while the instance"),
        (sdk.BadRequestException("Unavailable console type serial.", http_status=400),
         "offers no serial console"),
        ("", "offers no serial console"),
    ],
)  # fmt: skip
def test_a_console_the_cloud_cannot_give_is_a_reason_in_words(answer: Any, says: str) -> None:
    found = cloud_actions.console(conn(Compute(answer)), ID, "serial")
    assert found.url == "" and says in found.reason and found.origin == ""


def test_a_console_of_another_project_is_the_pages_404() -> None:
    with pytest.raises(sdk.NotFoundException):
        cloud_actions.console(conn(Compute(sdk.NotFoundException("no", http_status=404))), ID,
                              "novnc")  # fmt: skip


def test_the_page_may_frame_the_console_proxy_and_nothing_else() -> None:
    novnc = cloud_actions.Console("novnc", "http://192.0.2.1:6080/vnc_auto.html?path=x", "")
    serial = cloud_actions.Console("serial", "ws://192.0.2.1:6083/?token=t", "")
    page = Response("", headers=dict(SECURITY_HEADERS))
    detail._allow_consoles(page, novnc, serial)
    policy = page.headers["Content-Security-Policy"]
    assert "frame-src http://192.0.2.1:6080" in policy
    assert "connect-src 'self' ws://192.0.2.1:6083" in policy
    odd = cloud_actions.Console("novnc", "http://a b;script-src *@x/", "")
    quiet = Response("", headers=dict(SECURITY_HEADERS))
    detail._allow_consoles(quiet, odd, cloud_actions.Console("serial", "", "none"))
    assert quiet.headers["Content-Security-Policy"] == SECURITY_HEADERS["Content-Security-Policy"]


def test_the_history_rereads_an_action_only_until_it_has_ended() -> None:
    compute = Compute(actions=2)
    history = cloud_actions.History(conn(compute), ID)
    assert [e.finished for r in history.read(idle=False) for e in r.events] == ["", ""]
    compute.finish()
    assert all(e.finished for r in history.read(idle=True) for e in r.events)
    compute.reads.clear()
    assert len(history.read(idle=True)) == 2 and compute.reads == []  # kept: over


def _frames(stream: Any) -> list[tuple[str, dict[str, str]]]:
    text = b"".join(stream).decode()
    found = []
    for block in text.split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in lines:
            found.append((lines["event"], json.loads(lines["data"])))
    return found


def never(image: str) -> cloud_actions.ImageProgress:
    raise AssertionError(f"no snapshot is followed, yet image {image} was read")


def _watch(compute: Compute, image: str = "") -> detail_live.Watch:
    return detail_live.Watch(ID, cloud_actions.History(conn(compute), ID), image)


def test_the_stream_sends_its_servers_changes_with_the_step_and_history() -> None:
    listener: queue.SimpleQueue[Event] = queue.SimpleQueue()
    for row in (server("other", "BUILD", "spawning"), server(ID, "RESIZE", "resize_migrating"),
                server(ID, "VERIFY_RESIZE")):  # fmt: skip
        listener.put(Event("row", row))
    listener.put(END)
    frames = _frames(detail_live._stream(Templates(), "tok", listener, _watch(Compute()), never))
    assert [kind for kind, _ in frames] == ["server", "server", "end"]  # not the other's
    assert "Resizing: step 2 of 4" in frames[0][1]["facts"]
    assert "confirm the new flavor" in frames[1][1]["facts"]
    assert 'data-action="confirm_resize"' in frames[1][1]["actions"]
    assert 'value="tok"' in frames[1][1]["actions"] and "<td>resize" in frames[1][1]["history"]


def test_the_stream_follows_a_snapshot_to_active_then_stops_reading_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(detail_live, "TICK", 0.01)
    listener: queue.SimpleQueue[Event] = queue.SimpleQueue()
    answers = ["queued", "saving", "saving", "active"]
    read: list[str] = []

    def reads(image: str) -> cloud_actions.ImageProgress:
        read.append(image)
        if len(read) == len(answers):
            listener.put(END)
        return cloud_actions.ImageProgress(image, "snap", answers[len(read) - 1])

    stream = detail_live._stream(Templates(), "t", listener, _watch(Compute(), "img-1"), reads)
    frames = _frames(stream)
    shown = [data["html"] for kind, data in frames if kind == "image"]
    assert len(shown) == 3 and "queued" in shown[0] and "saving" in shown[1]  # changes only
    assert "“snap” is ready (active)" in shown[2] and read == ["img-1"] * 4


def test_a_deleted_server_ends_its_pages_stream() -> None:
    listener: queue.SimpleQueue[Event] = queue.SimpleQueue()
    listener.put(Event("row", server(ID, "DELETED")))
    listener.put(Event("row", server(ID)))  # never read: the stream is over
    frames = _frames(detail_live._stream(Templates(), "t", listener, _watch(Compute()), never))
    assert frames == [("gone", {"message": "This instance has been deleted."})]


def test_a_row_shows_its_long_actions_step_beside_its_task() -> None:
    busy = Templates().macro(
        "_row.html", "server_row", server(ID, "RESIZE", "resize_migrating"), "t"
    )
    assert 'resize_migrating <span class="step">(step 2 of 4)</span>' in busy
    idle = Templates().macro("_row.html", "server_row", server(ID), "t")
    assert 'class="step"' not in idle and ">None</td>" in idle


def test_a_build_fault_is_said_with_its_reasons_on_the_row_and_the_page() -> None:
    why = "No valid host was found. dash.big: MEMORY_MB wants 32768, at most 7000 free"
    failed = dataclasses.replace(server(ID, "ERROR"), fault=why)
    assert f'<div class="fault">{why}</div>' in Templates().macro(
        "_row.html", "server_row", failed, "t")  # fmt: skip
    facts = Templates().macro("_detail.html", "facts", failed)
    assert f'<dt>Fault</dt><dd class="error">{why}</dd>' in facts
