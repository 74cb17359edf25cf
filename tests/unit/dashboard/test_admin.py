"""The Admin group's gate and navigation: a member is refused every admin route with
a 403 page before any API call, whatever the API would say; an admin passes the gate
and sees the Admin navigation, a member does not."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from keystoneauth1 import access
from keystoneauth1 import exceptions as ks
from werkzeug.wrappers import Request

from saphira import conf as saphira_conf
from saphira.dashboard.app import Ctx, Dashboard
from saphira.dashboard.errors import Problem
from saphira.dashboard.keystone import Login, Project
from saphira.dashboard.routes import admin_routes
from saphira.dashboard.views import VIEWS
from saphira.dashboard.views.admin_common import NOT_ADMIN
from tests.unit.dashboard.fakes import FakeKeystone
from tests.unit.dashboard.test_routes import ACCESS, _path
from tests.wsgi import Client


def login_with(user: str, roles: tuple[str, ...]) -> Login:
    expires = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
    body: dict[str, object] = {
        "token": {
            "expires_at": expires,
            "user": {"id": f"{user}-id", "name": user, "domain": {"id": "default"}},
            "project": {"id": "p1", "name": "p1", "domain": {"id": "default"}},
            "roles": [{"id": f"{r}-id", "name": r} for r in roles],
            "catalog": [],
        }
    }
    scoped = access.create(body=body, auth_token=f"{user}-token")
    return Login(
        f"{user}-id", user, f"{user}-unscoped", scoped, (Project("p1", "p1"),), "http://id"
    )


class RoleKeystone(FakeKeystone):
    """alice is a member of p1, root its admin."""

    def login(self, user: str, password: str, domain: str = "Default") -> Login:
        roles = ("admin", "member") if user == "root" else ("member",)
        return login_with(user, roles)


class NoCalls:
    """The app's connections, counted: each use is a cloud that does not answer (503)."""

    def __init__(self) -> None:
        self.asked = 0

    def get(self, login: Login) -> object:
        self.asked += 1
        raise ks.ConnectionError("no cloud here")

    def forget(self, login: Login) -> None:
        pass


@pytest.fixture
def app() -> Iterator[Dashboard]:
    made = Dashboard(saphira_conf.load([]), VIEWS)
    made.keystone = RoleKeystone()
    made.connections = NoCalls()  # type: ignore[assignment]
    yield made
    made.close()


def _logged_in(app: Dashboard, user: str) -> tuple[Client, str]:
    client = Client(app)
    form = client.get("/auth/login")
    token = re.search(r'name="csrf_token" value="([^"]+)"', form.text)
    assert token is not None
    sent = {"csrf_token": token[1], "username": user, "password": "whatever"}
    assert client.post("/auth/login", data=sent).status_code == 303
    page = client.get("/admin/flavors/create")  # no API call; its forms carry the token
    mine = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert mine is not None and mine[1] != token[1]
    return client, mine[1]


ADMIN_KEYS = sorted((m, r.rule) for r in admin_routes() for m in (r.methods or set()) - {"HEAD"})


def test_every_admin_route_is_under_admin_and_in_the_access_table() -> None:
    assert ADMIN_KEYS and all(rule.startswith("/admin/") for _, rule in ADMIN_KEYS)
    assert set(ADMIN_KEYS) <= set(ACCESS)


@pytest.mark.parametrize(("method", "rule"), ADMIN_KEYS)
def test_a_member_is_refused_every_admin_route_before_any_call(
    app: Dashboard, method: str, rule: str
) -> None:
    client, token = _logged_in(app, "alice")
    data = {"csrf_token": token, "action": "enable", "change": "add", "project_id": "p2",
            "name": "x", "confirmed": "yes"}  # fmt: skip
    answer = client.open(_path(rule), method=method, data=data)
    assert answer.status_code == 403, answer.text
    assert answer.mimetype == "text/html" and NOT_ADMIN in answer.text
    assert 'aria-label="Admin"' not in answer.text  # no Admin navigation for a member
    assert app.connections.asked == 0  # type: ignore[attr-defined]


@pytest.mark.parametrize(("method", "rule"), ADMIN_KEYS)
def test_an_admin_passes_the_gate(app: Dashboard, method: str, rule: str) -> None:
    client, token = _logged_in(app, "root")
    data = {"csrf_token": token, "action": "enable", "project_id": "p2", "user_id": "u",
            "change": "grant" if rule.endswith("/roles") else "add", "role_id": "r",
            "name": "x", "vcpus": "1", "ram": "64", "disk": "1", "ephemeral": "0",
            "swap": "0", "confirmed": "yes", "password": "long-enough",
            "confirm": "long-enough"}  # fmt: skip
    answer = client.open(_path(rule), method=method, data=data)
    assert answer.status_code != 403 and NOT_ADMIN not in answer.text, answer.text
    if rule != "/admin/flavors/create" or method == "POST":  # the blank form asks nothing
        assert answer.status_code == 503, answer.text  # it went on to the (absent) cloud
        assert app.connections.asked == 1  # type: ignore[attr-defined]


def test_the_admin_navigation_is_shown_to_an_admin_only(app: Dashboard) -> None:
    def page(user: str, roles: tuple[str, ...]) -> str:
        session = app.sessions.create(login_with(user, roles))
        ctx = Ctx(app, Request.from_values("/"), session, {})
        return app.templates.text("problem.html", ctx=ctx, problem=Problem(404, "gone"))

    shown = page("root", ("admin",))
    assert 'aria-label="Admin"' in shown
    for href in ("flavors", "hypervisors", "services", "agents", "projects", "users"):
        assert f'href="/admin/{href}"' in shown
    assert 'aria-label="Admin"' not in page("alice", ("member",))
    assert 'aria-label="Admin"' not in page("bob", ())
    assert login_with("root", ("admin",)).is_admin
    assert not login_with("alice", ("member", "reader")).is_admin
