"""What the guest gets back for each answer of the metadata API (Neutron's mapping)."""

from __future__ import annotations

import pytest

from saphira.network.metadata.upstream import RETRY, MetadataApi, relayed


@pytest.mark.parametrize("status", [200, 400, 403, 404, 409])
def test_these_answers_reach_the_guest_as_they_are(status: int) -> None:
    answer = relayed(status, b"body", "application/json", "vm-1")
    assert (answer.status, answer.body, answer.content_type) == (
        status,
        b"body",
        "application/json",
    )


def test_a_refused_signature_is_a_403_to_the_guest() -> None:
    assert relayed(401, b"no", "text/plain", "vm-1").status == 403


@pytest.mark.parametrize("status", [500, 502, 503, 301, 302])
def test_anything_else_is_a_500_asking_to_retry(status: int) -> None:
    answer = relayed(status, b"secret detail", "text/plain", "vm-1")
    assert (answer.status, answer.body) == (500, RETRY)


def test_an_unreachable_api_is_a_500_asking_to_retry() -> None:
    api = MetadataApi("127.0.0.1", 9, "s", timeout=2)  # the discard port: nothing listens
    answer = api.forward("GET", "/", b"", "vm-1", "p1", "10.0.0.5")
    assert (answer.status, answer.body) == (500, RETRY)
