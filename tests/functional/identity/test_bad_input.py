"""Bad input: a 4xx with Keystone's error body, never a 500, nothing written."""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

import pytest
import sqlalchemy as sa

from saphira.db.identity.models import Base
from saphira.identity.tokens import TokenPayload, utcnow
from tests.functional.identity.conftest import ADMIN_PASSWORD, Identity, password_auth

AUTH_MESSAGE = "The request you have made requires authentication."


def _row_counts(identity: Identity) -> dict[str, int]:
    with identity.backend.engine.connect() as conn:
        return {
            table.name: conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()
            for table in Base.metadata.sorted_tables
        }


def _assert_keystone_error(response: Any, code: int) -> None:
    assert response.status_code == code, response.get_data(as_text=True)
    error = response.json["error"]
    assert error["code"] == code
    assert error["title"] and error["message"]
    assert "Traceback" not in response.get_data(as_text=True)


@pytest.mark.parametrize(
    "body",
    [
        password_auth("admin", "wrong", "admin"),
        password_auth("nobody", "x", "admin"),
        password_auth("admin", ADMIN_PASSWORD, "no-such-project"),
        password_auth("admin", ADMIN_PASSWORD, None, {"domain": {"name": "nowhere"}}),
        {"auth": {"identity": {"methods": ["totp"]}}},
        {"auth": {"identity": {"methods": ["token"], "token": {"id": "garbage"}}}},
    ],
)
def test_authentication_failures_are_401(identity: Identity, body: dict[str, Any]) -> None:
    before = _row_counts(identity)
    response = identity.client.post("/v3/auth/tokens", json=body)
    _assert_keystone_error(response, 401)
    assert response.json["error"]["title"] == "Unauthorized"
    if body["auth"]["identity"]["methods"] == ["password"] and "scope" in body["auth"]:
        pw = body["auth"]["identity"]["password"]["user"]["password"]
        if pw == "wrong" or body["auth"]["identity"]["password"]["user"]["name"] == "nobody":
            assert response.json["error"]["message"] == AUTH_MESSAGE
    assert "X-Subject-Token" not in response.headers
    assert _row_counts(identity) == before


@pytest.mark.parametrize(
    "raw",
    [
        b"{not json",
        b"",
        b"[]",
        b'{"auth": "x"}',
        b'{"auth": {"identity": {"methods": "password"}}}',
        b'{"auth": {"identity": {"methods": ["password"], "password": {"user": {"name": 5}}}}}',
        b'{"auth": {"identity": {"methods": ["password"]}, "bogus": 1}}',
        b'{"auth": {"identity": {"methods": ["password"], "password": {"user": '
        b'{"name": "admin", "password": "x", "domain": {"name": "Default"}, "extra": 1}}}}}',
        b'{"auth": {"identity": {"methods": ["password"], "password": {"user": '
        b'{"name": "admin", "password": "x"}}}}}',
        b'{"auth": {"identity": {"methods": ["password"]}, "scope": '
        b'{"project": {"id": "x"}, "domain": {"id": "y"}}}}',
    ],
)
def test_malformed_auth_is_400(identity: Identity, raw: bytes) -> None:
    response = identity.client.post("/v3/auth/tokens", data=raw, content_type="application/json")
    _assert_keystone_error(response, 400)
    assert response.json["error"]["title"] == "Bad Request"


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v3/projects", {"project": {"name": 5}}),
        ("/v3/projects", {"project": {"description": "no name"}}),
        ("/v3/projects", {"project": {"name": "x", "enabled": "yes"}}),
        ("/v3/projects", {"project": {"name": "x" * 65}}),
        ("/v3/domains", {"domain": {"name": "x" * 65}}),
        ("/v3/projects", {"projects": {"name": "x"}}),
        ("/v3/users", {"user": {"name": "x", "password": 5}}),
        ("/v3/users", {"user": ["x"]}),
        ("/v3/roles", {"role": {}}),
        ("/v3/endpoints", {"endpoint": {"service_id": "s", "interface": "pub", "url": "u"}}),
    ],
)
def test_bad_resource_bodies_are_400(identity: Identity, path: str, body: Any) -> None:
    before = _row_counts(identity)
    response = identity.call("POST", path, identity.admin_token(), json=body)
    _assert_keystone_error(response, 400)
    assert _row_counts(identity) == before


def test_password_change_rejects_unknown_fields(identity: Identity) -> None:
    body = {"user": {"password": "x", "original_password": "demo-secret", "z": 1}}
    url = f"/v3/users/{identity.demo.user_id}/password"
    _assert_keystone_error(identity.call("POST", url, identity.demo_token(), json=body), 400)
    identity.demo_token()  # the password did not change


def test_deeply_nested_json_is_400(identity: Identity) -> None:
    depth = identity.conf.identity.max_request_body_size // 2 - 10
    raw = b"[" * depth + b"]" * depth
    response = identity.client.post("/v3/auth/tokens", data=raw, content_type="application/json")
    _assert_keystone_error(response, 400)


def test_huge_body_is_413(identity: Identity) -> None:
    size = identity.conf.identity.max_request_body_size
    body = {"project": {"name": "big", "description": "x" * size}}
    before = _row_counts(identity)
    response = identity.call("POST", "/v3/projects", identity.admin_token(), json=body)
    _assert_keystone_error(response, 413)
    chunked = identity.client.post(
        "/v3/auth/tokens",
        input_stream=io.BytesIO(b" " * (size + 10)),
        headers={"Transfer-Encoding": "chunked", "Content-Type": "application/json"},
        environ_overrides={"wsgi.input_terminated": True},  # as cheroot sets for chunked
    )
    _assert_keystone_error(chunked, 413)
    assert _row_counts(identity) == before


def test_duplicate_user_is_409_and_rolls_back(identity: Identity) -> None:
    before = _row_counts(identity)
    body = {"user": {"name": "demo", "password": "x"}}
    response = identity.call("POST", "/v3/users", identity.admin_token(), json=body)
    _assert_keystone_error(response, 409)
    assert _row_counts(identity) == before


def test_wrong_method_and_unknown_path(identity: Identity) -> None:
    response = identity.call("PUT", "/v3/projects", identity.admin_token())
    _assert_keystone_error(response, 405)
    assert "POST" in response.headers["Allow"]
    _assert_keystone_error(identity.get("/v3/nothing", identity.admin_token()), 404)


def test_missing_and_garbage_tokens_are_401(identity: Identity) -> None:
    _assert_keystone_error(identity.client.get("/v3/projects"), 401)
    _assert_keystone_error(identity.get("/v3/projects", "garbage"), 401)


def test_expired_token(identity: Identity) -> None:
    payload = TokenPayload(
        user_id=identity.admin.user_id,
        methods=("password",),
        issued_at=utcnow() - dt.timedelta(hours=2),
        expires_at=utcnow() - dt.timedelta(hours=1),
        project_id=identity.admin.project_id,
    )
    expired = identity.backend.tokens.issue(payload)
    _assert_keystone_error(identity.get("/v3/projects", expired), 401)
    headers = {"X-Auth-Token": identity.admin_token(), "X-Subject-Token": expired}
    _assert_keystone_error(identity.client.get("/v3/auth/tokens", headers=headers), 404)


def test_disabled_user_and_project_invalidate_tokens(identity: Identity) -> None:
    admin = identity.admin_token()
    demo = identity.demo_token()
    patch = {"project": {"enabled": False}}
    url = f"/v3/projects/{identity.demo.project_id}"
    assert identity.call("PATCH", url, admin, json=patch).status_code == 200
    _assert_keystone_error(identity.get("/v3/auth/catalog", demo), 401)
    assert (
        identity.call("PATCH", url, admin, json={"project": {"enabled": True}}).status_code == 200
    )
    assert identity.get("/v3/auth/catalog", demo).status_code == 200
    user = f"/v3/users/{identity.demo.user_id}"
    assert identity.call("PATCH", user, admin, json={"user": {"enabled": False}}).status_code == 200
    _assert_keystone_error(identity.get("/v3/auth/catalog", demo), 401)
