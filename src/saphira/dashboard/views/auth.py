"""Log in, log out, switch project; the home redirect and the static files."""

from __future__ import annotations

import mimetypes
from importlib import resources

from keystoneauth1 import exceptions as ks
from werkzeug.security import safe_join
from werkzeug.wrappers import Response

from saphira.dashboard import csrf
from saphira.dashboard.app import Ctx, redirect
from saphira.dashboard.errors import PageError
from saphira.dashboard.keystone import NoProject
from saphira.dashboard.sessions import COOKIE

HOME = "/project/instances"


def home(ctx: Ctx) -> Response:
    return redirect(HOME)


def login_form(ctx: Ctx, message: str = "", status: int = 200, user: str = "") -> Response:
    token = csrf.new_token()
    page = ctx.page("login.html", status, login_token=token, message=message, user=user,
                    next=_next(ctx))  # fmt: skip
    _cookie(ctx, page, csrf.LOGIN_COOKIE, token)
    return page


def login(ctx: Ctx) -> Response:
    form = ctx.request.form
    user, password = form.get("username", "").strip(), form.get("password", "")
    if not user or not password:
        return login_form(ctx, "Enter your user name and password.", 400, user)
    try:
        made = ctx.app.keystone.login(user, password, form.get("domain") or "Default")
    except ks.Unauthorized:
        return login_form(ctx, "Wrong user name or password.", 401, user)
    except NoProject:
        return login_form(ctx, "You have no role on any project yet; ask an administrator.",
                          403, user)  # fmt: skip
    except ks.HttpError as error:
        if error.http_status == 429:
            return login_form(ctx, "Too many failed logins; wait a minute.", 429, user)
        raise
    session = ctx.app.sessions.create(made)
    done = redirect(_next(ctx) or HOME)
    _cookie(ctx, done, COOKIE, session.id)
    done.delete_cookie(csrf.LOGIN_COOKIE, path="/")
    return done


def logout(ctx: Ctx) -> Response:
    session = ctx.live
    ctx.app.sessions.drop(session.id)
    ctx.app.keystone.logout(session.login)
    done = redirect("/auth/login")
    done.delete_cookie(COOKIE, path="/", httponly=True, samesite="Lax")
    return done


def switch(ctx: Ctx) -> Response:
    session = ctx.live
    wanted = ctx.request.form.get("project_id", "")
    try:
        switched = ctx.app.keystone.switch(session.login, wanted)
    except KeyError:
        raise PageError(404, "You have no role on that project.") from None
    ctx.app.feeds.drop(f"{session.id}/")
    ctx.app.connections.forget(session.login)
    ctx.app.sessions.replace(session, switched)
    return redirect(HOME)


def static(ctx: Ctx) -> Response:
    root = resources.files("saphira.dashboard") / "static"
    name = safe_join(".", ctx.args["name"])
    target = root / name if name else None
    if target is None or not target.is_file():
        raise PageError(404, "There is no such file.")
    kind = mimetypes.guess_type(ctx.args["name"])[0] or "application/octet-stream"
    reply = Response(target.read_bytes(), mimetype=kind)
    reply.headers["Cache-Control"] = "public, max-age=3600"
    reply.headers["X-Content-Type-Options"] = "nosniff"
    return reply


def _next(ctx: Ctx) -> str:
    """Where to go after login: a path of this site only (no //host, no scheme)."""
    wanted = ctx.request.values.get("next", "")
    local = wanted.startswith("/") and not wanted.startswith("//") and "\\" not in wanted
    return wanted if local else ""


def _cookie(ctx: Ctx, response: Response, name: str, value: str) -> None:
    response.set_cookie(
        name, value, path="/", httponly=True, samesite="Lax", secure=ctx.request.is_secure
    )
