"""One compute agent among fakes, for the tracked-action tests.

``FakeConductor`` keeps one instance as its cell would: each state change is
the table's compare-and-swap (``domain.transitions``; a lost one raises
InstanceInvalidState as the conductor's does), faults and action events are
recorded. The fake driver, placement and network service write what they did
in one shared ``journal``, so a test reads the undos in the order they ran.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping
from typing import Any

from oslo_config import cfg

from saphira import conf as saphira_conf
from saphira.clients.network import NetworkConflict
from saphira.clients.placement import PlacementClient
from saphira.compute.manager import ComputeManager
from saphira.compute.network import AUTO, Networking
from saphira.compute.vifs import network_info
from saphira.context import RequestContext
from saphira.domain import transitions
from saphira.domain.states import PowerState, TaskState, VmState
from saphira.domain.table import Action, Event
from saphira.exception import InstanceInvalidState
from saphira.objects import Flavor, Instance, InstanceFault, InstanceVIF
from saphira.rpc.rpcapi.compute import ComputeAPI
from saphira.rpc.rpcapi.conductor import ConductorAPI
from saphira.rpc.transport import get_rpc_transport
from saphira.virt.fake import FakeDriver
from saphira.virt.types import VIF, ImageMeta, NetworkInfo
from tests.unit.compute.fake_network import FakeNetworkClient

FLAVOR = Flavor("1", "tiny", 1, 512, 1)
CTXT = RequestContext(user_id="u1", project_id="p1", roles=("member",), auth_token="t")
_buses = itertools.count()


class FakeConductor(ConductorAPI):
    def __init__(self, transport: Any, instance: Instance, journal: list[str]) -> None:
        super().__init__(transport)
        self.instance, self.journal = instance, journal
        self.sent: list[str] = []
        self.faults: list[InstanceFault] = []
        self.opened: list[str] = []
        self.closed: list[tuple[str, str]] = []
        self.destroyed = False
        self.refuse: dict[str, Exception] = {}  # method -> what its next call raises

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
        self.sent.append(method)
        if method in self.refuse:
            raise self.refuse.pop(method)
        kwargs.pop("instance_uuid", None)
        getattr(self, f"_{method}")(**kwargs)
        return self.instance

    # -- the conductor's side, on self.instance ----------------------------------
    def _instance_get(self) -> None:
        pass

    def _instance_advance(self, action: str, step: str) -> None:
        self._apply(lambda: transitions.advance(Action(action), self._vm, TaskState(step)))

    def _instance_finish(self, action: str, updates: dict[str, Any], event: str | None) -> None:
        values = dict(updates)
        power = values.pop("power_state", None)
        prior = self.instance.system_metadata.get("old_vm_state")
        self._apply(lambda: transitions.finish(
            Action(action), self._vm, prior=VmState(prior) if prior else None,
            power=None if power is None else PowerState(power),
        ))  # fmt: skip
        self._instance_update(values)
        if event is not None:
            self.closed.append((event, "Success"))

    def _instance_fail(self, action: str, fault: InstanceFault | None, event: str | None) -> None:
        self._apply(lambda: transitions.fail(Action(action), self._vm))
        self._failed(fault, event)

    def _instance_event(
        self,
        event: str,
        seen: str,
        power: int | None,
        fault: InstanceFault | None,
        failed_event: str | None,
    ) -> None:
        reading = None if power is None else PowerState(power)
        self._apply(lambda: transitions.system(Event(event), VmState(seen), power=reading))
        self._failed(fault, failed_event)

    def _instance_update(self, updates: Mapping[str, Any]) -> None:
        if "network_info" in updates:
            self.journal.append(f"cache: {len(updates['network_info'])} NIC(s)")
        known = {k: v for k, v in updates.items() if k in ("network_info", "system_metadata")}
        self.instance = dataclasses.replace(self.instance, **known)

    def _instance_destroy(self) -> None:
        self.destroyed = True

    def _action_event_start(self, event: str, host: str | None) -> None:
        self.opened.append(event)

    def _action_event_finish(
        self, event: str, result: str, details: str | None, traceback: str | None
    ) -> None:
        self.closed.append((event, result))

    # -- helpers ---------------------------------------------------------------
    @property
    def _vm(self) -> VmState:
        return self.instance.vm_state

    def _apply(self, make: Any) -> None:
        """The compare-and-swap: the move must exist and the row be where it expects."""
        current = self.instance
        try:
            move: transitions.Transition = make()
        except (KeyError, ValueError):
            raise InstanceInvalidState(
                attr="vm_state", instance_uuid=current.uuid, state=str(current.vm_state),
                method="fake",
            ) from None  # fmt: skip
        if current.task_state not in move.expected_task_states:
            raise InstanceInvalidState(
                attr="task_state", instance_uuid=current.uuid, state=str(current.task_state),
                method="fake",
            )  # fmt: skip
        power = move.power_state if move.power_state is not None else current.power_state
        self.instance = dataclasses.replace(
            current, vm_state=move.vm_state, task_state=move.task_state, power_state=power
        )

    def _failed(self, fault: InstanceFault | None, event: str | None) -> None:
        if fault is not None:
            self.faults.append(fault)
        if event is not None:
            self.closed.append((event, "Error"))


class FakePlacement(PlacementClient):
    def __init__(self, journal: list[str]) -> None:
        super().__init__("http://127.0.0.1:9/placement", lambda: "unused")
        self.journal = journal
        self.held: dict[str, dict[str, dict[str, int]]] = {}

    def get_allocations(self, consumer: str) -> dict[str, Any]:
        held = self.held.get(consumer, {})
        return {"allocations": {rp: {"resources": dict(r)} for rp, r in held.items()}}

    def put_allocations(
        self,
        consumer: str,
        allocations: Mapping[str, Mapping[str, int]],
        *,
        project_id: str,
        user_id: str,
        consumer_generation: int | None,
    ) -> None:
        self.journal.append(f"claim to {consumer}")
        self.held[consumer] = {rp: dict(r) for rp, r in allocations.items()}

    def delete_allocations(self, consumer: str) -> bool:
        self.journal.append(f"claim of {consumer} dropped")
        return self.held.pop(consumer, None) is not None


class JournalDriver(FakeDriver):
    def __init__(self, node: str, journal: list[str]) -> None:
        super().__init__(node, node)
        self.journal = journal

    def destroy(self, instance: Instance, network_info: NetworkInfo) -> None:
        self.journal.append(f"guest destroyed on {self.node}")
        super().destroy(instance, network_info)

    def attach_interface(self, instance: Instance, vif: VIF) -> None:
        super().attach_interface(instance, vif)
        self.journal.append(f"NIC {vif.id} attached")

    def detach_interface(self, instance: Instance, vif: VIF) -> None:
        super().detach_interface(instance, vif)
        self.journal.append(f"NIC {vif.id} detached")


class JournalNetwork(FakeNetworkClient):
    def __init__(self, journal: list[str]) -> None:
        super().__init__(wired_hosts=("h1", "h2"))
        self.journal = journal
        self.refuse_deletes = False

    def update_port(self, port_id: str, attrs: dict[str, Any]) -> dict[str, Any]:
        if "binding:host_id" in attrs:
            self.journal.append(f"port {port_id} bound to {attrs['binding:host_id'] or 'none'}")
        return super().update_port(port_id, attrs)

    def delete_port(self, port_id: str) -> None:
        if self.refuse_deletes:
            raise NetworkConflict(f"Port {port_id} is busy.", "PortInUse")
        self.journal.append(f"port {port_id} deleted")
        super().delete_port(port_id)


class RecordingCompute(ComputeAPI):
    """The casts to the next hop of a move, kept instead of sent."""

    def __init__(self, transport: Any) -> None:
        super().__init__(transport)
        self.cast_methods: list[str] = []

    def cast(
        self,
        ctxt: RequestContext,
        method: str,
        *,
        version: str | None = None,
        server: str | None = None,
        **kwargs: Any,
    ) -> None:
        self.cast_methods.append(method)


@dataclasses.dataclass
class World:
    manager: ComputeManager
    conductor: FakeConductor
    placement: FakePlacement
    drivers: dict[str, JournalDriver]
    network: JournalNetwork
    compute: RecordingCompute
    journal: list[str]

    @property
    def instance(self) -> Instance:
        return self.conductor.instance

    @property
    def driver(self) -> JournalDriver:
        return self.drivers["h1"]

    def guest(self, node: str = "h1") -> None:
        """A running guest for the instance on ``node``, with its NICs."""
        instance = self.instance
        self.drivers[node].spawn(instance, ImageMeta("img"), network_info(instance))

    def nic(self) -> InstanceVIF:
        """A port made and bound to h1 for the instance, in its info cache (not journaled)."""
        self.network.add_network("a")
        (vif,) = Networking(self.network, "h1").allocate(self.instance, AUTO, CTXT).vifs()
        self.conductor.instance = dataclasses.replace(self.instance, network_info=[vif])
        self.journal.clear()
        return vif


def world(
    vm_state: VmState, task_state: TaskState | None, *, host: str = "h1", **fields: Any
) -> World:
    """Agent ``host`` (nodes h1 and h2) and one instance on h1 in the given states."""
    conf: cfg.ConfigOpts = saphira_conf.load([])
    transport = get_rpc_transport(conf, f"inproc://tracked-test-{next(_buses)}")
    instance = Instance(
        "vm-1", "p1", "u1", FLAVOR, host="h1", node="h1", image_ref="img",
        vm_state=vm_state, task_state=task_state, launched_at=None, **fields,
    )  # fmt: skip
    journal: list[str] = []
    conductor = FakeConductor(transport, instance, journal)
    placement, network = FakePlacement(journal), JournalNetwork(journal)
    drivers = {node: JournalDriver(node, journal) for node in ("h1", "h2")}
    compute = RecordingCompute(transport)
    manager = ComputeManager(
        host, list(drivers.values()), conductor, compute, placement,
        network=Networking(network, host),
    )  # fmt: skip
    return World(manager, conductor, placement, drivers, network, compute, journal)
