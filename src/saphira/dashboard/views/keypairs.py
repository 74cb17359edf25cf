"""The Key pairs pages: list, create (its private key downloaded once), import, delete."""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import quote

from werkzeug.wrappers import Response

from saphira.dashboard import cloud_keys
from saphira.dashboard.app import Ctx, redirect
from saphira.dashboard.errors import PageError, refusal
from saphira.dashboard.render import SECURITY_HEADERS

FormView = Callable[[Ctx, str, int], Response]
LIST = "/project/key_pairs"
NAME = re.compile(r"^[A-Za-z0-9 _.@-]{1,255}$")  # Nova's key pair name characters
ONCE = (
    "That private key was downloaded already (or expired): the dashboard keeps it for "
    "one download only. Make a new key pair."
)
DELETE_WARNING = (
    "Deleting a key pair removes only its public key from the cloud: instances "
    "launched with it keep it, and your private key still works for them."
)


def _at(name: str, what: str = "") -> str:
    return f"{LIST}/{quote(name, safe='')}{'/' + what if what else ''}"


def listing(ctx: Ctx) -> Response:
    rows = cloud_keys.keypairs(ctx.conn)
    return ctx.page("keypairs.html", rows=rows)


def create_form(ctx: Ctx, message: str = "", status: int = 200) -> Response:
    return _form(ctx, "create", message, status)


def import_form(ctx: Ctx, message: str = "", status: int = 200) -> Response:
    return _form(ctx, "import", message, status)


def _form(ctx: Ctx, kind: str, message: str, status: int) -> Response:
    chosen = ctx.request.form if ctx.request.method == "POST" else None
    return ctx.page("keypair_form.html", status, kind=kind, message=message, chosen=chosen,
                    types=cloud_keys.KEY_TYPES)  # fmt: skip


def _fields(ctx: Ctx) -> tuple[str, str]:
    """The form's name and type (ValueError: what is wrong, in plain words)."""
    name = ctx.request.form.get("name", "").strip()
    key_type = ctx.request.form.get("type", "ssh")
    if not NAME.match(name):
        raise ValueError("Give the key pair a name of letters, digits, spaces, '_', '-', '.' "
                         "or '@'.")  # fmt: skip
    if key_type not in cloud_keys.KEY_TYPES:
        raise ValueError("Choose a key type from the list.")
    return name, key_type


def create(ctx: Ctx) -> Response:
    try:
        name, key_type = _fields(ctx)
        made = cloud_keys.generate(ctx.conn, name, key_type)
    except Exception as error:
        return _refused(ctx, create_form, error)
    ctx.app.private_keys.hold(ctx.live.id, made.row.name, made.private_key)
    return redirect(_at(made.row.name, "created"))


def import_(ctx: Ctx) -> Response:
    public_key = ctx.request.form.get("public_key", "").strip()
    try:
        name, key_type = _fields(ctx)
        if not public_key:
            raise ValueError("Paste the public key.")
        cloud_keys.import_key(ctx.conn, name, key_type, public_key)
    except Exception as error:
        return _refused(ctx, import_form, error)
    return redirect(LIST)


def _refused(ctx: Ctx, again: FormView, error: Exception) -> Response:
    """The form again with what was wrong: the field's or the API's words."""
    if isinstance(error, ValueError):
        return again(ctx, str(error), 400)
    problem = refusal(error)
    return again(ctx, problem.message, problem.status)


def created(ctx: Ctx) -> Response:
    name = ctx.args["name"]
    waiting = ctx.app.private_keys.waiting(ctx.live.id, name)
    keep = f"{ctx.app.private_keys.keep / 60:.0f} minutes"
    return ctx.page("keypair_created.html", key_name=name, waiting=waiting, keep=keep,
                    download=_at(name, "download"))  # fmt: skip


def download(ctx: Ctx) -> Response:
    name = ctx.args["name"]
    key = ctx.app.private_keys.take(ctx.live.id, name)
    if key is None:
        raise PageError(410, ONCE)
    filename = re.sub(r"[^A-Za-z0-9_.-]", "_", name) + ".pem"
    headers = {**SECURITY_HEADERS, "Content-Disposition": f'attachment; filename="{filename}"'}
    return Response(key, 200, headers=headers, mimetype="application/x-pem-file")


def confirm(ctx: Ctx) -> Response:
    found = cloud_keys.keypair(ctx.conn, ctx.args["name"])
    return ctx.page("keypair_confirm.html", key=found, warning=DELETE_WARNING,
                    action=_at(found.name, "delete"))  # fmt: skip


def delete(ctx: Ctx) -> Response:
    name = ctx.args["name"]
    if ctx.request.form.get("confirmed") != "yes":
        return redirect(_at(name, "delete"))
    cloud_keys.delete(ctx.conn, name)
    return redirect(LIST)
