"""Uploads to the image service in progress: a thread each, their progress for the page.

The browser's file reaches the dashboard first (Werkzeug spools a multipart file
part to a temporary file past 500 kB, so no upload sits in memory); then a
thread of this table streams it to ``PUT /v2/images/<id>/file`` in the HTTP
client's blocks, counting bytes as they are read, and waits for the image to
settle. A page reads ``Upload.progress`` (its event stream); an upload is
visible only to the session that started it, and is forgotten ``keep`` seconds
after it ended. ``close`` (the server stops) breaks every upload off at its
next block.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from saphira.dashboard.errors import explain

LOG = logging.getLogger(__name__)
SENDING, WAITING, ACTIVE, FAILED = "sending", "waiting", "active", "failed"
Settle = Callable[[], str]  # the image's status now
SETTLE_POLL = 0.5  # seconds between two reads of the image's status while it settles


@dataclass(frozen=True)
class Progress:
    phase: str  # SENDING, WAITING, ACTIVE or FAILED
    sent: int
    total: int
    status: str  # the image's status, once sent
    message: str  # why it failed, in plain words

    @property
    def done(self) -> bool:
        return self.phase in (ACTIVE, FAILED)


class Stopped(Exception):
    """The dashboard is stopping: the upload breaks off."""


class NotActive(Exception):
    """The data went up but the image did not turn active (its words are the page's)."""


class Upload:
    def __init__(self, owner: str, image_id: str, total: int) -> None:
        self.owner = owner
        self.image_id = image_id
        self.ended_at: float | None = None
        self._state = Progress(SENDING, 0, total, "queued", "")
        self._changed = threading.Condition()

    @property
    def progress(self) -> Progress:
        with self._changed:
            return self._state

    def update(
        self, *, phase: str = "", sent: int | None = None, status: str = "", message: str = ""
    ) -> None:
        """Moves the progress on (a field not given stays as it is)."""
        with self._changed:
            now = self._state
            self._state = Progress(
                phase or now.phase, now.sent if sent is None else sent, now.total,
                status or now.status, message or now.message,
            )  # fmt: skip
            self._changed.notify_all()

    def wait(self, seen: Progress, timeout: float) -> Progress:
        """The progress once it differs from ``seen`` (or after ``timeout``)."""
        with self._changed:
            self._changed.wait_for(lambda: self._state != seen, timeout)
            return self._state


class Counted:
    """A file read in blocks by the HTTP client, each block counted into its upload."""

    def __init__(self, source: IO[bytes], upload: Upload, stop: threading.Event) -> None:
        self.source = source
        self.upload = upload
        self.stop = stop
        self.sent = 0
        self.step = max(upload.progress.total // 200, 256 * 1024)  # ~200 updates at most
        self._said = 0

    def __len__(self) -> int:  # requests takes the Content-Length from it
        return self.upload.progress.total

    def read(self, size: int = -1) -> bytes:
        if self.stop.is_set():
            raise Stopped("the dashboard is stopping")
        block = self.source.read(size)
        self.sent += len(block)
        if self.sent - self._said >= self.step or not block:
            self._said = self.sent
            self.upload.update(sent=self.sent)
        return block


@dataclass
class Job:
    """What an upload does, given by the view: send the data, read the status, undo."""

    send: Callable[[Counted], None]
    settle: Settle
    undo: Callable[[], None]
    timeout: float


class Uploads:
    def __init__(self, keep: float = 600.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.keep = keep
        self.clock = clock
        self._table: dict[tuple[str, str], Upload] = {}
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def start(self, owner: str, image_id: str, source: IO[bytes], total: int, job: Job) -> Upload:
        upload = Upload(owner, image_id, total)
        thread = threading.Thread(
            target=self._run, args=(upload, source, job), name=f"dashboard-upload-{image_id}",
            daemon=True,
        )  # fmt: skip
        with self._lock:
            self._prune()
            self._table[(owner, image_id)] = upload
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()
        return upload

    def get(self, owner: str, image_id: str) -> Upload | None:
        with self._lock:
            return self._table.get((owner, image_id))

    def close(self, wait: float = 5.0) -> None:
        """Break every upload off; wait at most ``wait`` seconds in all for their threads."""
        self._stop.set()
        with self._lock:
            threads = list(self._threads)
        deadline = time.monotonic() + wait
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))

    def _prune(self) -> None:
        old = [k for k, u in self._table.items()
               if u.ended_at is not None and self.clock() - u.ended_at > self.keep]  # fmt: skip
        for key in old:
            del self._table[key]

    def _run(self, upload: Upload, source: IO[bytes], job: Job) -> None:
        try:
            failure = self._carry(upload, source, job)
        finally:
            source.close()
        upload.ended_at = self.clock()  # before the last word, so a page never sees it undone
        if failure:
            upload.update(phase=FAILED, message=failure)
        else:
            upload.update(phase=ACTIVE)

    def _carry(self, upload: Upload, source: IO[bytes], job: Job) -> str:
        """Send, then wait for active; "" when done, else what went wrong (image removed)."""
        try:
            job.send(Counted(source, upload, self._stop))
            upload.update(phase=WAITING)
            self._settle(upload, job)
        except Exception as error:
            return _failed(upload, error, job)
        return ""

    def _settle(self, upload: Upload, job: Job) -> None:
        deadline = self.clock() + job.timeout
        while True:
            status = job.settle()
            upload.update(status=status)
            if status == "active":
                return
            if status in ("killed", "deleted", "deactivated", "queued"):
                raise NotActive(f"The image service left the image {status} after its upload.")
            if self._stop.wait(SETTLE_POLL):
                raise Stopped("the dashboard is stopping")
            if self.clock() > deadline:
                waited = f"{job.timeout:.0f} s"
                raise NotActive(f"The image was still {status} {waited} after its upload.")


def _failed(upload: Upload, error: Exception, job: Job) -> str:
    problem = explain(error)
    if isinstance(error, Stopped):
        said = "The dashboard stopped before the upload ended."
    elif isinstance(error, NotActive):
        said = str(error)
    elif problem is not None:
        said = problem.message
    else:
        LOG.exception("dashboard: the upload of image %s failed", upload.image_id)
        said = "The upload failed in the dashboard; it was logged."
    try:
        job.undo()
    except Exception:  # said as it is: the image may still be listed, queued
        LOG.warning("dashboard: image %s of a failed upload was not removed", upload.image_id)
        return f"{said} The image could not be removed; delete it from the list."
    return f"{said} The image was removed."
