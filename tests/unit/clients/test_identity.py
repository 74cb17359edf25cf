"""The service user's token and token validation, against the fake wire."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest

from saphira import exception
from saphira.clients.fake import FakeTransport
from saphira.clients.identity import Credentials, PasswordToken, TokenValidator
from saphira.clients.transport import Reply, Request

TOKENS = "/identity/v3/auth/tokens"
NOVA = Credentials("http://id.test/identity", "nova", "pw", "service")


def _issuer(names: list[str]) -> Callable[[Request], Reply]:
    """A Keystone that issues tokens named in order, each valid for an hour."""
    expires = (dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)).isoformat()

    def issue(request: Request) -> Reply:
        body = f'{{"token": {{"expires_at": "{expires}"}}}}'.encode()
        return Reply(201, {"x-subject-token": names.pop(0)}, body)

    return issue


def _wire(*names: str) -> FakeTransport:
    wire = FakeTransport()
    wire.handle("POST", TOKENS, _issuer(list(names)))
    return wire


def test_a_token_is_fetched_once_and_renewed_on_demand() -> None:
    wire = _wire("t1", "t2")
    token = PasswordToken(NOVA, transport=wire)
    assert token() == token() == "t1"
    assert token.renew() == "t2" and token() == "t2"
    assert len(wire.sent) == 2
    sent = wire.sent[0]
    assert sent.params == [("nocatalog", "1")]
    user = sent.json["auth"]["identity"]["password"]["user"]
    assert user == {"name": "nova", "password": "pw", "domain": {"name": "Default"}}
    assert sent.json["auth"]["scope"]["project"]["name"] == "service"


def test_a_token_close_to_its_expiry_is_replaced() -> None:
    wire = FakeTransport()
    soon = (dt.datetime.now(dt.UTC) + dt.timedelta(minutes=2)).isoformat()
    wire.reply(
        "POST", TOKENS, 201, {"token": {"expires_at": soon}}, headers={"X-Subject-Token": "a"}
    )
    token = PasswordToken(NOVA, transport=wire)
    token(), token()
    assert len(wire.sent) == 2


def test_a_refused_service_user_and_missing_credentials() -> None:
    wire = FakeTransport()
    wire.reply("POST", TOKENS, 401, {"error": {}})
    with pytest.raises(exception.Unauthorized, match="service user nova: 401"):
        PasswordToken(NOVA, transport=wire)()
    with pytest.raises(exception.ConfigError):
        PasswordToken(Credentials("", "", "", ""), transport=wire)()


@pytest.mark.parametrize("status", [429, 503])
def test_a_busy_identity_is_unavailable_not_a_refused_service_user(status: int) -> None:
    """Found by the fuzzer: a flood of bad logins from the services' own address got the
    compute service's token request a 429, which became a 401 and then a bare 500."""
    wire = FakeTransport()
    wire.reply("POST", TOKENS, status, {"error": {}})
    with pytest.raises(exception.ServiceUnavailable, match=f"nova for now \\(HTTP {status}\\)"):
        PasswordToken(NOVA, transport=wire)()


def test_validation_sends_both_tokens_and_returns_the_body() -> None:
    wire = _wire("svc")
    wire.reply("GET", TOKENS, 200, {"token": {"user": {"id": "u1"}}})
    body = TokenValidator(NOVA, transport=wire).validate("users-token", allow_expired=True)
    assert body == {"user": {"id": "u1"}}
    check = wire.sent[-1]
    assert (
        check.headers["X-Auth-Token"] == "svc" and check.headers["X-Subject-Token"] == "users-token"
    )
    assert check.params == [("nocatalog", "1"), ("allow_expired", "1")]


def test_an_unknown_token_is_401_and_a_stale_own_token_is_renewed_once() -> None:
    wire = _wire("old", "new", "newer")
    wire.reply("GET", TOKENS, 404, {"error": {}})
    with pytest.raises(exception.Unauthorized):
        TokenValidator(NOVA, transport=wire).validate("bad")
    wire = _wire("old", "new")
    wire.reply("GET", TOKENS, 401, {"error": {}})
    with pytest.raises(exception.ServiceUnavailable, match=r"Token validation failed \(HTTP 401\)"):
        TokenValidator(NOVA, transport=wire).validate("t")
    checks = [r.headers["X-Auth-Token"] for r in wire.sent if r.method == "GET"]
    assert checks == ["old", "new"]


def test_a_service_user_keystone_refuses_makes_validation_unavailable() -> None:
    wire = FakeTransport()
    wire.reply("POST", TOKENS, 401, {"error": {}})
    with pytest.raises(exception.ServiceUnavailable, match=r"cannot authenticate \(HTTP 401\)"):
        TokenValidator(NOVA, transport=wire).validate("t")
