"""The conductor's state-changing RPC: system events by name, no raw state write.

ConductorAPI 2.0 dropped instance_save_state (a raw compare-and-swap any
agent could aim at any state); agents name a system event of the table
instead and the conductor makes its compare-and-swap.
"""

from __future__ import annotations

import oslo_messaging
import pytest

from saphira import exception
from saphira.context import RequestContext
from saphira.domain.states import PowerState, VmState
from saphira.domain.table import Event
from saphira.objects import InstanceFault
from saphira.rpc.rpcapi.conductor import ConductorAPI
from saphira.rpc.serializer import Serializer
from tests.functional.engine.conftest import Plane

CTX = RequestContext(user_id="u1", project_id="p1", roles=("admin",))


def _raw_call(plane: Plane, version: str, method: str) -> None:
    target = oslo_messaging.Target(topic=ConductorAPI.TOPIC, version=version)
    client = oslo_messaging.get_rpc_client(
        plane.transport, target, serializer=Serializer(), timeout=30
    )
    client.call(
        CTX, method, instance_uuid="x", expected_vm_states=["active"],
        expected_task_states=[None], updates={"vm_state": "error"},
    )  # fmt: skip


def test_the_raw_state_write_is_gone(plane: Plane) -> None:
    with pytest.raises(oslo_messaging.RemoteError, match="UnsupportedVersion"):
        _raw_call(plane, "1.1", "instance_save_state")
    with pytest.raises(oslo_messaging.RemoteError, match="NoSuchMethod"):
        _raw_call(plane, "2.0", "instance_save_state")
    assert not hasattr(ConductorAPI, "instance_save_state")


def test_a_stub_pinned_below_2_0_refuses_before_sending(plane: Plane) -> None:
    pinned = ConductorAPI(plane.transport, version_cap="1.1")
    with pytest.raises(exception.RPCPinnedToOldVersion, match="instance_event"):
        pinned.instance_event(CTX, "x", Event.POWER_SYNC, VmState.ACTIVE, power=PowerState.RUNNING)


def test_events_the_instance_cannot_take_change_nothing(plane: Plane) -> None:
    plane.add_host("host-a")
    server_id = plane.api.boot()
    conductor = ConductorAPI(plane.transport)
    before = plane.instance(server_id)
    fault = InstanceFault(server_id, 500, "disk moved", "", "host-a")
    # No resize is in flight, and a build's events need BUILDING.
    for event in (Event.MOVE_ERROR, Event.HOST_DOWN, Event.GIVE_UP, Event.RESCHEDULE):
        with pytest.raises(exception.InstanceInvalidState):
            conductor.instance_event(CTX, server_id, event, VmState.ACTIVE, fault=fault)
    # What the agent saw is stale: the instance is ACTIVE, not PAUSED.
    with pytest.raises(exception.InstanceInvalidState):
        conductor.instance_event(
            CTX, server_id, Event.GUEST_STOPPED, VmState.PAUSED, power=PowerState.SHUTDOWN
        )
    after = plane.instance(server_id)
    assert (after.vm_state, after.task_state, after.power_state) == (
        before.vm_state, before.task_state, before.power_state,
    )  # fmt: skip


def test_power_events_write_the_reported_power(plane: Plane) -> None:
    plane.add_host("host-a")
    server_id = plane.api.boot()
    conductor = ConductorAPI(plane.transport)
    synced = conductor.instance_event(
        CTX, server_id, Event.POWER_SYNC, VmState.ACTIVE, power=PowerState.PAUSED
    )
    assert (synced.vm_state, synced.power_state) == (VmState.ACTIVE, PowerState.PAUSED)
    stopped = conductor.instance_event(
        CTX, server_id, Event.GUEST_STOPPED, VmState.ACTIVE, power=PowerState.SHUTDOWN
    )
    assert (stopped.vm_state, stopped.power_state) == (VmState.STOPPED, PowerState.SHUTDOWN)
    assert plane.api.server(server_id)["status"] == "SHUTOFF"


def test_the_fault_and_the_failed_event_commit_with_the_state_or_not_at_all(
    plane: Plane,
) -> None:
    plane.add_host("host-a")
    api = plane.api
    server_id = api.boot()
    create = next(a for a in api.actions(server_id) if a["action"] == "create")
    ctxt = RequestContext(user_id="u1", project_id="p1", request_id=create["request_id"])
    conductor = ConductorAPI(plane.transport)
    conductor.action_event_start(ctxt, server_id, "compute_probe", "host-a")
    fault = InstanceFault(server_id, 500, "probe failed", "", "host-a")

    def probe() -> str | None:
        detail = api.action_detail(server_id, create["request_id"])
        found = [e for e in detail["events"] if e["event"] == "compute_probe"]
        return str(found[0]["result"]) if found[0]["result"] is not None else None

    with pytest.raises(exception.InstanceInvalidState):  # no resize in flight
        conductor.instance_event(
            ctxt, server_id, Event.MOVE_ERROR, VmState.ACTIVE, fault=fault,
            failed_event="compute_probe",
        )  # fmt: skip
    assert probe() is None
    conductor.instance_event(
        ctxt, server_id, Event.POWER_SYNC, VmState.ACTIVE, power=PowerState.RUNNING,
        fault=fault, failed_event="compute_probe",
    )  # fmt: skip
    assert probe() == "Error"


def test_a_guest_paused_behind_our_back_has_its_power_recorded(plane: Plane) -> None:
    plane.conf.set_override("sync_power_state_interval", 600)
    plane.add_host("host-a")
    server_id = plane.api.boot()
    plane.drivers["host-a"].pause(plane.instance(server_id))  # its event wakes the reconcile
    synced = plane.wait(server_id, lambda i: i.power_state is PowerState.PAUSED)
    # Nova's _sync_instance_power_state records it and leaves an ACTIVE server ACTIVE.
    assert (synced.vm_state, synced.task_state) == (VmState.ACTIVE, None)
    assert plane.api.server(server_id)["status"] == "ACTIVE"
