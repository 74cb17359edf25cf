"""Resize (a flavor chosen) and Create Snapshot (a name given): each a form, then the call."""

from __future__ import annotations

from functools import partial

from werkzeug.wrappers import Response

from saphira.dashboard import cloud, cloud_actions
from saphira.dashboard.app import Ctx, redirect
from saphira.dashboard.errors import refusal

MAX_NAME = 255  # Glance's and Nova's limit on a name


def resize_form(ctx: Ctx, message: str = "", status: int = 200) -> Response:
    conn = ctx.conn
    found, flavors = ctx.app.calls.gather(
        partial(cloud.server, conn, ctx.args["server_id"], ctx.live.names),
        partial(cloud.flavors, conn),
    )
    others = [f for f in flavors if f.name != found.flavor]
    return ctx.page("resize.html", status, server=found, flavors=others, message=message)


def resize(ctx: Ctx) -> Response:
    server_id = ctx.args["server_id"]
    flavor = ctx.request.form.get("flavor", "")
    if not flavor:
        return resize_form(ctx, "Choose a flavor.", 400)
    try:
        cloud_actions.resize(ctx.conn, server_id, flavor)
    except Exception as error:
        problem = refusal(error, page_says_404=False)  # a form's refusal
        return resize_form(ctx, problem.message, problem.status)
    return redirect(f"/project/instances/{server_id}")


def snapshot_form(ctx: Ctx, message: str = "", status: int = 200) -> Response:
    conn = ctx.conn
    found = cloud.server(conn, ctx.args["server_id"], ctx.live.names)
    name = ctx.request.form.get("name", "") if ctx.request.method == "POST" else ""
    return ctx.page(
        "snapshot.html", status, server=found, chosen=name or f"{found.name}-snapshot",
        message=message,
    )  # fmt: skip


def snapshot(ctx: Ctx) -> Response:
    server_id = ctx.args["server_id"]
    name = ctx.request.form.get("name", "").strip()
    if not name or len(name) > MAX_NAME:
        return snapshot_form(ctx, f"Give the snapshot a name (at most {MAX_NAME} characters).", 400)
    try:
        image = cloud_actions.snapshot(ctx.conn, server_id, name)
    except Exception as error:
        problem = refusal(error, page_says_404=False)  # a form's refusal
        return snapshot_form(ctx, problem.message, problem.status)
    return redirect(f"/project/instances/{server_id}?snapshot={image}")
