"""Security groups: the list and create, one group with its rules, delete (confirmed)."""

from __future__ import annotations

from werkzeug.wrappers import Response

from saphira.dashboard import cloud_secgroups as sg
from saphira.dashboard.app import Ctx, redirect
from saphira.dashboard.errors import PageError
from saphira.dashboard.views.netbase import project_of, refused

LIST = "/project/security_groups"


def listing(ctx: Ctx, message: str = "", status: int = 200) -> Response:
    groups = sg.groups(ctx.conn, project_of(ctx))
    chosen = ctx.request.form if ctx.request.method == "POST" else None
    return ctx.page("secgroups.html", status, groups=groups, message=message, chosen=chosen)


def create(ctx: Ctx) -> Response:
    name = ctx.request.form.get("name", "").strip()
    if not name:
        return listing(ctx, "Give the security group a name.", 400)
    if name == sg.DEFAULT:
        return listing(ctx, "“default” is the name of the project's own default group.", 400)
    try:
        made = sg.create_group(ctx.conn, name, ctx.request.form.get("description", ""))
    except Exception as error:
        return refused(ctx, error, listing)
    return redirect(f"{LIST}/{made}")


def group_of(ctx: Ctx) -> sg.GroupRow:
    return sg.group(ctx.conn, project_of(ctx), ctx.args["group_id"])


def show(ctx: Ctx) -> Response:
    group = group_of(ctx)
    added = next((r for r in group.rules if r.id == ctx.request.args.get("added")), None)
    return ctx.page("secgroup.html", group=group, added=added)


def confirm(ctx: Ctx, message: str = "", status: int = 200) -> Response:
    group = group_of(ctx)
    if group.is_default:
        raise PageError(404, "The default security group cannot be deleted.")
    warning = (
        f"Deleting “{group.name}” removes its {len(group.rules)} rule(s); the cloud refuses "
        "while an instance port still uses the group."
    )
    return ctx.page("ask.html", status, title=f"Delete security group “{group.name}”?",
                    warning=warning, action=f"{LIST}/{group.id}/delete", back=f"{LIST}/{group.id}",
                    label="Delete security group", message=message)  # fmt: skip


def delete(ctx: Ctx) -> Response:
    group = group_of(ctx)
    if group.is_default:
        raise PageError(404, "The default security group cannot be deleted.")
    try:
        sg.delete_group(ctx.conn, group.id)
    except Exception as error:
        return refused(ctx, error, confirm)
    return redirect(LIST)
