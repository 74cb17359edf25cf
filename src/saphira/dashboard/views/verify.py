"""An instance verified in layers (``saphira verify server``'s walk, with the user's
token): each layer passed, the first failed one with its fix, the layers policy hides
marked "needs admin". The host probe is the CLI's alone: here it is "not checked"."""

from __future__ import annotations

from werkzeug.wrappers import Response

from saphira.dashboard.app import Ctx
from saphira.dashboard.errors import PageError
from saphira.verify.fixes import FIXES
from saphira.verify.gather import Source
from saphira.verify.model import TITLES, Wanted
from saphira.verify.run import verify_server

DEFAULT_PORT = "22/tcp"


def show(ctx: Ctx) -> Response:
    asked = ctx.request.args.get("port", DEFAULT_PORT).strip() or DEFAULT_PORT
    try:
        wanted = Wanted.parse(asked)
    except ValueError as error:
        raise PageError(400, f"Port {error}.") from None
    source = Source(ctx.conn)
    found = source.server(ctx.args["server_id"])
    report = verify_server(source, found, wanted, None)
    failed = report.failed
    return ctx.page(
        "verify.html", server=found, report=report, wanted=wanted, titles=TITLES,
        fix=FIXES[failed.layer] if failed else "",
    )  # fmt: skip
