"""The agent's side of a build, against a recording conductor: how many messages
it sends the conductor, and what a failure undoes."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import pytest
from oslo_config import cfg

from saphira import conf as saphira_conf
from saphira.clients.placement import PlacementClient
from saphira.compute.manager import ComputeManager
from saphira.compute.network import Networking
from saphira.context import RequestContext
from saphira.domain.states import TaskState, VmState
from saphira.exception import RPCPinnedToOldVersion
from saphira.objects import (
    BuildOrder,
    Flavor,
    Instance,
    InstanceFault,
    NetworkMode,
    NetworkRequest,
    RequestSpec,
    Selection,
)
from saphira.rpc.rpcapi.compute import ComputeAPI
from saphira.rpc.rpcapi.conductor import ConductorAPI
from saphira.rpc.transport import get_rpc_transport
from saphira.virt.fake import FakeDriver
from saphira.virt.types import NetworkInfo
from tests.unit.compute.fake_network import FakeNetworkClient

FLAVOR = Flavor("1", "tiny", 1, 512, 1)
CTXT = RequestContext(user_id="u1", project_id="p1", roles=("member",), auth_token="t")
_buses = itertools.count()


class _Conductor(ConductorAPI):
    """Every message the agent sends the conductor, recorded at the stub's one exit."""

    def __init__(self, transport: Any, instance: Instance) -> None:
        super().__init__(transport)
        self.instance = instance
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def call(
        self,
        ctxt: RequestContext,
        method: str,
        *,
        version: str | None = None,
        server: str | None = None,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> Any:
        self.sent.append((method, kwargs))
        if method == "build_networked":
            self.instance.network_info = list(kwargs["network_info"])
        return self.instance

    def cast(
        self,
        ctxt: RequestContext,
        method: str,
        *,
        version: str | None = None,
        server: str | None = None,
        **kwargs: Any,
    ) -> None:
        self.sent.append((method, kwargs))

    @property
    def methods(self) -> list[str]:
        return [method for method, _ in self.sent]


class _Placement(PlacementClient):
    def __init__(self) -> None:
        super().__init__("http://127.0.0.1:9/placement", lambda: "unused")
        self.released: list[str] = []

    def delete_allocations(self, consumer: str) -> bool:
        self.released.append(consumer)
        return True


class _Driver(FakeDriver):
    """Notes how many ports the network service still had at each destroy."""

    def __init__(self, network: FakeNetworkClient) -> None:
        super().__init__("h1", "h1")
        self.network = network
        self.ports_at_destroy: list[int] = []

    def destroy(self, instance: Instance, network_info: NetworkInfo) -> None:
        self.ports_at_destroy.append(len(self.network.ports))
        super().destroy(instance, network_info)


@dataclasses.dataclass
class _Host:
    manager: ComputeManager
    conductor: _Conductor
    placement: _Placement
    driver: _Driver
    network: FakeNetworkClient


@pytest.fixture
def host() -> _Host:
    conf: cfg.ConfigOpts = saphira_conf.load([])
    transport = get_rpc_transport(conf, f"inproc://build-test-{next(_buses)}")
    instance = Instance(
        "vm-1", "p1", "u1", FLAVOR, host="h1", node="h1", image_ref="img",
        vm_state=VmState.BUILDING, task_state=TaskState.SCHEDULING,
    )  # fmt: skip
    conductor, placement = _Conductor(transport, instance), _Placement()
    network = FakeNetworkClient()
    driver = _Driver(network)
    manager = ComputeManager(
        "h1", [driver], conductor, ComputeAPI(transport), placement,
        network=Networking(network, "h1"),
    )  # fmt: skip
    return _Host(manager, conductor, placement, driver, network)


def _order(networks: list[NetworkRequest] | None = None) -> BuildOrder:
    spec = RequestSpec("vm-1", "p1", "u1", FLAVOR, image_ref="img")
    chosen = Selection("h1", "h1", "cn-1", "cell-1")
    mode = NetworkMode.NONE if networks is None else NetworkMode.LISTED
    return BuildOrder(spec, network_mode=mode, networks=networks or [], host_list=[chosen])


def _build(host: _Host, order: BuildOrder) -> None:
    host.manager.build_and_run_instance(CTXT, host.conductor.instance, "h1", order)


def test_a_build_reports_to_the_conductor_in_three_calls(host: _Host) -> None:
    network = host.network.add_network("a")
    _build(host, _order([NetworkRequest(network["id"])]))

    assert host.conductor.methods == ["build_started", "build_networked", "instance_finish"]
    networked = host.conductor.sent[1][1]["network_info"]
    assert [vif.network_id for vif in networked] == [network["id"]]
    assert host.conductor.sent[2][1]["event"] == "compute_build_and_run_instance"
    assert "vm-1" in host.driver.guests
    assert host.placement.released == []


def test_a_failed_spawn_goes_back_to_the_conductor_in_the_third_message(host: _Host) -> None:
    network = host.network.add_network("a")
    host.driver.faults.fail("spawn", reason="disk on fire")
    _build(host, _order([NetworkRequest(network["id"])]))

    assert host.conductor.methods == ["build_started", "build_networked", "build_instances"]
    order = host.conductor.sent[2][1]["order"]
    assert isinstance(order, BuildOrder)
    assert [(a.host, a.node) for a in order.attempts] == [("h1", "h1")]
    assert "disk on fire" in order.attempts[0].reason
    # Undone here: the guest and the port; the claim is the conductor's to move.
    assert host.driver.guests == {}
    assert host.network.ports == {}
    assert host.placement.released == []


def test_an_aborted_build_is_failed_in_the_third_message(host: _Host) -> None:
    wired = host.network.add_network("a")
    _build(host, _order([NetworkRequest(wired["id"]), NetworkRequest("net-missing")]))

    assert host.conductor.methods == ["build_started", "build_failed"]
    fault = host.conductor.sent[1][1]["fault"]
    assert isinstance(fault, InstanceFault)
    assert fault.message.startswith("Build of instance vm-1 aborted: ")
    assert host.network.ports == {}  # the first network's port was made, then deleted
    assert host.placement.released == ["vm-1"]


def test_ports_come_back_after_the_guest_goes(host: _Host) -> None:
    """Undo runs newest first: the guest is destroyed while its ports still exist."""
    network = host.network.add_network("a")
    host.driver.faults.fail("spawn")
    _build(host, _order([NetworkRequest(network["id"])]))

    assert host.driver.ports_at_destroy == [1]
    assert host.network.ports == {}


def test_a_bus_pinned_below_the_build_order_refuses_before_sending() -> None:
    conf: cfg.ConfigOpts = saphira_conf.load([])
    transport = get_rpc_transport(conf, f"inproc://build-test-{next(_buses)}")
    order, instance = _order(), Instance("vm-1", "p1", "u1", FLAVOR)
    with pytest.raises(RPCPinnedToOldVersion):
        ComputeAPI(transport, version_cap="1.2").build_and_run_instance(CTXT, instance, "h1", order)
    conductor = ConductorAPI(transport, version_cap="1.1")
    with pytest.raises(RPCPinnedToOldVersion):
        conductor.schedule_and_build_instances(CTXT, [instance], [order])
    with pytest.raises(RPCPinnedToOldVersion):
        conductor.build_started(CTXT, "vm-1", "h1")
