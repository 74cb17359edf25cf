"""Launch an instance: the form (its choices read in parallel) and its submission."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from werkzeug.wrappers import Response

from saphira.dashboard import cloud
from saphira.dashboard.app import Ctx, redirect
from saphira.dashboard.errors import refusal

MAX_USER_DATA = 65535  # Nova's limit on the encoded user data, near enough


@dataclass(frozen=True)
class Choices:
    images: list[cloud.Choice]
    flavors: list[cloud.Choice]
    networks: list[cloud.Choice]
    groups: list[cloud.Choice]
    keys: list[cloud.Choice]


def _choices(ctx: Ctx) -> Choices:
    conn = ctx.conn
    project = ctx.live.login.project.id
    images, *rest = ctx.app.calls.gather(
        partial(cloud.images, conn), partial(cloud.flavors, conn),
        partial(cloud.networks, conn), partial(cloud.security_groups, conn, project),
        partial(cloud.keypairs, conn),
    )  # fmt: skip
    return Choices(cloud.bootable(images), *rest)


def form(ctx: Ctx, message: str = "", status: int = 200) -> Response:
    chosen = ctx.request.form if ctx.request.method == "POST" else None
    return ctx.page("launch.html", status, choices=_choices(ctx), message=message, chosen=chosen)


def _request(ctx: Ctx) -> cloud.LaunchRequest | str:
    """The request from the form, or what is missing in plain words."""
    f = ctx.request.form
    name, image, flavor = f.get("name", "").strip(), f.get("image", ""), f.get("flavor", "")
    wanted = (("a name", name), ("an image", image), ("a flavor", flavor))
    missing = [label for label, value in wanted if not value]
    if missing:
        return f"Choose {', '.join(missing)}."
    user_data = f.get("user_data", "")
    if len(user_data.encode()) * 4 / 3 > MAX_USER_DATA:
        return "The user data is too long (at most 48 KiB)."
    return cloud.LaunchRequest(
        name, image, flavor, f.get("network", ""), tuple(f.getlist("security_groups")),
        f.get("key_name", ""), user_data,
    )  # fmt: skip


def submit(ctx: Ctx) -> Response:
    request = _request(ctx)
    if isinstance(request, str):
        return form(ctx, request, 400)
    try:
        cloud.launch(ctx.conn, request)
    except Exception as error:
        problem = refusal(error)
        return form(ctx, problem.message, problem.status)
    return redirect("/project/instances")
