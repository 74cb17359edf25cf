"""Admin → Projects and Users: list, create a project, create a user (password,
default project, a first role), a project's members, give and take away roles."""

from __future__ import annotations

from functools import partial

from werkzeug.wrappers import Response

from saphira.dashboard import cloud_identity
from saphira.dashboard.app import Ctx, redirect
from saphira.dashboard.cloud_identity import UserRequest
from saphira.dashboard.errors import PageError, Problem
from saphira.dashboard.keystone import DOMAIN
from saphira.dashboard.views.admin_common import FormError, admin, attempt, required

PROJECTS, USERS = "/admin/projects", "/admin/users"
DOMAIN_ID = "default"  # the Default domain's id, where the dashboard's logins live
MIN_PASSWORD = 8


@admin
def projects(ctx: Ctx, message: str = "", status: int = 200) -> Response:
    conn = ctx.conn
    chosen = ctx.request.form if ctx.request.method == "POST" else None
    return ctx.page("admin_projects.html", status, projects=cloud_identity.projects(conn),
                    message=message, chosen=chosen, domain=DOMAIN)  # fmt: skip


@admin
def create_project(ctx: Ctx) -> Response:
    try:
        name = required(ctx.request.form, "name", "a project name")
    except FormError as error:
        return projects(ctx, str(error), 400)
    description = ctx.request.form.get("description", "").strip()
    conn = ctx.conn
    made = attempt(partial(cloud_identity.create_project, conn, name, description, DOMAIN_ID))
    if isinstance(made, Problem):
        return projects(ctx, made.message, made.status)
    return redirect(PROJECTS)


@admin
def project(ctx: Ctx, message: str = "", status: int = 200) -> Response:
    conn = ctx.conn
    project_id = ctx.args["project_id"]
    found, members, users, roles = ctx.app.calls.gather(
        partial(cloud_identity.project, conn, project_id),
        partial(cloud_identity.members, conn, project_id),
        partial(cloud_identity.users, conn), partial(cloud_identity.roles, conn),
    )  # fmt: skip
    return ctx.page("admin_project.html", status, project=found, members=members, users=users,
                    roles=roles, message=message)  # fmt: skip


@admin
def change_roles(ctx: Ctx) -> Response:
    f = ctx.request.form
    change, user_id, role_id = f.get("change", ""), f.get("user_id", ""), f.get("role_id", "")
    if change not in ("grant", "revoke"):
        raise PageError(400, "Choose to give or take away a role.")
    if not user_id or not role_id:
        return project(ctx, "Choose a user and a role.", 400)
    project_id = ctx.args["project_id"]
    conn = ctx.conn
    give = change == "grant"
    problem = attempt(partial(cloud_identity.grant, conn, project_id, user_id, role_id, give=give))
    if isinstance(problem, Problem):
        return project(ctx, problem.message, problem.status)
    return redirect(f"{PROJECTS}/{project_id}")


@admin
def users(ctx: Ctx, message: str = "", status: int = 200) -> Response:
    conn = ctx.conn
    found, projects_, roles = ctx.app.calls.gather(
        partial(cloud_identity.users, conn), partial(cloud_identity.projects, conn),
        partial(cloud_identity.roles, conn),
    )  # fmt: skip
    chosen = ctx.request.form if ctx.request.method == "POST" else None
    names = {p.id: p.name for p in projects_}
    return ctx.page("admin_users.html", status, users=found, projects=projects_, roles=roles,
                    names=names, message=message, chosen=chosen)  # fmt: skip


def _user_request(ctx: Ctx) -> UserRequest:
    f = ctx.request.form
    name = required(f, "name", "a user name")
    password = f.get("password", "")
    if len(password) < MIN_PASSWORD:
        raise FormError(f"The password must have at least {MIN_PASSWORD} characters.")
    if password != f.get("confirm", ""):
        raise FormError("The two passwords differ.")
    project_id, role_id = f.get("project_id", ""), f.get("role_id", "")
    if role_id and not project_id:
        raise FormError("A role is given in a project: choose the primary project too.")
    return UserRequest(name, password, f.get("email", "").strip(), project_id, role_id)


@admin
def create_user(ctx: Ctx) -> Response:
    try:
        request = _user_request(ctx)
    except FormError as error:
        return users(ctx, str(error), 400)
    conn = ctx.conn
    made = attempt(partial(cloud_identity.create_user, conn, request, DOMAIN_ID))
    if isinstance(made, Problem):
        return users(ctx, made.message, made.status)
    if request.role_id:
        given = attempt(partial(cloud_identity.grant, conn, request.project_id, made,
                                request.role_id, give=True))  # fmt: skip
        if isinstance(given, Problem):
            said = f"The user {request.name} was created, but the role was not given: "
            return users(ctx, said + given.message, given.status)
    return redirect(USERS)
