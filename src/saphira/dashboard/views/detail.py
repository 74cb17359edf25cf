"""One instance: details, console log, action history; the confirmations and actions."""

from __future__ import annotations

from functools import partial

from werkzeug.wrappers import Response

from saphira.dashboard import cloud
from saphira.dashboard.actions import BY_NAME
from saphira.dashboard.app import Ctx, redirect
from saphira.dashboard.errors import PageError, explain

NOT_HERE = "There is no such instance in this project."


def _console(conn: cloud.Conn, server_id: str) -> str:
    """The console log, or why there is none (a building server has no log yet)."""
    try:
        return cloud.console_log(conn, server_id)
    except Exception as error:
        problem = explain(error)
        if problem is None or problem.needs_login:
            raise
        return f"(no console log: {problem.message})"


def show(ctx: Ctx) -> Response:
    server_id = ctx.args["server_id"]
    conn = ctx.app.connections.get(ctx.live.login)
    found, log, history = ctx.app.calls.gather(
        partial(cloud.server, conn, server_id, ctx.live.names),
        partial(_console, conn, server_id),
        partial(cloud.history, conn, server_id),
    )
    return ctx.page("detail.html", server=found, console=log, history=history)


def confirm(ctx: Ctx) -> Response:
    offer = BY_NAME.get(ctx.args["name"])
    if offer is None or not offer.confirmed:
        raise PageError(404, "There is no such action.")
    conn = ctx.app.connections.get(ctx.live.login)
    found = cloud.server(conn, ctx.args["server_id"], ctx.live.names)
    return ctx.page("confirm.html", server=found, offer=offer)


def act(ctx: Ctx) -> Response:
    server_id = ctx.args["server_id"]
    offer = BY_NAME.get(ctx.request.form.get("action", ""))
    if offer is None:
        raise PageError(400, "Choose an action.")
    if offer.confirmed and ctx.request.form.get("confirmed") != "yes":
        return redirect(f"/project/instances/{server_id}/confirm/{offer.name}")
    conn = ctx.app.connections.get(ctx.live.login)
    image = ""
    if offer.name == "rebuild":
        image = cloud.server(conn, server_id, ctx.live.names).image_id
        if not image:
            raise PageError(409, "This instance has no image to rebuild from.")
    cloud.act(conn, server_id, offer.name, image)
    back = ctx.request.form.get("back", "")
    return redirect(back if back == f"/project/instances/{server_id}" else "/project/instances")
