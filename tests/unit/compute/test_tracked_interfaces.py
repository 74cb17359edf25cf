"""NIC attach and detach as tracked actions: a failed step undoes the earlier
ones newest first and closes the event once as an error; the row has no task
in flight, so no state moves and no fault is written (the caller gets the
error, or the log does for a detach)."""

from __future__ import annotations

import pytest

from saphira import exception
from saphira.compute.interfaces import ATTACH, DETACH
from saphira.domain.states import VmState
from tests.unit.compute.agent_world import CTXT, World, world


def _active() -> World:
    w = world(VmState.ACTIVE, None)
    w.network.add_network("a")
    return w


def _unchanged(w: World, event: str) -> None:
    assert w.conductor.opened == [event]
    assert w.conductor.closed == [(event, "Error")]
    assert w.conductor.faults == []
    assert (w.instance.vm_state, w.instance.task_state) == (VmState.ACTIVE, None)


def test_a_failed_cache_write_unplugs_then_deletes_the_port() -> None:
    w = _active()
    w.guest()
    w.conductor.refuse["instance_update"] = exception.SaphiraError("database gone")
    with pytest.raises(exception.SaphiraError, match="Failed to attach network adapter"):
        w.manager.attach_interface(CTXT, w.instance)

    (port,) = [line.split()[1] for line in w.journal if line.endswith("bound to h1")]
    assert w.journal == [
        f"port {port} bound to h1", f"NIC {port} attached",
        f"NIC {port} detached", f"port {port} deleted",
    ]  # fmt: skip
    assert w.network.ports == {} and w.driver.guests["vm-1"].vifs == []
    _unchanged(w, ATTACH)


def test_a_refused_plug_deletes_the_port_and_keeps_the_callers_status() -> None:
    w = _active()
    w.guest()
    w.driver.faults.fail("attach_interface", reason="no PCI slot left")
    with pytest.raises(exception.SaphiraError) as raised:
        w.manager.attach_interface(CTXT, w.instance)

    assert raised.value.code == 500
    assert [line.split()[0] for line in w.journal] == ["port", "port"]  # bound, then deleted
    assert w.journal[-1].endswith("deleted") and w.network.ports == {}
    _unchanged(w, ATTACH)


def test_an_unreachable_network_service_is_503_not_an_attach_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Found by the fuzzer: identity refusing the service user's token for a while (429)
    made every attach a bare 500; the caller gets 503 and may retry."""
    w = _active()
    w.guest()

    def away(*_args: object, **_kwargs: object) -> None:
        raise exception.ServiceUnavailable("identity refused a token for now (HTTP 429)")

    monkeypatch.setattr(w.network, "list_networks", away)
    with pytest.raises(exception.ServiceUnavailable, match="HTTP 429"):
        w.manager.attach_interface(CTXT, w.instance)
    assert w.network.ports == {}
    _unchanged(w, ATTACH)


def test_an_attach_adds_the_nic_and_closes_its_event() -> None:
    w = _active()
    w.guest()
    vif = w.manager.attach_interface(CTXT, w.instance)

    assert [nic.port_id for nic in w.instance.network_info] == [vif.port_id]
    assert w.conductor.closed == [(ATTACH, "Success")]


def test_a_failed_port_release_puts_the_cache_then_the_nic_back() -> None:
    w = world(VmState.ACTIVE, None)
    vif = w.nic()
    w.guest()
    w.network.refuse_deletes = True
    w.manager.detach_interface(CTXT, w.instance, vif.port_id)

    assert w.journal == [
        f"NIC {vif.port_id} detached", "cache: 0 NIC(s)",  # then the port refuses; undo:
        "cache: 1 NIC(s)", f"NIC {vif.port_id} attached",
    ]  # fmt: skip
    assert [nic.port_id for nic in w.instance.network_info] == [vif.port_id]
    assert w.driver.guests["vm-1"].vifs == [vif.port_id]
    _unchanged(w, DETACH)


def test_a_detach_of_a_port_the_server_lacks_changes_nothing() -> None:
    w = world(VmState.ACTIVE, None)
    w.guest()
    w.manager.detach_interface(CTXT, w.instance, "port-unknown")

    assert w.journal == []
    _unchanged(w, DETACH)
