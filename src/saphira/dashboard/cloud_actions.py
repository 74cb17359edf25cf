"""The API calls behind the instance actions beyond the lifecycle, the consoles and
the live action history, with openstacksdk and the user's own connection.

Results are typed values; a console the cloud cannot give is a reason in plain
words, not an error page (the rest of the details page still shows).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from urllib.parse import urlsplit

from saphira.dashboard import cloud
from saphira.dashboard.cloud import ActionRecord, Conn
from saphira.dashboard.errors import explain, refusal

# Offer name -> the compute proxy's method of one argument (the server).
SIMPLE = {
    "lock": "lock_server", "unlock": "unlock_server",
    "pause": "pause_server", "unpause": "unpause_server",
    "suspend": "suspend_server", "resume": "resume_server",
    "confirm_resize": "confirm_server_resize", "revert_resize": "revert_server_resize",
}  # fmt: skip


def act(conn: Conn, server_id: str, name: str, image_id: str = "") -> None:
    """One action by its offer name (``actions.OFFERS``) that needs no value."""
    method = SIMPLE.get(name)
    if method is None:
        cloud.act(conn, server_id, name, image_id)
    else:
        getattr(conn.compute, method)(server_id)


def resize(conn: Conn, server_id: str, flavor_id: str) -> None:
    conn.compute.resize_server(server_id, flavor_id)


def snapshot(conn: Conn, server_id: str, name: str) -> str:
    """The new image's id (createImage; the image is then ``queued``, ``saving``, ``active``)."""
    return str(conn.compute.create_server_image(server_id, name, wait=False).id)


@dataclass(frozen=True)
class ImageProgress:
    id: str
    name: str
    status: str  # queued, saving, active, killed, deleted; "gone" once not found

    @property
    def done(self) -> bool:
        return self.status != "queued" and self.status != "saving"


def image_progress(conn: Conn, image_id: str) -> ImageProgress:
    try:
        image = conn.image.get_image(image_id)
    except Exception as error:
        problem = explain(error)
        if problem is None or problem.status != 404:
            raise
        return ImageProgress(image_id, image_id, "gone")
    return ImageProgress(image_id, str(image.name or image_id), str(image.status or ""))


@dataclass(frozen=True)
class Console:
    kind: str  # "novnc" or "serial"
    url: str  # empty when there is none
    reason: str  # why there is none, in plain words

    @property
    def embed(self) -> str:
        """The URL as the page opens it: noVNC connects by itself (it scrolls in its frame)
        (Debian's vnc_auto.html is noVNC's full page, which waits for a click otherwise)."""
        if self.kind != "novnc" or not self.url:
            return self.url
        return f"{self.url}{'&' if '?' in self.url else '?'}autoconnect=true"

    @property
    def origin(self) -> str:
        """The URL's scheme://host:port, for the page's Content-Security-Policy."""
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}" if self.url and parts.netloc else ""


_PROTOCOL = {"novnc": "vnc", "serial": "serial"}
_NONE = {
    "novnc": "This cloud offers no graphical (noVNC) console for this instance.",
    "serial": "This cloud offers no serial console for this instance "
    "(its hypervisor driver or its [serial_console] setting does not provide one).",
}
_NOT_RUNNING = "The console opens while the instance is running; it is not running now."


def console(conn: Conn, server_id: str, kind: str) -> Console:
    """A fresh console URL (POST remote-consoles), or why there is none."""
    try:
        made = conn.compute.create_server_remote_console(
            server_id, protocol=_PROTOCOL[kind], type=kind
        )
    except Exception as error:
        problem = refusal(error, page_says_404=False)
        if problem.status == 409:
            return Console(kind, "", _NOT_RUNNING)
        if problem.status == 400:
            return Console(kind, "", _NONE[kind])
        return Console(kind, "", problem.message)
    url = str(made.url or "")
    return Console(kind, url, "" if url else _NONE[kind])


class History:
    """One page's action history, re-read when its server changes: the list each time,
    an action's events only until the action has ended (ended records are kept)."""

    def __init__(self, conn: Conn, server_id: str, most: int = 10) -> None:
        self.conn, self.server_id, self.most = conn, server_id, most
        self._ended: dict[str, ActionRecord] = {}
        self._lock = threading.Lock()

    def read(self, idle: bool) -> list[ActionRecord]:
        """The latest actions; ``idle``: the server runs no task, so each is over."""
        listed = list(self.conn.compute.server_actions(self.server_id))[: self.most]
        records = [self._record(str(a.request_id)) for a in listed]
        found = [r for r in records if r is not None]
        if idle:
            with self._lock:
                self._ended.update({r.request_id: r for r in found if _finished(r)})
        return found

    def _record(self, request_id: str) -> ActionRecord | None:
        with self._lock:
            kept = self._ended.get(request_id)
        if kept is not None:
            return kept
        action = self.conn.compute.get_server_action(request_id, self.server_id)
        return cloud.record(action) if action is not None else None


def _finished(record: ActionRecord) -> bool:
    return all(e.finished for e in record.events)
