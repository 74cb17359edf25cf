"""The token middleware against the identity app served on a real port."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
import requests

from saphira.api.auth import (
    CONTEXT_KEY,
    AuthTokenMiddleware,
    LocalValidator,
    RemoteValidator,
    ValidatedToken,
)
from saphira.api.wsgi import RequestIdMiddleware
from saphira.identity.bootstrap import ensure_project_user
from saphira.identity.tokens import TokenPayload, utcnow
from tests.functional.identity.conftest import Identity, start_identity
from tests.functional.identity.server import serve


def downstream(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
    """Echo the context the middleware built."""
    body = json.dumps(asdict(environ[CONTEXT_KEY])).encode()
    start_response("200 OK", [("Content-Type", "application/json")])
    return [body]


class Counting:
    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls = 0

    def validate(self, token: str, allow_expired: bool = False) -> ValidatedToken:
        self.calls += 1
        result: ValidatedToken = self.inner.validate(token, allow_expired)
        return result


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Identity, str]]:
    identity = start_identity(tmp_path)
    ensure_project_user(
        identity.backend,
        project_name="service",
        username="nova",
        password="nova-pw",
        role_name="service",
    )
    with serve(identity.client.application) as url:
        yield identity, url
    identity.backend.engine.dispose()


def _remote(url: str) -> RemoteValidator:
    return RemoteValidator(url, username="nova", password="nova-pw", project_name="service")


def _wrap(validator: Any, cache_time: int = 300) -> Any:
    middleware = AuthTokenMiddleware(
        downstream, validator, www_authenticate_uri="http://id.example:5000", cache_time=cache_time
    )
    return RequestIdMiddleware(middleware)


def test_valid_token_builds_context_and_is_cached(served: tuple[Identity, str]) -> None:
    identity, url = served
    validator = Counting(_remote(url))
    with serve(_wrap(validator)) as api:
        token = identity.demo_token()
        first = requests.get(api, headers={"X-Auth-Token": token}, timeout=10)
        second = requests.get(api, headers={"X-Auth-Token": token}, timeout=10)
    assert first.status_code == second.status_code == 200
    context = first.json()
    assert context["user_id"] == identity.demo.user_id
    assert context["project_id"] == identity.demo.project_id
    assert set(context["roles"]) == {"member", "reader"}
    assert context["request_id"] == first.headers["X-OpenStack-Request-ID"]
    assert second.json()["request_id"] != context["request_id"]
    assert validator.calls == 1


@pytest.mark.parametrize("token", [None, "garbage", "x\x01y"])
def test_bad_tokens_are_401_with_www_authenticate(
    served: tuple[Identity, str], token: str | None
) -> None:
    _identity, url = served
    with serve(_wrap(_remote(url))) as api:
        headers = {"X-Auth-Token": token} if token else {}
        response = requests.get(api, headers=headers, timeout=10)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == 'Keystone uri="http://id.example:5000"'
    assert response.json()["error"]["code"] == 401
    assert response.headers["X-OpenStack-Request-ID"].startswith("req-")


def test_revoked_and_expired_tokens_are_401(served: tuple[Identity, str]) -> None:
    identity, url = served
    token = identity.demo_token()
    expired = identity.backend.tokens.issue(
        TokenPayload(
            user_id=identity.demo.user_id,
            methods=("password",),
            issued_at=utcnow() - dt.timedelta(hours=2),
            expires_at=utcnow() - dt.timedelta(hours=1),
            project_id=identity.demo.project_id,
        )
    )
    with serve(_wrap(_remote(url), cache_time=0)) as api:
        assert requests.get(api, headers={"X-Auth-Token": token}, timeout=10).ok
        headers = {"X-Auth-Token": identity.admin_token(), "X-Subject-Token": token}
        assert requests.delete(f"{url}/v3/auth/tokens", headers=headers, timeout=10).ok
        revoked = requests.get(api, headers={"X-Auth-Token": token}, timeout=10)
        assert revoked.status_code == 401
        late = requests.get(api, headers={"X-Auth-Token": expired}, timeout=10)
        assert late.status_code == 401


def _expired(identity: Identity, ago: dt.timedelta) -> str:
    """A demo token that expired ``ago``."""
    return identity.backend.tokens.issue(
        TokenPayload(
            user_id=identity.demo.user_id,
            methods=("password",),
            issued_at=utcnow() - ago - dt.timedelta(hours=1),
            expires_at=utcnow() - ago,
            project_id=identity.demo.project_id,
        )
    )


@pytest.mark.parametrize("remote", [True, False])
def test_an_expired_token_is_accepted_only_with_a_services_token(
    served: tuple[Identity, str], remote: bool
) -> None:
    """keystonemiddleware's service_token_roles: a service finishing a user's
    work sends the user's (now expired) token with its own valid one."""
    identity, url = served
    validator = _remote(url) if remote else LocalValidator(identity.backend)
    nova = requests.post(f"{url}/v3/auth/tokens", timeout=10, json={"auth": {
        "identity": {"methods": ["password"], "password": {"user": {
            "name": "nova", "password": "nova-pw", "domain": {"name": "Default"}}}},
        "scope": {"project": {"name": "service", "domain": {"name": "Default"}}},
    }}).headers["X-Subject-Token"]  # fmt: skip
    late = _expired(identity, dt.timedelta(minutes=5))
    with serve(_wrap(validator)) as api:

        def status(token: str, service: str | None) -> int:
            headers = {"X-Auth-Token": token, **({"X-Service-Token": service} if service else {})}
            return requests.get(api, headers=headers, timeout=10).status_code

        vouched = requests.get(api, headers={"X-Auth-Token": late, "X-Service-Token": nova},
                               timeout=10)  # fmt: skip
        assert vouched.status_code == 200, vouched.text
        assert vouched.json()["user_id"] == identity.demo.user_id
        assert vouched.json()["roles"] and "service" not in vouched.json()["roles"]
        assert status(late, None) == 401
        assert status(late, identity.demo_token()) == 401  # a member cannot vouch
        assert status(late, "garbage") == 401
        assert status(_expired(identity, dt.timedelta(days=3)), nova) == 401  # past the window
        assert status(identity.admin_token(), nova) == 200
        soon = _expired(identity, dt.timedelta(seconds=-2))  # valid for two more seconds
        headers = {"X-Auth-Token": identity.admin_token(), "X-Subject-Token": soon}
        assert requests.delete(f"{url}/v3/auth/tokens", headers=headers, timeout=10).ok
        time.sleep(max(0.0, (identity.backend.tokens.decode(soon).expires_at
                             - utcnow()).total_seconds()) + 0.1)  # fmt: skip
        assert status(soon, nova) == 401  # revoked stays revoked after it expired


def test_identity_unreachable_is_503(served: tuple[Identity, str]) -> None:
    identity, _url = served
    with serve(downstream) as dead:
        pass  # a port that was just free and is now closed
    with serve(_wrap(_remote(dead))) as api:
        response = requests.get(api, headers={"X-Auth-Token": identity.demo_token()}, timeout=30)
    assert response.status_code == 503
    assert response.json()["error"]["code"] == 503


def test_local_validator_in_process(served: tuple[Identity, str]) -> None:
    identity, _url = served
    with serve(_wrap(LocalValidator(identity.backend))) as api:
        ok = requests.get(api, headers={"X-Auth-Token": identity.admin_token()}, timeout=10)
        bad = requests.get(api, headers={"X-Auth-Token": "nope"}, timeout=10)
    assert ok.status_code == 200 and "admin" in ok.json()["roles"]
    assert bad.status_code == 401


def test_cache_never_outlives_the_token() -> None:
    from saphira.api.auth.middleware import _Cache
    from saphira.context import RequestContext

    cache = _Cache(300)
    past = ValidatedToken(RequestContext(), dt.datetime(2000, 1, 1))
    cache.put("t1", past)
    assert cache.get("t1") is None
    future = ValidatedToken(RequestContext(), utcnow() + dt.timedelta(hours=1))
    cache.put("t2", future)
    assert cache.get("t2") is future
