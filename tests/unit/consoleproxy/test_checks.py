"""The console proxy's request checks: token, Origin, path, connections per token."""

from __future__ import annotations

import pytest

from saphira.consoleproxy import checks
from saphira.objects import ConsoleType

VNC = ConsoleType.NOVNC


def test_the_token_comes_from_the_query_or_the_cookie() -> None:
    assert checks.token_of("/?token=abc", None) == "abc"
    assert checks.token_of("/websockify?token=abc&x=1", "token=other") == "abc"
    assert checks.token_of("/websockify", "a=1; token=xyz") == "xyz"
    assert checks.token_of("/websockify", None) is None
    assert checks.token_of("/websockify", "path=%3Ftoken%3Dabc") is None
    assert checks.token_of("/", '"bad cookie') is None


@pytest.mark.parametrize(
    ("origin", "allowed", "ok"),
    [(None, [], True),  # not a browser
     ("http://proxy.example:6080", [], True), ("https://proxy.example", [], True),
     ("http://evil.example", [], False), ("http://evil.example", ["evil.example"], True),
     ("http://evil.example:8000", ["evil.example:8000"], True),
     ("http://evil.example:9000", ["evil.example:8000"], False),
     ("ftp://proxy.example", [], False), ("null", [], False), ("http://", [], False)],
)  # fmt: skip
def test_the_origin_must_be_the_proxys_host_or_allowed(
    origin: str | None, allowed: list[str], ok: bool
) -> None:
    assert checks.origin_allowed(origin, "proxy.example:6080", allowed, VNC) is ok


def test_paths_starting_with_two_slashes_are_refused() -> None:
    assert checks.bad_path("//evil.example/x")
    assert not checks.bad_path("/vnc_lite.html")


def test_connections_per_token_are_limited_and_released() -> None:
    counter = checks.ConnectionCounter(2)
    assert counter.acquire("t") and counter.acquire("t")
    assert not counter.acquire("t")
    assert counter.acquire("other")
    counter.release("t")
    assert counter.acquire("t")
