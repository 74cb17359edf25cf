"""Password logins are throttled per user (Keystone's lockout) and per source,
and a refused attempt computes no password hash."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import sqlalchemy as sa

from saphira.db.identity.models import User
from saphira.identity.bootstrap import ensure_project_user
from saphira.identity.passwords import Hasher
from saphira.identity.user_options import IGNORE_LOCKOUT
from tests.functional.identity.conftest import (
    ADMIN_PASSWORD,
    DEMO_PASSWORD,
    Identity,
    password_auth,
    start_identity,
)


class CountingHasher(Hasher):
    def __init__(self) -> None:
        self.calls = 0

    def hash(self, password: str, cost: int) -> str:
        self.calls += 1
        return super().hash(password, cost)

    def verify(self, password: str, stored: str | None) -> bool:
        self.calls += 1
        return super().verify(password, stored)


@pytest.fixture
def counted(identity: Identity) -> CountingHasher:
    hasher = CountingHasher()
    identity.backend.hasher = hasher
    return hasher


def _login(identity: Identity, user: str, password: str, source: str) -> tuple[int, str]:
    response = identity.client.post(
        "/v3/auth/tokens?nocatalog",
        json=password_auth(user, password, None),
        environ_overrides={"REMOTE_ADDR": source},
    )
    body = response.json or {}
    return response.status_code, str(body.get("error", {}).get("message", ""))


def test_the_eleventh_wrong_password_is_refused_without_hashing(
    identity: Identity, counted: CountingHasher
) -> None:
    for n in range(10):
        assert _login(identity, "demo", "wrong", f"10.0.0.{n}")[0] == 401
    assert counted.calls == 10
    # From an eleventh address, so only the user's lock stands in the way.
    status, message = _login(identity, "demo", "wrong", "10.0.1.1")
    assert (status, message) == (401, f"The account is locked for user: {identity.demo.user_id}.")
    assert counted.calls == 10  # refused before any hash
    status, message = _login(identity, "demo", DEMO_PASSWORD, "10.0.1.2")
    assert status == 401 and "locked" in message  # even with the right password
    assert counted.calls == 10
    assert _login(identity, "admin", ADMIN_PASSWORD, "10.0.1.3")[0] == 201  # others log in


def test_the_lock_runs_out_and_a_success_resets_the_count(identity: Identity) -> None:
    for n in range(10):
        _login(identity, "demo", "wrong", f"10.0.0.{n}")
    with identity.backend.session() as session:
        past = dt.datetime.now(dt.UTC).replace(tzinfo=None) - dt.timedelta(seconds=61)
        session.execute(sa.update(User).where(User.name == "demo").values(failed_auth_at=past))
    assert _login(identity, "demo", DEMO_PASSWORD, "10.0.2.1")[0] == 201
    for n in range(9):  # the count starts again from zero
        assert _login(identity, "demo", "wrong", f"10.0.3.{n}")[0] == 401
    assert _login(identity, "demo", DEMO_PASSWORD, "10.0.2.1")[0] == 201


def test_enabling_the_user_unlocks_it(identity: Identity) -> None:
    for n in range(10):
        _login(identity, "demo", "wrong", f"10.0.0.{n}")
    url = f"/v3/users/{identity.demo.user_id}"
    patch = identity.call("PATCH", url, identity.admin_token(), json={"user": {"enabled": True}})
    assert patch.status_code == 200
    assert _login(identity, "demo", DEMO_PASSWORD, "10.0.2.1")[0] == 201


def test_one_source_guessing_many_users_is_refused_without_hashing(
    identity: Identity, counted: CountingHasher
) -> None:
    for n in range(10):  # users that do not exist cost a hash as well
        assert _login(identity, f"nobody{n}", "guess", "192.0.2.7")[0] == 401
    assert counted.calls == 10
    response = identity.client.post(
        "/v3/auth/tokens",
        json=password_auth("demo", "guess", None),
        environ_overrides={"REMOTE_ADDR": "192.0.2.7"},
    )
    assert response.status_code == 429
    assert response.json["error"]["code"] == 429
    assert 1 <= int(response.headers["Retry-After"]) <= 60
    assert counted.calls == 10
    assert _login(identity, "demo", DEMO_PASSWORD, "192.0.2.8")[0] == 201  # other sources pass


def test_change_password_counts_towards_the_lock(identity: Identity) -> None:
    token = identity.demo_token()
    url = f"/v3/users/{identity.demo.user_id}/password"
    body = {"user": {"password": "new", "original_password": "wrong"}}
    for n in range(10):
        response = identity.call(
            "POST", url, token, json=body, environ_overrides={"REMOTE_ADDR": f"10.0.4.{n}"}
        )
        assert response.status_code == 401
    message = _login(identity, "demo", DEMO_PASSWORD, "10.0.2.1")[1]
    assert message.startswith("The account is locked")


def test_successful_logins_never_trip_it(identity: Identity) -> None:
    for _ in range(30):
        assert _login(identity, "admin", ADMIN_PASSWORD, "127.0.0.1")[0] == 201


def test_the_limits_follow_the_options(tmp_path: Path) -> None:
    service = start_identity(
        tmp_path,
        {"security_compliance": {"lockout_failure_attempts": 0}},
        login_failures_per_source=0,
    )
    try:
        for _ in range(12):
            assert _login(service, "demo", "wrong", "10.0.0.1")[0] == 401
        assert _login(service, "demo", DEMO_PASSWORD, "10.0.0.1")[0] == 201
    finally:
        service.backend.engine.dispose()


def test_a_user_with_ignore_lockout_failure_attempts_is_never_locked(identity: Identity) -> None:
    url = f"/v3/users/{identity.demo.user_id}"
    token = identity.admin_token()
    options = {"user": {"options": {"ignore_lockout_failure_attempts": True}}}
    patched = identity.call("PATCH", url, token, json=options)
    assert patched.status_code == 200
    assert patched.json["user"]["options"] == {"ignore_lockout_failure_attempts": True}
    for n in range(12):
        assert _login(identity, "demo", "wrong", f"10.0.5.{n}")[0] == 401
    assert _login(identity, "demo", DEMO_PASSWORD, "10.0.5.99")[0] == 201
    removed = identity.call("PATCH", url, token, json={"user": {"options": {
        "ignore_lockout_failure_attempts": None}}})  # fmt: skip
    assert removed.json["user"]["options"] == {}
    unknown = identity.call("PATCH", url, token, json={"user": {"options": {"bogus": True}}})
    assert unknown.status_code == 400


def test_service_users_made_by_the_seed_ignore_the_lockout(identity: Identity) -> None:
    made = ensure_project_user(
        identity.backend,
        project_name="service",
        username="nova",
        password="nova-secret",
        role_name="admin",
        options={IGNORE_LOCKOUT: True},
    )
    body = identity.get(f"/v3/users/{made.user_id}", identity.admin_token()).json
    assert body["user"]["options"] == {IGNORE_LOCKOUT: True}
    for n in range(12):
        assert _login(identity, "nova", "wrong", f"10.0.6.{n}")[0] == 401
    assert _login(identity, "nova", "nova-secret", "10.0.6.99")[0] == 201
