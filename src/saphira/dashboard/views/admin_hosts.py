"""Admin → Hypervisors (usage as charts), Compute services (enable, disable with a
reason, force down), Network agents (alive, the bridge mappings) and an agent's details."""

from __future__ import annotations

from functools import partial

from openstack.placement.v1.resource_provider import ResourceProvider
from werkzeug.wrappers import Response

from saphira.dashboard import cloud_admin, cloud_hosts
from saphira.dashboard.app import Ctx, redirect
from saphira.dashboard.cloud import Conn
from saphira.dashboard.errors import PageError, refusal
from saphira.dashboard.views.admin_common import admin

SERVICES = "/admin/services"
SERVICE_ACTIONS = ("enable", "disable", "force-down", "unforce")


def _providers(conn: Conn) -> tuple[list[ResourceProvider], str]:
    """Placement's providers, or why there are none to read (said on the page)."""
    try:
        return cloud_hosts.providers(conn), ""
    except Exception as error:
        problem = refusal(error)
        return [], f"Placement did not answer, so usage is not shown: {problem.message}"


@admin
def hypervisors(ctx: Ctx) -> Response:
    """The hypervisors and placement's providers at once; then, only where the
    microversion left the usage out (2.88), each matching provider's figures."""
    conn = ctx.conn
    found, (providers, note) = ctx.app.calls.gather(
        partial(cloud_hosts.hypervisors, conn), partial(_providers, conn)
    )
    wanted = {str(h.id) for h in found} | {str(h.name) for h in found}
    placed = []
    if cloud_hosts.needs_placement(found):
        mine = [p for p in providers if str(p.id) in wanted or str(p.name) in wanted]
        placed = ctx.app.calls.each(partial(cloud_hosts.provider_usage, conn), mine)
    rows = cloud_hosts.rows(found, placed)
    total = cloud_hosts.summary(rows)
    return ctx.page("admin_hypervisors.html", hypervisors=rows, summary=total, note=note)


@admin
def services(ctx: Ctx) -> Response:
    conn = ctx.conn
    return ctx.page("admin_services.html", services=cloud_admin.services(conn))


@admin
def change_service(ctx: Ctx) -> Response:
    action = ctx.request.form.get("action", "")
    if action not in SERVICE_ACTIONS:
        raise PageError(400, "Choose to enable, disable or force down the service.")
    reason = " ".join(ctx.request.form.get("reason", "").split())[:255]
    conn = ctx.conn
    cloud_admin.service_action(conn, ctx.args["service_id"], action, reason)
    return redirect(SERVICES)


@admin
def agents(ctx: Ctx) -> Response:
    conn = ctx.conn
    return ctx.page("admin_agents.html", agents=cloud_admin.agents(conn))


@admin
def agent(ctx: Ctx) -> Response:
    conn = ctx.conn
    return ctx.page("admin_agent.html", agent=cloud_admin.agent(conn, ctx.args["agent_id"]))
