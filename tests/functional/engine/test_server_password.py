"""/servers/{id}/os-server-password: what the guest posted to the metadata service,
shown to the server's project and cleared by it, as Nova does."""

from __future__ import annotations

import pytest

from saphira.computesvc.guest_metadata import set_password
from tests.functional.engine.conftest import Plane
from tests.functional.engine.networks import compute_state

pytestmark = pytest.mark.functional


def test_the_posted_password_is_shown_and_cleared(plane: Plane) -> None:
    plane.add_host("h1")
    server = plane.api.boot("pw")
    path = f"/servers/{server}/os-server-password"
    assert plane.api.ok("GET", path) == {"password": ""}
    set_password(compute_state(plane).directory, server, "posted-by-the-guest")
    assert plane.api.ok("GET", path) == {"password": "posted-by-the-guest"}
    assert plane.api.call("GET", path, user="admin").get_json() == {
        "password": "posted-by-the-guest"}  # fmt: skip
    plane.api.ok("DELETE", path, status=204)
    assert plane.api.ok("GET", path) == {"password": ""}
    set_password(compute_state(plane).directory, server, "a second one, once cleared")
    assert plane.api.ok("GET", path) == {"password": "a second one, once cleared"}
    missing = "/servers/00000000-0000-0000-0000-000000000000/os-server-password"
    assert plane.api.call("GET", missing).status_code == 404
