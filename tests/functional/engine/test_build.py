"""Builds, actions, deletes and reschedules through the real services in process."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from saphira.domain.states import PowerState, VmState
from tests.functional.engine.conftest import Plane


def _active(i: object) -> bool:
    return getattr(i, "vm_state", None) is VmState.ACTIVE


def test_build_goes_active_and_delete_releases_allocations(plane: Plane) -> None:
    plane.add_host("host-a")
    uuid = plane.boot()
    built = plane.wait(uuid, _active)
    assert built.host == "host-a" and built.power_state is PowerState.RUNNING
    assert plane.placement.get_allocations(uuid)["allocations"]
    from saphira.context import RequestContext
    from saphira.rpc.rpcapi.compute import ComputeAPI

    ComputeAPI(plane.transport).terminate_instance(RequestContext(), built)
    plane.wait(uuid, lambda i: i.vm_state is VmState.DELETED)
    assert not plane.placement.get_allocations(uuid)["allocations"]


def test_spawn_failure_reschedules_to_another_host(plane: Plane) -> None:
    plane.add_host("host-a")
    plane.add_host("host-b")
    plane.faults.fail("spawn", hosts=["host-a"], reason="disk on fire")
    uuid = plane.boot()
    built = plane.wait(uuid, _active)
    assert built.host == "host-b"


def test_failure_on_every_host_names_hosts_and_reasons(plane: Plane) -> None:
    plane.add_host("host-a")
    plane.add_host("host-b")
    plane.faults.fail("spawn", reason="no luck")
    uuid = plane.boot()
    failed = plane.wait(uuid, lambda i: i.vm_state is VmState.ERROR)
    assert failed.task_state is None
    with plane.conductor.dbs.instance_cell(uuid) as session:
        import sqlalchemy as sa

        from saphira.db.cell import models

        message = session.scalars(
            sa.select(models.InstanceFault.details).filter_by(instance_uuid=uuid)
        ).one()
    assert "host-a" in message and "host-b" in message and "no luck" in message
    assert not plane.placement.get_allocations(uuid)["allocations"]


def test_the_create_answers_with_the_request_id_of_its_action(plane: Plane) -> None:
    """Nova's X-Compute-Request-Id too: tempest's instance-action tests look the create up by it."""
    plane.add_host("host-a")
    created = plane.api.create()
    assert created.status_code == 202, created.get_data(True)
    request_id = created.headers["X-Compute-Request-Id"]
    assert request_id == created.headers["X-OpenStack-Request-ID"]
    server_id = created.get_json()["server"]["id"]
    plane.api.wait(server_id, "ACTIVE")
    actions = plane.api.ok("GET", f"/servers/{server_id}/os-instance-actions")["instanceActions"]
    assert [(a["action"], a["request_id"]) for a in actions] == [("create", request_id)]


def test_the_conductor_reads_an_instances_cell_once(plane: Plane) -> None:
    """Remembered after the build; forgotten once the cell no longer has the instance."""
    import sqlalchemy as sa

    from saphira.db.api.models import InstanceMapping
    from saphira.db.cell import instances
    from saphira.exception import InstanceNotFound

    plane.add_host("host-a")
    uuid = plane.boot()
    plane.wait(uuid, _active)
    dbs = plane.conductor.dbs
    with dbs.api() as api:  # unmapped behind the conductor's back
        api.execute(
            sa.update(InstanceMapping)
            .where(InstanceMapping.instance_uuid == uuid)
            .values(cell_id=None)
        )
    cell = dbs.cell_of(uuid)  # still known: the API database is not read again
    with dbs.cell(cell.url) as session:
        instances.soft_delete(session, uuid)
    with pytest.raises(InstanceNotFound), dbs.instance_cell(uuid) as session:
        instances.get(session, uuid)
    with pytest.raises(InstanceNotFound):
        dbs.cell_of(uuid)  # forgotten, so the mapping is read again: no cell now


def _agent_calls(plane: Plane, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """(method, instance uuid) of every agent-facing conductor method, as served."""
    from saphira.rpc.rpcapi.conductor import ConductorAPI

    tasks = {"schedule_and_build_instances", "migrate_server", "can_send_version"}
    names = [n for n, v in vars(ConductorAPI).items()
             if callable(v) and not n.startswith("_") and n not in tasks]  # fmt: skip
    seen: list[tuple[str, str]] = []
    manager = plane.conductor.manager

    def about(kwargs: dict[str, Any]) -> str:
        for key in ("instance", "fault"):
            if key in kwargs:
                return str(getattr(kwargs[key], "uuid", getattr(kwargs[key], "instance_uuid", "")))
        return str(kwargs.get("instance_uuid", ""))

    for name in names:
        original: Callable[..., Any] = getattr(manager, name)

        def served(*args: Any, _name: str = name, _original: Callable[..., Any] = original,
                   **kwargs: Any) -> Any:  # fmt: skip
            seen.append((_name, about(kwargs)))
            return _original(*args, **kwargs)

        monkeypatch.setattr(manager, name, served)
    return seen


def test_each_host_tried_reports_in_three_conductor_messages(
    plane: Plane, monkeypatch: pytest.MonkeyPatch
) -> None:
    plane.add_host("host-a")
    plane.add_host("host-b")
    plane.faults.fail("spawn", hosts=["host-a"], reason="disk on fire")
    seen = _agent_calls(plane, monkeypatch)
    uuid = plane.boot()
    assert plane.wait(uuid, _active).host == "host-b"
    assert [name for name, about in seen if about == uuid] == [
        "build_started", "build_networked", "build_instances",  # host-a
        "build_started", "build_networked", "instance_finish",  # host-b
    ]  # fmt: skip
