"""The Overview page: the project's quota usage as bars, each with its numbers in words."""

from __future__ import annotations

from werkzeug.wrappers import Response

from saphira.dashboard import cloud_quotas
from saphira.dashboard.app import Ctx


def show(ctx: Ctx) -> Response:
    conn = ctx.conn
    usage = cloud_quotas.usage(ctx.app.calls, conn, ctx.live.login.project.id)
    return ctx.page("overview.html", usage=usage)
