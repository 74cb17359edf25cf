"""The dashboard app in process: login, cookies, CSRF, logout, switch, plain errors."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from openstack import exceptions as sdk
from werkzeug.wrappers import Response

from saphira import conf as saphira_conf
from saphira.dashboard.app import Ctx, Dashboard
from saphira.dashboard.views import VIEWS
from tests.unit.dashboard.fakes import FakeKeystone
from tests.wsgi import Client, JsonResponse


def _missing(ctx: Ctx) -> Response:
    raise sdk.NotFoundException("No Server found for 1234")  # as openstacksdk raises it


def _broken(ctx: Ctx) -> Response:
    raise RuntimeError("secret internals")


@pytest.fixture
def app() -> Iterator[Dashboard]:
    views = {**VIEWS, "instances": _missing, "detail": _broken}
    made = Dashboard(saphira_conf.load([]), views)
    made.keystone = FakeKeystone()
    yield made
    made.close()


def _token(page: JsonResponse) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert found, page.text
    return found.group(1)


def _login(client: Client, user: str = "alice", password: str = "alice-pw") -> JsonResponse:
    form = client.get("/auth/login")
    data = {"csrf_token": _token(form), "username": user, "password": password}
    return client.post("/auth/login", data=data)


def test_a_page_without_a_session_sends_to_the_login_form(app: Dashboard) -> None:
    answer = Client(app).get("/project/instances/launch")
    assert answer.status_code == 303
    assert answer.headers["Location"] == "/auth/login?next=/project/instances/launch"


def test_login_sets_an_httponly_samesite_cookie_holding_only_the_session_id(
    app: Dashboard,
) -> None:
    answer = _login(Client(app))
    assert answer.status_code == 303 and answer.headers["Location"] == "/project/instances"
    cookie = next(c for c in answer.headers.getlist("Set-Cookie") if "saphira_session=" in c)
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie
    value = cookie.split(";")[0].split("=", 1)[1]
    session = app.sessions.get(value)
    assert session is not None and value == session.id
    assert "alice" not in value and str(session.login.scoped.auth_token) not in cookie


def test_over_tls_the_cookie_is_secure(app: Dashboard) -> None:
    client = Client(app)
    form = client.get("/auth/login", base_url="https://localhost")
    assert "Secure" in form.headers["Set-Cookie"]
    data = {"csrf_token": _token(form), "username": "alice", "password": "alice-pw"}
    answer = client.post("/auth/login", data=data, base_url="https://localhost")
    cookie = next(c for c in answer.headers.getlist("Set-Cookie") if "saphira_session=" in c)
    assert "Secure" in cookie and "HttpOnly" in cookie


def test_a_wrong_password_is_said_plainly_and_makes_no_session(app: Dashboard) -> None:
    answer = _login(Client(app), password="nope")
    assert answer.status_code == 401 and "Wrong user name or password." in answer.text
    assert len(app.sessions) == 0


@pytest.mark.parametrize("token", [None, "", "forged"])
def test_a_login_post_without_the_forms_token_is_refused(app: Dashboard, token: str | None) -> None:
    client = Client(app)
    client.get("/auth/login")
    data = {"username": "alice", "password": "alice-pw"}
    if token is not None:
        data["csrf_token"] = token
    answer = client.post("/auth/login", data=data)
    assert answer.status_code == 403 and answer.mimetype == "text/plain"
    assert len(app.sessions) == 0


@pytest.mark.parametrize("token", [None, "forged"])
def test_a_logged_in_post_without_the_sessions_token_is_refused(
    app: Dashboard, token: str | None
) -> None:
    client = Client(app)
    _login(client)
    data = {"project_id": "p2"} | ({"csrf_token": token} if token else {})
    answer = client.post("/auth/switch", data=data)
    assert answer.status_code == 403 and "security token" in answer.text
    session = next(iter(app.sessions._table.values()))
    assert session.login.project.id == "p1"  # nothing happened


def test_the_token_of_another_session_does_not_pass(app: Dashboard) -> None:
    alice, bob = Client(app), Client(app)
    _login(alice)
    _login(bob, "bob", "bob-pw")
    bobs = _token(bob.get("/auth/login"))  # the page of another browser
    assert (
        alice.post("/auth/switch", data={"project_id": "p2", "csrf_token": bobs}).status_code == 403
    )


def test_switching_project_rescopes_the_session(app: Dashboard) -> None:
    client = Client(app)
    _login(client)
    session = next(iter(app.sessions._table.values()))
    answer = client.post("/auth/switch", data={"project_id": "p2", "csrf_token": session.csrf})
    assert answer.status_code == 303 and session.login.project.id == "p2"
    refused = client.post("/auth/switch", data={"project_id": "p9", "csrf_token": session.csrf})
    assert refused.status_code == 404 and session.login.project.id == "p2"


def test_logout_revokes_both_tokens_and_ends_the_session(app: Dashboard) -> None:
    client = Client(app)
    _login(client)
    session = next(iter(app.sessions._table.values()))
    answer = client.post("/auth/logout", data={"csrf_token": session.csrf})
    assert answer.status_code == 303 and answer.headers["Location"] == "/auth/login"
    assert isinstance(app.keystone, FakeKeystone)
    assert app.keystone.revoked == ["alice-p1-token", "alice-unscoped"]
    assert app.sessions.get(session.id) is None
    assert client.get("/project/instances").status_code == 303  # to the login form again


def test_an_api_404_is_a_plain_page_and_a_bug_shows_no_trace(app: Dashboard) -> None:
    client = Client(app)
    _login(client)
    missing = client.get("/project/instances")
    assert missing.status_code == 404 and "Not found in this project." in missing.text
    assert "1234" not in missing.text
    broken = client.get("/project/instances/abc")
    assert broken.status_code == 500 and "secret internals" not in broken.text
    assert "Traceback" not in broken.text


def test_pages_forbid_framing_and_scripts_from_elsewhere(app: Dashboard) -> None:
    page = Client(app).get("/auth/login")
    assert page.headers["X-Frame-Options"] == "DENY"
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    assert "<script>" not in page.text  # no inline script


def test_static_files_are_ours_and_nothing_outside(app: Dashboard) -> None:
    client = Client(app)
    assert client.get("/static/dashboard.js").mimetype == "text/javascript"
    assert client.get("/static/../app.py").status_code == 404
    assert client.get("/static/nothing.js").status_code == 404


def test_after_login_only_a_local_next_is_followed(app: Dashboard) -> None:
    client = Client(app)
    form = client.get("/auth/login?next=//evil.example/x")
    data = {"csrf_token": _token(form), "username": "alice", "password": "alice-pw",
            "next": "//evil.example/x"}  # fmt: skip
    assert client.post("/auth/login", data=data).headers["Location"] == "/project/instances"
