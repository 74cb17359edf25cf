"""The resize hops on the agent as tracked actions: a failure gives the source
its claim back after undoing what the hop made (the destination's guest, the
ports it bound), and lands where Nova's does: back where it was for a
pre-flight failure, ERROR once the guest was touched."""

from __future__ import annotations

import json
from typing import Any

from saphira.domain.states import TaskState, VmState
from saphira.objects import Flavor, RequestSpec, Selection
from saphira.rpc.rpcapi.compute import OLD_VM_STATE_KEY, RESIZE_KEY
from tests.unit.compute.agent_world import CTXT, FLAVOR, World, world

SMALL = Flavor("2", "small", 2, 1024, 2)
T = TaskState
CLAIM_BACK = ["claim of vm-1 dropped", "claim to vm-1", "claim of mig-1 dropped"]


def _moving(
    task: TaskState, *, agent: str, dest_host: str = "h2", vm_state: VmState = VmState.ACTIVE
) -> World:
    """vm-1 (on h1, node h1) resizing to node h2 of ``dest_host``; placement
    holds the source claim under the migration and the destination's under vm-1."""
    migration = {
        "uuid": "mig-1", "source_host": "h1", "source_node": "h1", "dest_host": dest_host,
        "dest_node": "h2", "old_flavor": FLAVOR.to_primitive(),
        "new_flavor": SMALL.to_primitive(),
    }  # fmt: skip
    sysmeta = {RESIZE_KEY: json.dumps(migration), OLD_VM_STATE_KEY: "active"}
    w = world(vm_state, task, host=agent, system_metadata=sysmeta)
    w.placement.held = {"mig-1": {"rp-h1": {"VCPU": 1}}, "vm-1": {"rp-h2": {"VCPU": 2}}}
    return w


def _migration(w: World) -> dict[str, Any]:
    return dict(json.loads(w.instance.system_metadata[RESIZE_KEY]))


def _failed_once(w: World, event: str) -> None:
    assert len(w.conductor.faults) == 1, w.conductor.faults
    assert w.conductor.opened == [event]
    assert w.conductor.closed == [(event, "Error")]
    assert w.placement.held == {"vm-1": {"rp-h1": {"VCPU": 1}}}  # the source's claim, back


def test_a_pre_flight_failure_goes_back_to_active_with_the_source_claim() -> None:
    w = _moving(T.RESIZE_PREP, agent="h1", dest_host="h9")  # reached the wrong host
    spec = RequestSpec("vm-1", "p1", "u1", SMALL)
    w.manager.prep_resize(CTXT, w.instance, SMALL, {}, spec, Selection("h9", "h2", "cn", "c"))

    _failed_once(w, "compute_prep_resize")
    assert w.journal == CLAIM_BACK
    assert (w.instance.vm_state, w.instance.task_state) == (VmState.ACTIVE, None)
    assert w.compute.cast_methods == []


def test_a_failed_disk_move_is_error_with_the_source_claim() -> None:
    w = _moving(T.RESIZE_PREP, agent="h1")
    w.guest("h1")
    w.drivers["h1"].faults.fail("migrate_disk_and_power_off", reason="disk stuck")
    w.manager.resize_instance(CTXT, w.instance, SMALL, {}, _migration(w))

    _failed_once(w, "compute_resize_instance")
    assert "disk stuck" in w.conductor.faults[0].message
    assert w.journal == CLAIM_BACK
    assert (w.instance.vm_state, w.instance.task_state) == (VmState.ERROR, None)
    assert w.compute.cast_methods == []


def test_a_failed_finish_undoes_guest_ports_and_claim_newest_first() -> None:
    """The guest is made on the destination, then the driver's next step fails."""
    w = _moving(T.RESIZE_MIGRATED, agent="h2")
    vif = w.nic()
    w.guest("h1")
    w.drivers["h2"].faults.fail("get_info", reason="hypervisor lost it")
    w.manager.finish_resize(CTXT, w.instance, SMALL, {}, _migration(w))

    _failed_once(w, "compute_finish_resize")
    port = vif.port_id
    assert w.journal == [
        f"port {port} bound to h2", "cache: 1 NIC(s)",  # the hop's steps, then its undos:
        "guest destroyed on h2", f"port {port} bound to h1", "cache: 1 NIC(s)", *CLAIM_BACK,
    ]  # fmt: skip
    assert "vm-1" not in w.drivers["h2"].guests and "vm-1" in w.drivers["h1"].guests
    assert w.network.ports[port]["binding:host_id"] == "h1"
    assert (w.instance.vm_state, w.instance.task_state) == (VmState.ERROR, None)
    assert (w.instance.host, w.instance.flavor) == ("h1", FLAVOR)


def test_a_finished_resize_lands_and_closes_its_event_in_one_call() -> None:
    w = _moving(T.RESIZE_MIGRATED, agent="h2")
    w.guest("h1")
    w.manager.finish_resize(CTXT, w.instance, SMALL, {}, _migration(w))

    assert w.conductor.sent == [
        "action_event_start", "instance_advance", "migration_status", "instance_finish",
    ]  # fmt: skip
    assert w.conductor.closed == [("compute_finish_resize", "Success")]
    assert (w.instance.vm_state, w.instance.task_state) == (VmState.RESIZED, None)
    assert "vm-1" in w.drivers["h2"].guests and w.conductor.faults == []


def test_a_failed_confirm_is_error_as_the_table_says() -> None:
    w = _moving(T.RESIZE_CONFIRMING, agent="h1", vm_state=VmState.RESIZED)
    w.guest("h1")
    w.drivers["h1"].faults.fail("confirm_migration", reason="source disk busy")
    w.manager.confirm_resize(CTXT, w.instance, _migration(w))

    assert len(w.conductor.faults) == 1
    assert w.conductor.closed == [("compute_confirm_resize", "Error")]
    assert (w.instance.vm_state, w.instance.task_state) == (VmState.ERROR, None)
    assert "mig-1" in w.placement.held  # nothing was confirmed


def test_a_failed_revert_is_error_and_goes_no_further() -> None:
    w = _moving(T.RESIZE_REVERTING, agent="h2", vm_state=VmState.RESIZED)
    w.drivers["h2"].faults.fail("destroy", reason="guest will not die")
    w.manager.revert_resize(CTXT, w.instance, _migration(w))

    assert len(w.conductor.faults) == 1
    assert w.conductor.closed == [("compute_revert_resize", "Error")]
    assert (w.instance.vm_state, w.instance.task_state) == (VmState.ERROR, None)
    assert w.compute.cast_methods == []
