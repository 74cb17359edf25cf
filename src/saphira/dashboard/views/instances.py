"""The Instances page and its live event stream."""

from __future__ import annotations

import json
import queue
from collections.abc import Iterator
from functools import partial

from werkzeug.wrappers import Response

from saphira.dashboard import cloud
from saphira.dashboard.app import Ctx
from saphira.dashboard.errors import PageError
from saphira.dashboard.feed import Event, Fetch
from saphira.dashboard.render import SECURITY_HEADERS, Templates
from saphira.dashboard.rows import ServerRow
from saphira.dashboard.sessions import Session

HEARTBEAT = 5.0  # seconds between comments: they keep proxies open and find a page gone
# (a closed connection is noticed only when written to; until then its feed keeps reading)


def listing(ctx: Ctx) -> Response:
    conn = ctx.conn
    rows, images = ctx.app.calls.gather(partial(cloud.servers, conn), partial(cloud.images, conn))
    names = ctx.live.names.learn(images)
    rows = cloud.named(rows, ctx.live.names.resolve(conn, {r.image_id for r in rows}) | names)
    rows = sorted(rows, key=lambda r: (r.name, r.id))
    since = max((r.updated for r in rows), default="")
    return ctx.page("instances.html", rows=rows, since=since)


def events(ctx: Ctx) -> Response:
    """Server-sent events: a ``row`` event per changed server, rendered as the page does."""
    session = ctx.live
    feed = ctx.app.feeds.get(session.key, partial(project_fetch, ctx, session))
    if feed is None:
        raise PageError(503, "The dashboard is stopping.")
    listener = feed.listen(ctx.request.args.get("since", ""))
    stream = _stream(ctx.app.templates, session.csrf, listener, partial(feed.leave, listener))
    headers = {**SECURITY_HEADERS, "X-Accel-Buffering": "no"}
    return Response(stream, headers=headers, mimetype="text/event-stream")


def project_fetch(ctx: Ctx, session: Session) -> Fetch:
    """The session's one change feed's reader, which an instance's page shares."""
    conn = ctx.app.connections.get(session.login)

    def fetch(since: str | None) -> list[ServerRow]:
        rows = cloud.servers(conn, since)
        return cloud.named(rows, session.names.resolve(conn, {r.image_id for r in rows}))

    return fetch


def _stream(
    templates: Templates, token: str, listener: queue.SimpleQueue[Event], leave: partial[None]
) -> Iterator[bytes]:
    try:
        yield b"retry: 2000\n\n"
        while True:
            try:
                event = listener.get(timeout=HEARTBEAT)
            except queue.Empty:
                yield b": still here\n\n"
                continue
            if event.kind == "end":
                yield b"event: end\ndata: {}\n\n"
                return
            yield _frame(templates, token, event)
    finally:
        leave()


def _frame(templates: Templates, token: str, event: Event) -> bytes:
    if event.row is None:
        data = json.dumps({"message": event.message})
        return f"event: problem\ndata: {data}\n\n".encode()
    r = event.row
    html = "" if r.deleted else templates.macro("_row.html", "server_row", r, token)
    data = json.dumps({"id": r.id, "deleted": r.deleted, "updated": r.updated, "html": html})
    return f"event: row\ndata: {data}\n\n".encode()
