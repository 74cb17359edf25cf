"""One instance: details, consoles, console log, action history; confirmations and actions."""

from __future__ import annotations

import re
from functools import partial

from werkzeug.wrappers import Response

from saphira.dashboard import cloud, cloud_actions
from saphira.dashboard.actions import BY_NAME
from saphira.dashboard.app import Ctx, redirect
from saphira.dashboard.errors import PageError, refusal

NOT_HERE = "There is no such instance in this project."
_ORIGIN = re.compile(r"(https?|wss?)://[A-Za-z0-9.:\[\]-]+")
_IMAGE_ID = re.compile(r"[0-9a-fA-F-]{32,36}")


def _console(conn: cloud.Conn, server_id: str) -> str:
    """The console log, or why there is none (a building server has no log yet)."""
    try:
        return cloud.console_log(conn, server_id)
    except Exception as error:
        problem = refusal(error)
        return f"(no console log: {problem.message})"


def show(ctx: Ctx) -> Response:
    server_id = ctx.args["server_id"]
    conn = ctx.conn
    found, log, history, novnc, serial = ctx.app.calls.gather(
        partial(cloud.server, conn, server_id, ctx.live.names),
        partial(_console, conn, server_id),
        partial(cloud.history, conn, server_id),
        partial(cloud_actions.console, conn, server_id, "novnc"),
        partial(cloud_actions.console, conn, server_id, "serial"),
    )
    snapshot = snapshot_id(ctx)
    page = ctx.page(
        "detail.html", server=found, console=log, history=history, novnc=novnc, serial=serial,
        snapshot=snapshot,
    )  # fmt: skip
    _allow_consoles(page, novnc, serial)
    return page


def snapshot_id(ctx: Ctx) -> str:
    """The snapshot image the page follows (``?snapshot=``), if the id is well formed."""
    given = ctx.request.args.get("snapshot", "")
    return given if _IMAGE_ID.fullmatch(given) else ""


def _allow_consoles(
    page: Response, novnc: cloud_actions.Console, serial: cloud_actions.Console
) -> None:
    """The page may frame the noVNC proxy and open the serial proxy's websocket: only those."""
    frame, socket = novnc.origin, serial.origin
    policy = page.headers["Content-Security-Policy"]
    if frame and _ORIGIN.fullmatch(frame):
        policy += f"; frame-src {frame}"
    if socket and _ORIGIN.fullmatch(socket):
        policy += f"; connect-src 'self' {socket}"
    page.headers["Content-Security-Policy"] = policy


def confirm(ctx: Ctx) -> Response:
    offer = BY_NAME.get(ctx.args["name"])
    if offer is None or not offer.confirmed:
        raise PageError(404, "There is no such action.")
    conn = ctx.conn
    found = cloud.server(conn, ctx.args["server_id"], ctx.live.names)
    return ctx.page("confirm.html", server=found, offer=offer)


def act(ctx: Ctx) -> Response:
    server_id = ctx.args["server_id"]
    offer = BY_NAME.get(ctx.request.form.get("action", ""))
    if offer is None:
        raise PageError(400, "Choose an action.")
    if offer.form:
        return redirect(f"/project/instances/{server_id}/{offer.form}")
    if offer.confirmed and ctx.request.form.get("confirmed") != "yes":
        return redirect(f"/project/instances/{server_id}/confirm/{offer.name}")
    conn = ctx.conn
    image = ""
    if offer.name == "rebuild":
        image = cloud.server(conn, server_id, ctx.live.names).image_id
        if not image:
            raise PageError(409, "This instance has no image to rebuild from.")
    cloud_actions.act(conn, server_id, offer.name, image)
    back = ctx.request.form.get("back", "")
    return redirect(back if back == f"/project/instances/{server_id}" else "/project/instances")
