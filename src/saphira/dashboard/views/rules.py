"""A security group's rules, added one by one and deleted (confirmed).

A rule that opens an instance to every address is said so before it is
added (the form comes back with the warning and asks again) and after (the
group's page names it at the top and beside the rule).
"""

from __future__ import annotations

from werkzeug.wrappers import Response

from saphira.dashboard import cloud_secgroups as sg
from saphira.dashboard import ruleform
from saphira.dashboard.app import Ctx, redirect
from saphira.dashboard.errors import PageError
from saphira.dashboard.secrules import PRESETS
from saphira.dashboard.views.netbase import project_of, refused
from saphira.dashboard.views.secgroups import LIST, group_of


def form(ctx: Ctx, message: str = "", status: int = 200, exposure: str = "") -> Response:
    groups = sg.groups(ctx.conn, project_of(ctx))
    group = next((g for g in groups if g.id == ctx.args["group_id"]), None)
    if group is None:
        raise PageError(404, sg.NOT_HERE)
    chosen = ctx.request.form if ctx.request.method == "POST" else None
    return ctx.page("rule_form.html", status, group=group, groups=groups, presets=PRESETS,
                    message=message, chosen=chosen, exposure=exposure)  # fmt: skip


def add(ctx: Ctx) -> Response:
    spec = ruleform.parse(ctx.request.form)
    if isinstance(spec, str):
        return form(ctx, spec, 400)
    if spec.exposure and ctx.request.form.get("confirmed") != "yes":
        return form(ctx, exposure=spec.exposure)
    group = group_of(ctx)
    try:
        made = sg.add_rule(ctx.conn, group.id, spec)
    except Exception as error:
        return refused(ctx, error, form)
    return redirect(f"{LIST}/{group.id}?added={made}")


def _rule(ctx: Ctx) -> tuple[sg.GroupRow, sg.RuleRow]:
    group = group_of(ctx)
    found = next((r for r in group.rules if r.id == ctx.args["rule_id"]), None)
    if found is None:
        raise PageError(404, sg.NOT_HERE)
    return group, found


def confirm(ctx: Ctx, message: str = "", status: int = 200) -> Response:
    group, rule = _rule(ctx)
    s = rule.spec
    what = f"{s.direction} {s.ethertype} {s.protocol or 'any protocol'} {s.ports}, {rule.remote}"
    return ctx.page(
        "ask.html", status, title=f"Delete this rule of “{group.name}”?",
        warning=f"Traffic the rule allows ({what}) is refused once it is gone, "
        "unless another rule allows it.",
        action=f"{LIST}/{group.id}/rules/{rule.id}/delete", back=f"{LIST}/{group.id}",
        label="Delete rule", message=message,
    )  # fmt: skip


def delete(ctx: Ctx) -> Response:
    group, rule = _rule(ctx)
    try:
        sg.delete_rule(ctx.conn, rule.id)
    except Exception as error:
        return refused(ctx, error, confirm)
    return redirect(f"{LIST}/{group.id}")
