"""The details page's live stream: its server's changes with the action history, and a
snapshot's image until it is active.

It listens to the session's one change feed (the Instances page's, shared by every
page of the session), keeps its own server's rows and, on each change, re-reads
the action history (the list, and the events of actions not yet over; see
``cloud_actions.History``). Nothing is read while the server is quiet, but a
snapshot's image: its status once a second until it is done.
"""

from __future__ import annotations

import json
import queue
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

from werkzeug.wrappers import Response

from saphira.dashboard import cloud_actions
from saphira.dashboard.app import Ctx
from saphira.dashboard.errors import PageError
from saphira.dashboard.feed import Event
from saphira.dashboard.render import SECURITY_HEADERS, Templates
from saphira.dashboard.rows import ServerRow
from saphira.dashboard.views.detail import snapshot_id
from saphira.dashboard.views.instances import HEARTBEAT, project_fetch

TICK = 1.0  # seconds between a snapshot's image reads
SETTLE = 3  # ticks the history is read again after the server went idle (its last event)


@dataclass
class Watch:
    """What one details page follows."""

    server_id: str
    history: cloud_actions.History
    image: str  # a snapshot's image id, until it is done; "" for none
    image_read: cloud_actions.ImageProgress | None = None
    settle: int = 0  # quiet ticks left to read the history again
    history_shown: str = ""


def events(ctx: Ctx) -> Response:
    session = ctx.live
    feed = ctx.app.feeds.get(session.key, partial(project_fetch, ctx, session))
    if feed is None:
        raise PageError(503, "The dashboard is stopping.")
    conn = ctx.app.connections.get(session.login)
    server_id = ctx.args["server_id"]
    watch = Watch(server_id, cloud_actions.History(conn, server_id), snapshot_id(ctx))
    listener = feed.listen(ctx.request.args.get("since", ""))
    reads = partial(cloud_actions.image_progress, conn)
    stream = _stream(ctx.app.templates, session.csrf, listener, watch, reads)
    headers = {**SECURITY_HEADERS, "X-Accel-Buffering": "no"}
    return Response(_closing(stream, partial(feed.leave, listener)), headers=headers,
                    mimetype="text/event-stream")  # fmt: skip


def _closing(frames: Iterator[bytes], leave: partial[None]) -> Iterator[bytes]:
    try:
        yield b"retry: 2000\n\n"
        yield from frames
    finally:
        leave()


Reads = Callable[[str], cloud_actions.ImageProgress]  # an image's progress by its id


def _stream(
    templates: Templates, token: str, listener: queue.SimpleQueue[Event], watch: Watch,
    reads: Reads,
) -> Iterator[bytes]:  # fmt: skip
    while True:
        waiting = bool(watch.image) or watch.settle > 0
        try:
            event = listener.get(timeout=TICK if waiting else HEARTBEAT)
        except queue.Empty:
            yield from _tick(templates, watch, reads)
            yield b": still here\n\n"
            continue
        if event.kind == "end":
            yield b"event: end\ndata: {}\n\n"
            return
        if event.row is None:
            yield _frame("problem", {"message": event.message})
        elif event.row.id == watch.server_id:
            yield _server(templates, token, watch, event.row)
            if event.row.deleted:
                return


def _tick(templates: Templates, watch: Watch, reads: Reads) -> Iterator[bytes]:
    """A quiet second: the snapshot's image, and the history while it settles."""
    if watch.settle > 0:
        watch.settle -= 1
        html = templates.macro("_detail.html", "history", watch.history.read(True))
        if watch.history_shown != html:
            watch.history_shown = html
            yield _frame("history", {"history": html})
    if watch.image:
        image = reads(watch.image)
        if image != watch.image_read:
            watch.image_read = image
            yield _frame("image", {"html": templates.macro("_detail.html", "snapshot", image)})
        if image.done:
            watch.image = ""


def _server(templates: Templates, token: str, watch: Watch, row: ServerRow) -> bytes:
    if row.deleted:
        return _frame("gone", {"message": "This instance has been deleted."})
    idle = not row.busy
    watch.settle = SETTLE if idle else 0
    history = templates.macro("_detail.html", "history", watch.history.read(idle))
    watch.history_shown = history
    data = {
        "status": row.status,
        "facts": templates.macro("_detail.html", "facts", row),
        "actions": templates.macro("_detail.html", "offers", row, token),
        "history": history,
    }
    return _frame("server", data)


def _frame(kind: str, data: dict[str, str]) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode()
