"""The instances repository on SQLite: filters, paging, and compare-and-swap."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import replace

import pytest
import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.cell import instances
from saphira.db.cell.instances import InstanceFilters as F
from saphira.db.cell.instances import MarkerNotFound
from saphira.domain import transitions as tr
from saphira.domain.states import PowerState, TaskState, VmState
from saphira.domain.status import filter_from_status
from saphira.domain.table import Action
from saphira.exception import InstanceInvalidState, InstanceNotFound
from tests.unit.db.instance_helpers import SMALL, active, make, race


@pytest.fixture
def session(engine: sa.Engine) -> Iterator[Session]:
    with Session(engine) as session, session.begin():
        yield session


def test_create_and_get_round_trip(session: Session) -> None:
    made = replace(make(), metadata={"k": "v"}, tags=["b", "a"], user_data="I2Nsb3VkLWNvbmZpZw==")
    stored = instances.create(session, made)
    assert stored.id is not None and stored.created_at is not None
    assert (stored.metadata, stored.tags, stored.flavor) == ({"k": "v"}, ["a", "b"], made.flavor)
    assert (stored.vm_state, stored.task_state, stored.status) == (
        VmState.BUILDING, TaskState.SCHEDULING, "BUILD",
    )  # fmt: skip
    with pytest.raises(InstanceNotFound):
        instances.get(session, "nope")


def test_build_walk_and_soft_delete(session: Session) -> None:
    done = active(session, make())
    assert (done.status, done.power_state) == ("ACTIVE", PowerState.RUNNING)
    instances.soft_delete(session, done.uuid)
    with pytest.raises(InstanceNotFound):
        instances.get(session, done.uuid)
    gone = instances.get(session, done.uuid, read_deleted=True)
    assert gone.terminated_at is not None


def test_cas_names_the_current_state_when_it_loses(session: Session) -> None:
    inst = active(session, make())
    instances.apply(session, inst.uuid, tr.begin(Action.STOP, VmState.ACTIVE, None))
    with pytest.raises(InstanceInvalidState) as caught:
        instances.apply(
            session, inst.uuid, tr.begin(Action.PAUSE, VmState.ACTIVE, None), method="pause"
        )
    assert caught.value.kwargs == {
        "attr": "task_state",
        "instance_uuid": inst.uuid,
        "state": "powering-off",
        "method": "pause",
    }
    assert "task_state powering-off" in caught.value.message and caught.value.code == 409
    instances.apply(session, inst.uuid, tr.finish(Action.STOP, VmState.ACTIVE))
    with pytest.raises(InstanceInvalidState) as caught:
        instances.save_state(session, inst.uuid, VmState.ACTIVE, None, task_state="pausing")
    assert (caught.value.kwargs["attr"], caught.value.kwargs["state"]) == ("vm_state", "stopped")
    stopped = instances.get(session, inst.uuid)
    assert (stopped.status, stopped.power_state) == ("SHUTOFF", PowerState.SHUTDOWN)
    with pytest.raises(InstanceNotFound):
        instances.save_state(session, "nope", VmState.ACTIVE, None, task_state=None)


def test_update_changes_plain_columns_only(session: Session) -> None:
    inst = instances.create(session, make())
    changed = instances.update(session, inst.uuid, display_name="new", metadata={"a": "1"})
    assert (changed.display_name, changed.metadata) == ("new", {"a": "1"})
    with pytest.raises(ValueError):
        instances.update(session, inst.uuid, vm_state="active")


def test_filters(session: Session) -> None:
    web1 = active(session, make("web-1"))
    web2 = instances.create(
        session, replace(make("web-2"), flavor=SMALL, image_ref="img", host="h2")
    )
    other = instances.create(session, replace(make("db", "p2"), host="h2"))
    instances.apply(session, web1.uuid, tr.begin(Action.REBOOT_HARD, VmState.ACTIVE, None))

    def names(filters: F = F()) -> list[str]:  # noqa: B008 (frozen: one default is safe)
        found = instances.list_instances(session, filters)
        return sorted(i.display_name for i in found)

    assert names() == ["db", "web-1", "web-2"]
    assert names(F(project_id="p1")) == ["web-1", "web-2"]
    assert names(F(name="^web")) == ["web-1", "web-2"] and names(F(name="b-2$")) == ["web-2"]
    assert names(F(flavorid="2")) == ["web-2"] and names(F(image_ref="img")) == ["web-2"]
    assert names(F(host="h2")) == ["db", "web-2"]
    reboot = filter_from_status(["HARD_REBOOT"])
    assert names(F(vm_states=reboot.vm_states, task_states=reboot.task_states)) == ["web-1"]
    assert names(F(vm_states=filter_from_status(["BUILD"]).vm_states)) == ["db", "web-2"]
    future = dt.datetime.now(dt.UTC).replace(tzinfo=None) + dt.timedelta(hours=1)
    assert names(F(changes_since=future)) == []
    instances.soft_delete(session, other.uuid)
    assert names() == ["web-1", "web-2"]
    assert names(F(deleted=None, changes_since=dt.datetime(2000, 1, 1))) == ["db", "web-1", "web-2"]
    assert names(F(uuids=[web2.uuid])) == ["web-2"]


def test_paging_by_created_at_then_id(session: Session) -> None:
    same_time = dt.datetime(2024, 1, 1, 12, 0, 0)
    made = [
        instances.create(session, replace(make(f"vm{i}"), created_at=same_time)) for i in range(5)
    ]
    pages: list[list[str]] = []
    marker = None
    while True:
        page = instances.list_instances(session, limit=2, marker=marker)
        if not page:
            break
        pages.append([i.display_name for i in page])
        marker = page[-1].uuid
    assert pages == [["vm4", "vm3"], ["vm2", "vm1"], ["vm0"]]
    assert made[0].created_at == same_time
    with pytest.raises(MarkerNotFound):
        instances.list_instances(session, marker="nope")


def test_two_threads_racing_one_transition_exactly_one_wins(engine: sa.Engine) -> None:
    with Session(engine) as session, session.begin():
        inst = active(session, make())
    assert race(engine, inst.uuid, Action.STOP) == ["lost: task_state=powering-off", "won"]
