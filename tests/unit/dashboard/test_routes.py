"""Every dashboard route has a line in ACCESS, and answers a caller as its line says.

The policy matrix (tests/functional/policy) holds the token APIs to their
rules; the dashboard's callers carry a session cookie instead of a token, so
its routes have this table of their own, kept complete the same way: a route
without a line, or a line without a route, fails naming it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from saphira import conf as saphira_conf
from saphira.dashboard.app import Dashboard
from saphira.dashboard.routes import routes
from saphira.dashboard.views import VIEWS
from tests.unit.dashboard.fakes import FakeKeystone
from tests.wsgi import Client

PUBLIC = "public"  # no session needed
SESSION = "session"  # a GET: without a session, sent to the login form
CSRF = "session + CSRF"  # a POST: without the session's token, 403

_I = "/project/instances"
_N, _G = "/project/networks", "/project/security_groups"
_SUB, _RULE = f"{_N}/<network_id>/subnets", f"{_G}/<group_id>/rules"
_IM, _KP = "/project/images", "/project/key_pairs"
ACCESS: dict[tuple[str, str], str] = {
    ("GET", "/"): SESSION,
    ("GET", "/auth/login"): PUBLIC,
    ("POST", "/auth/login"): PUBLIC,  # checked against the form's own cookie token
    ("POST", "/auth/logout"): CSRF,
    ("POST", "/auth/switch"): CSRF,
    ("GET", _I): SESSION,
    ("GET", f"{_I}/events"): SESSION,
    ("GET", f"{_I}/launch"): SESSION,
    ("POST", f"{_I}/launch"): CSRF,
    ("GET", f"{_I}/<server_id>"): SESSION,
    ("GET", f"{_I}/<server_id>/confirm/<name>"): SESSION,
    ("POST", f"{_I}/<server_id>/action"): CSRF,
    ("GET", "/static/<path:name>"): PUBLIC,
    ("GET", f"{_I}/<server_id>/verify"): SESSION,  # issue 15: saphira verify's walk
    # Networks and Security groups
    **{
        ("GET", r): SESSION
        for r in (
            _N,
            f"{_N}/create",
            f"{_N}/<network_id>",
            f"{_N}/<network_id>/delete",
            f"{_SUB}/add",
            f"{_SUB}/<subnet_id>/delete",
            _G,
            f"{_G}/<group_id>",
            f"{_G}/<group_id>/delete",
            f"{_RULE}/add",
            f"{_RULE}/<rule_id>/delete",
        )
    },
    **{
        ("POST", r): CSRF
        for r in (
            f"{_N}/create",
            f"{_N}/<network_id>/delete",
            f"{_SUB}/add",
            f"{_SUB}/<subnet_id>/delete",
            _G,
            f"{_G}/<group_id>/delete",
            f"{_RULE}/add",
            f"{_RULE}/<rule_id>/delete",
        )
    },
    # the Admin group: each also refuses a session without the admin role (test_admin.py)
    ("GET", "/admin/flavors"): SESSION,
    ("GET", "/admin/flavors/create"): SESSION,
    ("POST", "/admin/flavors/create"): CSRF,
    ("GET", "/admin/flavors/<flavor_id>/delete"): SESSION,
    ("POST", "/admin/flavors/<flavor_id>/delete"): CSRF,
    ("GET", "/admin/flavors/<flavor_id>/access"): SESSION,
    ("POST", "/admin/flavors/<flavor_id>/access"): CSRF,
    ("GET", "/admin/hypervisors"): SESSION,
    ("GET", "/admin/services"): SESSION,
    ("POST", "/admin/services/<service_id>"): CSRF,
    ("GET", "/admin/agents"): SESSION,
    ("GET", "/admin/agents/<agent_id>"): SESSION,
    ("GET", "/admin/projects"): SESSION,
    ("POST", "/admin/projects"): CSRF,
    ("GET", "/admin/projects/<project_id>"): SESSION,
    ("POST", "/admin/projects/<project_id>/roles"): CSRF,
    ("GET", "/admin/users"): SESSION,
    ("POST", "/admin/users"): CSRF,
    # Images, Key pairs and Overview
    ("GET", "/project/overview"): SESSION,
    ("GET", _IM): SESSION,
    ("GET", f"{_IM}/create"): SESSION,
    ("POST", f"{_IM}/create"): CSRF,
    ("GET", f"{_IM}/<image_id>"): SESSION,
    ("GET", f"{_IM}/<image_id>/progress"): SESSION,
    ("GET", f"{_IM}/<image_id>/delete"): SESSION,
    ("POST", f"{_IM}/<image_id>/delete"): CSRF,
    ("GET", _KP): SESSION,
    ("GET", f"{_KP}/create"): SESSION,
    ("POST", f"{_KP}/create"): CSRF,
    ("GET", f"{_KP}/import"): SESSION,
    ("POST", f"{_KP}/import"): CSRF,
    ("GET", f"{_KP}/<name>/created"): SESSION,
    ("POST", f"{_KP}/<name>/download"): CSRF,
    ("GET", f"{_KP}/<name>/delete"): SESSION,
    ("POST", f"{_KP}/<name>/delete"): CSRF,
    # Instance details: live stream, resize and snapshot forms.
    ("GET", f"{_I}/<server_id>/events"): SESSION,
    ("GET", f"{_I}/<server_id>/resize"): SESSION,
    ("POST", f"{_I}/<server_id>/resize"): CSRF,
    ("GET", f"{_I}/<server_id>/snapshot"): SESSION,
    ("POST", f"{_I}/<server_id>/snapshot"): CSRF,
}


def _keys() -> list[tuple[str, str]]:
    return [(m, r.rule) for r in routes() for m in sorted((r.methods or set()) - {"HEAD"})]


def _path(rule: str) -> str:
    return re.sub(r"<(?:[^:>]+:)?([^>]+)>", lambda m: {"name": "delete"}.get(m[1], "x1"), rule)


@pytest.fixture
def app() -> Iterator[Dashboard]:
    made = Dashboard(saphira_conf.load([]), VIEWS)
    made.keystone = FakeKeystone()
    yield made
    made.close()


def test_every_route_has_a_line_and_every_line_a_route() -> None:
    keys = _keys()
    missing = [
        f"add ({m!r}, {r!r}): <ACCESS> to {__name__}" for m, r in keys if (m, r) not in ACCESS
    ]
    stale = [f"{m} {r}: no such route" for m, r in ACCESS if (m, r) not in keys]
    assert not missing + stale, "\n".join(missing + stale)
    assert set(VIEWS) == {r.endpoint for r in routes()}


@pytest.mark.parametrize(("method", "rule"), sorted(k for k, v in ACCESS.items() if v != PUBLIC))
def test_without_a_session_nothing_but_the_login_form(
    app: Dashboard, method: str, rule: str
) -> None:
    answer = Client(app).open(_path(rule), method=method, data={"csrf_token": "guess"})
    if method == "GET":
        assert answer.status_code == 303 and answer.headers["Location"].startswith("/auth/login")
    else:
        assert answer.status_code == 403 and answer.mimetype == "text/plain"


@pytest.mark.parametrize(("method", "rule"), sorted(k for k, v in ACCESS.items() if v == CSRF))
def test_a_session_without_its_token_posts_nothing(app: Dashboard, method: str, rule: str) -> None:
    client = Client(app)
    form = client.get("/auth/login")
    token = re.search(r'name="csrf_token" value="([^"]+)"', form.text)
    assert token is not None
    data = {"csrf_token": token[1], "username": "alice", "password": "alice-pw"}
    assert client.post("/auth/login", data=data).status_code == 303
    for sent in ({}, {"csrf_token": "guess"}, {"csrf_token": token[1]}):  # the login form's
        answer = client.open(_path(rule), method=method, data=sent)
        assert answer.status_code == 403, (sent, answer.text)
    assert len(app.sessions) == 1  # still logged in: a refused post changes nothing
