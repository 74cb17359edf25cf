"""Create an image: the form, the file's arrival, its upload to the image service.

The page's script sends the form with XMLHttpRequest (the browser's own
progress), asking for JSON; the answer names the upload's event stream, which
says how far the dashboard's upload to the image service is and when the image
is active. Without the script the form posts as any form and lands on the
image's page.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from functools import partial
from typing import IO

from werkzeug.datastructures import FileStorage
from werkzeug.wrappers import Response

from saphira.dashboard import cloud_images, image_formats
from saphira.dashboard.app import Ctx, redirect
from saphira.dashboard.cloud_images import NewImage
from saphira.dashboard.errors import PageError, refusal
from saphira.dashboard.render import SECURITY_HEADERS
from saphira.dashboard.uploads import Job, Progress, Upload
from saphira.dashboard.views.images import LIST, is_admin

HEARTBEAT = 5.0
SETTLE_TIMEOUT = 300.0  # seconds an uploaded image may take to turn active
VISIBILITIES = ("private", "shared", "community")  # and "public" for an admin (Glance's policy)


def _visibilities(ctx: Ctx) -> tuple[str, ...]:
    return (*VISIBILITIES, "public") if is_admin(ctx) else VISIBILITIES


def form(ctx: Ctx, message: str = "", status: int = 200) -> Response:
    chosen = ctx.request.form if ctx.request.method == "POST" else None
    return ctx.page(
        "image_upload.html", status, message=message, chosen=chosen,
        formats=image_formats.FORMATS, visibilities=_visibilities(ctx), cap=ctx.app.upload_cap,
        cap_text=cloud_images.size_text(ctx.app.upload_cap),
    )  # fmt: skip


def _number(text: str, label: str) -> int:
    try:
        value = int(text or "0")
    except ValueError:
        raise ValueError(f"{label} must be a whole number.") from None
    if value < 0:
        raise ValueError(f"{label} cannot be negative.")
    return value


def _new_image(ctx: Ctx, head: bytes, tail: bytes) -> NewImage:
    """The image the form asks for (ValueError: what is wrong, in plain words)."""
    f = ctx.request.form
    name, chosen = f.get("name", "").strip(), f.get("disk_format", "")
    visibility = f.get("visibility", "private")
    if not name:
        raise ValueError("Give the image a name.")
    if chosen and chosen not in image_formats.FORMATS:
        raise ValueError("Choose a disk format from the list.")
    if visibility not in _visibilities(ctx):
        raise ValueError("Choose a visibility from the list.")
    disk_format = chosen or image_formats.detect(head, tail)
    min_disk = _number(f.get("min_disk", ""), "Minimum disk")
    min_ram = _number(f.get("min_ram", ""), "Minimum RAM")
    return NewImage(name, disk_format, visibility, min_disk, min_ram)


def _measure(stream: IO[bytes]) -> tuple[int, bytes, bytes]:
    """The file's size, first and last bytes; the stream left at its start."""
    total = stream.seek(0, 2)
    stream.seek(0)
    head = stream.read(image_formats.HEAD_SIZE)
    stream.seek(max(0, total - image_formats.TAIL_SIZE))
    tail = stream.read()
    stream.seek(0)
    return total, head, tail


def _refuse(ctx: Ctx, message: str, status: int) -> Response:
    if _wants_json(ctx):
        return Response(json.dumps({"error": message}), status, headers=SECURITY_HEADERS,
                        mimetype="application/json")  # fmt: skip
    return form(ctx, message, status)


def _wants_json(ctx: Ctx) -> bool:
    return ctx.request.accept_mimetypes.best == "application/json"


def submit(ctx: Ctx) -> Response:
    sent = ctx.request.files.get("file")
    if not isinstance(sent, FileStorage) or not sent.filename:
        return _refuse(ctx, "Choose a file to upload.", 400)
    total, head, tail = _measure(sent.stream)
    if total == 0:
        return _refuse(ctx, "The file is empty.", 400)
    try:
        new = _new_image(ctx, head, tail)
    except ValueError as wrong:
        return _refuse(ctx, str(wrong), 400)
    conn = ctx.conn
    try:
        image_id = cloud_images.create(conn, new)
    except Exception as error:
        problem = refusal(error)
        return _refuse(ctx, problem.message, problem.status)
    job = Job(
        send=lambda data: cloud_images.upload(conn, image_id, data, total),
        settle=partial(cloud_images.status, conn, image_id),
        undo=partial(cloud_images.forget_failed, conn, image_id), timeout=SETTLE_TIMEOUT,
    )  # fmt: skip
    owned, sent.stream = sent.stream, io.BytesIO()  # the request's close leaves it to the upload
    ctx.app.uploads.start(ctx.live.id, image_id, owned, total, job)
    where = f"{LIST}/{image_id}"
    if not _wants_json(ctx):
        return redirect(where)
    body = {"image": image_id, "disk_format": new.disk_format, "progress": f"{where}/progress",
            "detail": where}  # fmt: skip
    return Response(json.dumps(body), 202, headers=SECURITY_HEADERS, mimetype="application/json")


def progress(ctx: Ctx) -> Response:
    """Server-sent events: ``progress`` each time the upload moves, until it ends."""
    upload = ctx.app.uploads.get(ctx.live.id, ctx.args["image_id"])
    if upload is None:
        raise PageError(404, "No upload of that image was started in this session.")
    headers = {**SECURITY_HEADERS, "X-Accel-Buffering": "no"}
    return Response(_events(upload), headers=headers, mimetype="text/event-stream")


def _events(upload: Upload) -> Iterator[bytes]:
    yield b"retry: 2000\n\n"
    seen: Progress | None = None
    while True:
        now = upload.progress if seen is None else upload.wait(seen, HEARTBEAT)
        if now == seen:
            yield b": still here\n\n"
            continue
        seen = now
        yield frame(now)
        if now.done:
            return


def frame(now: Progress) -> bytes:
    data = json.dumps({"phase": now.phase, "sent": now.sent, "total": now.total,
                       "status": now.status, "message": now.message})  # fmt: skip
    return f"event: progress\ndata: {data}\n\n".encode()
