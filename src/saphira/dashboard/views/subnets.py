"""A network's subnets: add one, delete one (confirmed)."""

from __future__ import annotations

from werkzeug.wrappers import Response

from saphira.dashboard import cloud_network as net
from saphira.dashboard import netforms
from saphira.dashboard.app import Ctx, redirect
from saphira.dashboard.errors import PageError
from saphira.dashboard.views.netbase import refused
from saphira.dashboard.views.networks import LIST, owned


def form(ctx: Ctx, message: str = "", status: int = 200) -> Response:
    detail = owned(ctx)
    chosen = ctx.request.form if ctx.request.method == "POST" else None
    return ctx.page("subnet_form.html", status, network=detail.network, message=message,
                    chosen=chosen)  # fmt: skip


def create(ctx: Ctx) -> Response:
    network = owned(ctx).network
    asked = netforms.subnet(ctx.request.form)
    if asked is None:
        return form(ctx, "Give the subnet's network address (CIDR).", 400)
    if isinstance(asked, str):
        return form(ctx, asked, 400)
    try:
        net.create_subnet(ctx.conn, network.id, asked)
    except Exception as error:
        return refused(ctx, error, form)
    return redirect(f"{LIST}/{network.id}")


def _subnet(ctx: Ctx) -> tuple[net.NetworkRow, net.SubnetInfo]:
    """The network and subnet of the URL; 404 unless the subnet is of that network."""
    network = owned(ctx).network
    found = next((s for s in network.subnets if s.id == ctx.args["subnet_id"]), None)
    if found is None:
        raise PageError(404, net.NOT_HERE)
    return network, found


def confirm(ctx: Ctx, message: str = "", status: int = 200) -> Response:
    network, subnet = _subnet(ctx)
    warning = (
        f"Deleting subnet {subnet.cidr} of “{network.name}” frees its addresses; the cloud "
        "refuses while an instance port holds an address from it."
    )
    return ctx.page(
        "ask.html", status, title=f"Delete subnet {subnet.name or subnet.cidr}?",
        warning=warning, action=f"{LIST}/{network.id}/subnets/{subnet.id}/delete",
        back=f"{LIST}/{network.id}", label="Delete subnet", message=message,
    )  # fmt: skip


def delete(ctx: Ctx) -> Response:
    network, subnet = _subnet(ctx)
    try:
        net.delete_subnet(ctx.conn, subnet.id)
    except Exception as error:
        return refused(ctx, error, confirm)
    return redirect(f"{LIST}/{network.id}")
