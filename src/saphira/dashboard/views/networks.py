"""Networks: the list, one network with its subnets and ports, create, delete."""

from __future__ import annotations

from werkzeug.wrappers import Response

from saphira.dashboard import cloud_network as net
from saphira.dashboard import netforms
from saphira.dashboard.app import Ctx, redirect
from saphira.dashboard.errors import PageError
from saphira.dashboard.views.netbase import project_of, refused

LIST = "/project/networks"


def listing(ctx: Ctx) -> Response:
    rows = net.networks(ctx.app.calls, ctx.conn, project_of(ctx))
    return ctx.page("networks.html", rows=rows, admin=ctx.live.login.is_admin,
                    project_id=project_of(ctx))  # fmt: skip


def show(ctx: Ctx) -> Response:
    detail = net.network(ctx.app.calls, ctx.conn, project_of(ctx), ctx.args["network_id"])
    return ctx.page("network.html", detail=detail, admin=ctx.live.login.is_admin,
                    mine=detail.network.owned_by(project_of(ctx)))  # fmt: skip


def owned(ctx: Ctx) -> net.NetworkDetail:
    """The network of the URL, if this project's own (what it may change); else 404."""
    detail = net.network(ctx.app.calls, ctx.conn, project_of(ctx), ctx.args["network_id"])
    if not detail.network.owned_by(project_of(ctx)):
        raise PageError(404, net.NOT_HERE)
    return detail


def form(ctx: Ctx, message: str = "", status: int = 200) -> Response:
    chosen = ctx.request.form if ctx.request.method == "POST" else None
    return ctx.page("network_form.html", status, admin=ctx.live.login.is_admin,
                    message=message, chosen=chosen)  # fmt: skip


def create(ctx: Ctx) -> Response:
    asked = netforms.network(ctx.request.form, ctx.live.login.is_admin)
    if isinstance(asked, str):
        return form(ctx, asked, 400)
    first = netforms.subnet(ctx.request.form)
    if isinstance(first, str):
        return form(ctx, first, 400)
    try:
        made = net.create_with_subnet(ctx.conn, asked, first)
    except Exception as error:
        return refused(ctx, error, form)
    return redirect(f"{LIST}/{made}")


def confirm(ctx: Ctx, message: str = "", status: int = 200) -> Response:
    detail = owned(ctx)
    n = detail.network
    in_use = [p for p in detail.ports if p.owner != "network:dhcp"]
    warning = (
        f"Deleting “{n.name}” also deletes its {len(n.subnets)} subnet(s). "
        + (f"{len(in_use)} port(s) still use it: the cloud will refuse until they are gone."
           if in_use else "No port uses it but its DHCP service's, which goes with it.")
    )  # fmt: skip
    return ctx.page("ask.html", status, title=f"Delete network “{n.name}”?", warning=warning,
                    action=f"{LIST}/{n.id}/delete", back=f"{LIST}/{n.id}", label="Delete network",
                    message=message)  # fmt: skip


def delete(ctx: Ctx) -> Response:
    owned(ctx)
    try:
        net.delete_network(ctx.conn, ctx.args["network_id"])
    except Exception as error:
        return refused(ctx, error, confirm)
    return redirect(LIST)
