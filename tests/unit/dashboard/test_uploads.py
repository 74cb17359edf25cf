"""Uploads in progress: the data read in counted blocks, the wait for active, failures
in plain words with the image removed, the stop that breaks an upload off."""

from __future__ import annotations

import io
import threading

from openstack import exceptions as sdk

from saphira.dashboard.uploads import ACTIVE, FAILED, Counted, Job, Progress, Upload, Uploads

DATA = bytes(range(256)) * 8192  # 2 MiB


class Image:
    """What the job does to a fake image service: reads the data as an HTTP client."""

    def __init__(self, statuses: list[str], refuse: Exception | None = None) -> None:
        self.statuses = statuses
        self.refuse = refuse
        self.received = b""
        self.undone = False
        self.seen: list[Progress] = []

    def send(self, data: Counted) -> None:
        assert len(data) == len(DATA)  # the Content-Length
        while block := data.read(16384):
            self.received += block
            self.seen.append(data.upload.progress)
        if self.refuse is not None:
            raise self.refuse

    def settle(self) -> str:
        return self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0]

    def undo(self) -> None:
        self.undone = True

    def job(self) -> Job:
        return Job(self.send, self.settle, self.undo, timeout=30)


def _finished(upload: Upload) -> Progress:
    seen = upload.progress
    while not seen.done:
        seen = upload.wait(seen, 10)
    return seen


def test_the_data_goes_up_in_counted_blocks_and_the_image_turns_active() -> None:
    uploads, image, source = Uploads(), Image(["saving", "active"]), io.BytesIO(DATA)
    upload = uploads.start("s1", "img", source, len(DATA), image.job())
    end = _finished(upload)
    assert (end.phase, end.status, end.sent, end.total) == (ACTIVE, "active", len(DATA), len(DATA))
    assert image.received == DATA and not image.undone and source.closed
    sent = [p.sent for p in image.seen]
    assert sent == sorted(sent) and 0 < sent[len(sent) // 2] < len(DATA)  # it moved on the way
    assert uploads.get("s1", "img") is upload and uploads.get("s2", "img") is None
    uploads.close()


def test_a_refusal_is_said_in_the_services_words_and_the_image_removed() -> None:
    refusal = sdk.HttpException("Image data is qcow2, not raw", http_status=400)
    image = Image(["queued"], refuse=refusal)
    end = _finished(Uploads().start("s1", "img", io.BytesIO(DATA), len(DATA), image.job()))
    assert end.phase == FAILED and image.undone
    assert end.message.startswith("The cloud refused the request") and "removed" in end.message


def test_an_image_left_killed_fails_the_upload() -> None:
    image = Image(["killed"])
    end = _finished(Uploads().start("s1", "img", io.BytesIO(DATA), len(DATA), image.job()))
    assert end.phase == FAILED and "left the image killed" in end.message and image.undone


def test_a_stop_breaks_an_upload_off_at_its_next_block() -> None:
    reading = threading.Event()
    release = threading.Event()

    class Slow(io.BytesIO):
        def read(self, size: int | None = -1) -> bytes:
            reading.set()
            release.wait(10)
            return super().read(size)

    uploads, image = Uploads(), Image(["active"])
    upload = uploads.start("s1", "img", Slow(DATA), len(DATA), image.job())
    assert reading.wait(10)
    stopper = threading.Thread(target=uploads.close)
    stopper.start()
    release.set()
    stopper.join(10)
    end = _finished(upload)
    assert end.phase == FAILED and "stopped before the upload ended" in end.message
    assert image.undone and len(image.received) < len(DATA)


def test_a_finished_upload_is_forgotten_after_a_while() -> None:
    now = [0.0]
    uploads = Uploads(keep=60, clock=lambda: now[0])
    image = Image(["active"])
    _finished(uploads.start("s1", "a", io.BytesIO(DATA), len(DATA), image.job()))
    now[0] = 61
    uploads.start("s1", "b", io.BytesIO(DATA), len(DATA), Image(["active"]).job())
    assert uploads.get("s1", "a") is None and uploads.get("s1", "b") is not None
    uploads.close()
