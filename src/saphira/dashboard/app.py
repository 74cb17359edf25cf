"""The dashboard's WSGI application: sessions, CSRF, dispatch and the one error page.

Every route but the public ones needs a live session (a GET without one is
sent to the login form, anything else is refused); every POST must carry the
session's CSRF token (the login form's own cookie token before a session
exists), else it is a 403 with a plain page. A view's failure becomes a page
in plain words (``errors.explain``); a bug is logged and shown as a short
apology, never as a stack trace.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from openstack import connection
from oslo_config import cfg
from werkzeug.exceptions import HTTPException, MethodNotAllowed, NotFound
from werkzeug.routing import Map
from werkzeug.wrappers import Request, Response

from saphira.clients import tls
from saphira.clients.endpoints import local_url
from saphira.dashboard import csrf
from saphira.dashboard.bodies import too_big
from saphira.dashboard.connection import Connections
from saphira.dashboard.errors import Problem, explain
from saphira.dashboard.feeds import Feeds
from saphira.dashboard.keystone import Keystone
from saphira.dashboard.parallel import Calls
from saphira.dashboard.private_keys import PrivateKeys
from saphira.dashboard.render import SECURITY_HEADERS, Templates
from saphira.dashboard.routes import PUBLIC, url_map
from saphira.dashboard.sessions import COOKIE, Session, SessionStore
from saphira.dashboard.uploads import Uploads

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

LOG = logging.getLogger(__name__)
LOGIN = "/auth/login"


@dataclass
class Ctx:
    """One request as a view sees it."""

    app: Dashboard
    request: Request
    session: Session | None
    args: dict[str, str]

    @property
    def live(self) -> Session:
        assert self.session is not None, "a public view asked for the session"
        return self.session

    def page(self, name: str, status: int = 200, **context: object) -> Response:
        return self.app.templates.page(name, status, ctx=self, **context)

    @property
    def conn(self) -> connection.Connection:
        """The session's openstacksdk connection, with its user's scoped token."""
        return self.app.connections.get(self.live.login)

    @property
    def csrf_token(self) -> str:
        return self.session.csrf if self.session else ""


View = Callable[[Ctx], Response]


class Dashboard:
    def __init__(self, conf: cfg.ConfigOpts, views: dict[str, View]) -> None:
        section = conf.dashboard
        identity = section.identity_url or local_url(conf, "identity")
        self.keystone = Keystone(identity, tls.verify(), section.api_timeout)
        self.connections = Connections(
            conf.region_name, tls.verify(), section.api_timeout, section.max_sessions
        )
        self.sessions = SessionStore(section.session_timeout, section.max_sessions)
        self.sessions.on_end = self._ended
        self.calls = Calls(section.page_workers)
        self.feeds = Feeds(section.feed_interval)
        self.templates = Templates()
        self.map: Map = url_map()
        self.views = views
        self.upload_cap: int = section.upload_size_cap
        self.uploads = Uploads()
        self.private_keys = PrivateKeys()

    def __call__(self, environ: WSGIEnvironment, start: StartResponse) -> Iterable[bytes]:
        request = Request(environ)
        with request:  # its uploaded files are closed (their temporary files gone) after
            return self.dispatch(request)(environ, start)

    def close(self) -> None:
        """The server stops: end every event stream, then the page calls' threads."""
        self.feeds.close()
        self.calls.close()
        self.uploads.close()

    def dispatch(self, request: Request) -> Response:
        try:
            endpoint, args = self.map.bind_to_environ(request.environ).match()
        except NotFound:
            return self.problem(request, Problem(404, "There is no such page."))
        except MethodNotAllowed:
            return self.problem(request, Problem(405, "That page does not take this method."))
        except HTTPException as redirect:  # a trailing-slash redirect
            return redirect.get_response(request.environ)
        session = self.sessions.get(request.cookies.get(COOKIE))
        readable = session is not None or endpoint in PUBLIC  # else refused unread below
        oversized = too_big(request, str(endpoint), self.upload_cap, readable)
        if oversized is not None:
            return self.problem(request, oversized)
        ctx = Ctx(self, request, session, dict(args))
        refused = self._refused(ctx, str(endpoint))
        if refused is not None:
            return refused
        return self._run(ctx, self.views[str(endpoint)])

    def _refused(self, ctx: Ctx, endpoint: str) -> Response | None:
        request = ctx.request
        if endpoint not in PUBLIC and ctx.session is None:
            if request.method == "GET":
                return redirect(f"{LOGIN}?next={request.full_path.rstrip('?')}")
            return self.forbidden(request)
        if request.method == "POST":
            expected = ctx.session.csrf if ctx.session else request.cookies.get(csrf.LOGIN_COOKIE)
            if not csrf.matches(expected, request.form.get(csrf.FIELD)):
                return self.forbidden(request)
        return None

    def _run(self, ctx: Ctx, view: View) -> Response:
        try:
            return view(ctx)
        except Exception as error:
            problem = explain(error)
            if problem is None:
                LOG.exception("dashboard: %s %s failed", ctx.request.method, ctx.request.path)
                problem = Problem(500, "Something went wrong in the dashboard; it was logged.")
            if problem.needs_login and ctx.session is not None:
                self.sessions.drop(ctx.session.id)
                return redirect(LOGIN)
            return self.problem(ctx.request, problem, ctx)

    def problem(self, request: Request, problem: Problem, ctx: Ctx | None = None) -> Response:
        ctx = ctx or Ctx(self, request, None, {})
        return self.templates.page("problem.html", problem.status, ctx=ctx, problem=problem)

    def forbidden(self, request: Request) -> Response:
        """The CSRF refusal: a plain page, no template, nothing of the session."""
        text = (
            "403 Forbidden: this form did not carry the dashboard's security token, "
            "or its session has ended. Go back, reload the page and try again.\n"
        )
        return Response(text, 403, headers=SECURITY_HEADERS, mimetype="text/plain")

    def _ended(self, session: Session) -> None:
        self.feeds.drop(f"{session.id}/")
        self.connections.forget(session.login)
        self.private_keys.drop(session.id)


def redirect(location: str) -> Response:
    """303: the browser GETs the next page (the Post/Redirect/Get pattern)."""
    return Response("", 303, headers={"Location": location, **SECURITY_HEADERS})
