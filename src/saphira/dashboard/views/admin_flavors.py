"""Admin → Flavors: list, create, delete (confirmed), a private flavor's project access."""

from __future__ import annotations

from functools import partial

from openstack import exceptions as sdk
from werkzeug.wrappers import Response

from saphira.dashboard import cloud_admin, cloud_identity
from saphira.dashboard.app import Ctx, redirect
from saphira.dashboard.cloud import Conn
from saphira.dashboard.cloud_admin import FlavorRequest
from saphira.dashboard.errors import PageError, Problem
from saphira.dashboard.views.admin_common import FormError, admin, attempt, number, required

HOME = "/admin/flavors"
DELETE_WARNING = (
    "Deleting a flavor does not touch the instances already running with it, but no "
    "new instance can be launched or resized to it."
)


@admin
def listing(ctx: Ctx) -> Response:
    conn = ctx.conn
    return ctx.page("admin_flavors.html", flavors=cloud_admin.flavors(conn))


@admin
def form(ctx: Ctx, message: str = "", status: int = 200) -> Response:
    chosen = ctx.request.form if ctx.request.method == "POST" else None
    return ctx.page("admin_flavor_form.html", status, message=message, chosen=chosen)


def _request(ctx: Ctx) -> FlavorRequest:
    f = ctx.request.form
    return FlavorRequest(
        name=required(f, "name", "a name"),
        vcpus=number(f, "vcpus", "vCPUs", 1),
        ram=number(f, "ram", "RAM (MiB)", 1),
        disk=number(f, "disk", "Root disk (GiB)"),
        ephemeral=number(f, "ephemeral", "Ephemeral disk (GiB)"),
        swap=number(f, "swap", "Swap (MiB)"),
        public=f.get("public") == "yes",
    )


@admin
def create(ctx: Ctx) -> Response:
    try:
        request = _request(ctx)
    except FormError as error:
        return form(ctx, str(error), 400)
    conn = ctx.conn
    made = attempt(partial(cloud_admin.create_flavor, conn, request))
    if isinstance(made, Problem):
        return form(ctx, made.message, made.status)
    return redirect(HOME)


@admin
def confirm(ctx: Ctx) -> Response:
    conn = ctx.conn
    found = cloud_admin.flavor(conn, ctx.args["flavor_id"])
    return ctx.page("admin_flavor_confirm.html", flavor=found, warning=DELETE_WARNING)


@admin
def delete(ctx: Ctx) -> Response:
    flavor_id = ctx.args["flavor_id"]
    if ctx.request.form.get("confirmed") != "yes":
        return redirect(f"{HOME}/{flavor_id}/delete")
    cloud_admin.delete_flavor(ctx.conn, flavor_id)
    return redirect(HOME)


def _shared(conn: Conn, flavor_id: str) -> list[str]:
    """The projects a private flavor is shared with; none for a public one (whose
    access list the API answers with a 404; a missing flavor is the flavor call's)."""
    try:
        return cloud_admin.flavor_projects(conn, flavor_id)
    except sdk.NotFoundException:
        return []


@admin
def access(ctx: Ctx, message: str = "", status: int = 200) -> Response:
    conn = ctx.conn
    flavor_id = ctx.args["flavor_id"]
    found, shared, projects = ctx.app.calls.gather(
        partial(cloud_admin.flavor, conn, flavor_id), partial(_shared, conn, flavor_id),
        partial(cloud_identity.projects, conn),
    )  # fmt: skip
    names = {p.id: p.name for p in projects}
    return ctx.page(
        "admin_flavor_access.html", status, flavor=found, message=message,
        shared=[(p, names.get(p, p)) for p in shared],
        others=[p for p in projects if p.id not in set(shared)],
    )  # fmt: skip


@admin
def change_access(ctx: Ctx) -> Response:
    flavor_id = ctx.args["flavor_id"]
    f = ctx.request.form
    change, project_id = f.get("change", ""), f.get("project_id", "")
    if change not in ("add", "remove"):
        raise PageError(400, "Choose to add or remove a project.")
    if not project_id:
        return access(ctx, "Choose a project.", 400)
    conn = ctx.conn
    grant = partial(cloud_admin.flavor_access, conn, flavor_id, project_id, grant=change == "add")
    problem = attempt(grant)
    if isinstance(problem, Problem):
        return access(ctx, problem.message, problem.status)
    return redirect(f"{HOME}/{flavor_id}/access")
