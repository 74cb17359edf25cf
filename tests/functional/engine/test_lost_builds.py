"""A build no conductor placed (the conductor was killed while it scheduled):
the conductor's lost-build watchdog fails it once [DEFAULT] lost_build_timeout
has passed, ERROR in cell0 with its fault and its claim dropped, and it can be
deleted; a build that is only young is left alone."""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

import pytest

from saphira.conductor import lost_builds
from tests.functional.engine.conftest import Plane
from tests.functional.engine.test_faults import _create, assert_nothing_left

TIMEOUT = 300


def _later(seconds: int) -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None) + dt.timedelta(seconds=seconds)


def test_a_build_the_conductor_lost_after_scheduling_ends_in_error_with_no_claim(
    plane: Plane, monkeypatch: pytest.MonkeyPatch
) -> None:
    plane.add_host("host-a")
    manager = plane.conductor.manager
    scheduled = threading.Event()

    def killed_here(*_args: Any) -> None:  # the scheduler claimed; the row is never written
        scheduled.set()

    monkeypatch.setattr(manager, "_build_one", killed_here)
    server_id = _create(plane)
    assert scheduled.wait(20)
    assert plane.placement.get_allocations(server_id)["allocations"]  # the scheduler's claim
    assert plane.api.server(server_id)["status"] == "BUILD"

    assert lost_builds.bury_lost_builds(manager, TIMEOUT, _later(TIMEOUT - 5)) == []
    assert lost_builds.bury_lost_builds(manager, TIMEOUT, _later(TIMEOUT + 5)) == [server_id]

    shown = plane.api.server(server_id)
    assert shown["status"] == "ERROR"
    assert shown["fault"]["message"].startswith("The build was lost")
    assert not plane.placement.get_allocations(server_id)["allocations"]
    assert lost_builds.bury_lost_builds(manager, TIMEOUT, _later(TIMEOUT + 5)) == []
    deleted = plane.api.call("DELETE", f"/servers/{server_id}")
    assert deleted.status_code == 204, deleted.get_data(True)
    plane.api.wait_gone(server_id)
    assert_nothing_left(plane, server_id)


def test_a_build_placed_meanwhile_is_not_lost(plane: Plane) -> None:
    plane.add_host("host-a")
    server_id = _create(plane)
    plane.api.wait(server_id, "ACTIVE")
    assert lost_builds.bury_lost_builds(plane.conductor.manager, 1, _later(60)) == []
    assert plane.api.server(server_id)["status"] == "ACTIVE"
