"""The agent-facing half of the conductor: database writes on the compute
agents' behalf, each in its own transaction in the instance's cell."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.conductor.databases import Databases
from saphira.conductor.outage import waits_out_outages
from saphira.context import RequestContext
from saphira.db.api.models import InstanceGroupMember, InstanceMapping
from saphira.db.cell import actions, console_tokens, instances, services
from saphira.db.cell.instances import InstanceFilters
from saphira.domain import transitions
from saphira.domain.states import PowerState, TaskState, VmState
from saphira.domain.table import Action, Event
from saphira.exception import InstanceInvalidState
from saphira.objects import ComputeNode, Flavor, Instance, InstanceFault, Service

COMPUTE_BINARY = "nova-compute"
# Finishing these ends the guest's consoles where they were (Nova deletes the tokens).
_CONSOLE_ENDS = (Action.CONFIRM_RESIZE, Action.REVERT_RESIZE)


def column_updates(updates: dict[str, Any]) -> dict[str, Any]:
    """Object-shaped values (a Flavor, a system_metadata dict) as the row stores them."""
    values = dict(updates)
    flavor = values.pop("flavor", None)
    if isinstance(flavor, Flavor):
        values.update(
            flavor=json.dumps(flavor.to_primitive()), flavorid=flavor.flavorid,
            vcpus=flavor.vcpus, memory_mb=flavor.memory_mb, root_gb=flavor.root_gb,
            ephemeral_gb=flavor.ephemeral_gb,
        )  # fmt: skip
    if isinstance(values.get("system_metadata"), dict):
        values["system_metadata"] = json.dumps(values["system_metadata"])
    return values


class Records:
    """Mixed into the manager: one method per ConductorAPI agent-facing call."""

    dbs: Databases

    def instance_get(self, ctxt: RequestContext, instance_uuid: str) -> Instance:
        with self.dbs.instance_cell(instance_uuid) as session:
            return instances.get(session, instance_uuid)

    def instances_on_host(
        self, ctxt: RequestContext, host: str, node: str | None = None
    ) -> list[Instance]:
        found: list[Instance] = []
        for cell in self.dbs.cells():
            with self.dbs.cell(cell.url) as session:
                listed = instances.list_instances(session, InstanceFilters(host=host))
            found += [i for i in listed if node is None or i.node == node]
        return found

    def instance_advance(
        self, ctxt: RequestContext, instance_uuid: str, action: str, step: str
    ) -> Instance:
        with self.dbs.instance_cell(instance_uuid) as session:
            current = instances.get(session, instance_uuid)
            with _no_such_move(current.uuid, current.vm_state, action):
                move = transitions.advance(Action(action), current.vm_state, TaskState(step))
            instances.apply(session, instance_uuid, move, method=action)
            return instances.get(session, instance_uuid)

    @waits_out_outages
    def instance_finish(
        self,
        ctxt: RequestContext,
        instance_uuid: str,
        action: str,
        updates: dict[str, Any] | None = None,
        event: str | None = None,
    ) -> Instance:
        values = column_updates(dict(updates or {}))
        reported = values.pop("power_state", None)
        values, rest = instances.split_columns(values)
        with self.dbs.instance_cell(instance_uuid) as session:
            # the vm_state and old_vm_state alone; the plain columns go into the CAS
            vm_state, prior = instances.finish_state_of(session, instance_uuid)
            with _no_such_move(instance_uuid, vm_state, action):
                move = transitions.finish(
                    Action(action), vm_state, prior=VmState(prior) if prior else None,
                    power=None if reported is None else PowerState(reported),
                )  # fmt: skip
            instances.apply(session, instance_uuid, move, method=action, **values)
            if event is not None:
                actions.event_finish(session, instance_uuid, ctxt.request_id, event, "Success")
            if "host" in values or action in _CONSOLE_ENDS:  # the guest moved: old consoles
                console_tokens.delete_for_instance(session, instance_uuid)
            return _update(session, instance_uuid, rest)

    @waits_out_outages
    def instance_fail(
        self,
        ctxt: RequestContext,
        instance_uuid: str,
        action: str,
        fault: InstanceFault | None = None,
        event: str | None = None,
    ) -> Instance:
        with self.dbs.instance_cell(instance_uuid) as session:
            current = instances.get(session, instance_uuid)
            with _no_such_move(current.uuid, current.vm_state, action):
                move = transitions.fail(Action(action), current.vm_state)
            instances.apply(session, instance_uuid, move, method=action)
            actions.record_failure(session, instance_uuid, ctxt.request_id, fault, event)
            return instances.get(session, instance_uuid)

    def instance_event(
        self,
        ctxt: RequestContext,
        instance_uuid: str,
        event: str,
        seen: str,
        power: int | None = None,
        fault: InstanceFault | None = None,
        failed_event: str | None = None,
    ) -> Instance:
        """System ``event`` on an instance the caller saw in vm_state ``seen``."""
        move = transitions.system(
            Event(event), VmState(seen), power=None if power is None else PowerState(power),
            instance_uuid=instance_uuid,
        )  # fmt: skip
        with self.dbs.instance_cell(instance_uuid) as session:
            instances.apply(session, instance_uuid, move, method=event)
            actions.record_failure(session, instance_uuid, ctxt.request_id, fault, failed_event)
            return instances.get(session, instance_uuid)

    def instance_update(
        self, ctxt: RequestContext, instance_uuid: str, updates: dict[str, Any]
    ) -> Instance:
        with self.dbs.instance_cell(instance_uuid) as session:
            return _update(session, instance_uuid, updates)

    def instance_destroy(self, ctxt: RequestContext, instance_uuid: str) -> None:
        with self.dbs.instance_cell(instance_uuid) as session:
            current = instances.get(session, instance_uuid)
            move = transitions.system(Event.DESTROY, current.vm_state, instance_uuid=instance_uuid)
            instances.apply(session, instance_uuid, move, method=Event.DESTROY)
            instances.soft_delete(session, instance_uuid)
            console_tokens.delete_for_instance(session, instance_uuid)
        with self.dbs.api() as api:
            api.execute(
                sa.update(InstanceMapping)
                .where(InstanceMapping.instance_uuid == instance_uuid)
                .values(queued_for_delete=True)
            )
            # A deleted server leaves its group, as in Nova: `members` lists live ones.
            api.execute(
                sa.delete(InstanceGroupMember).where(
                    InstanceGroupMember.instance_uuid == instance_uuid
                )
            )

    def instance_fault_create(self, ctxt: RequestContext, fault: InstanceFault) -> None:
        with self.dbs.instance_cell(fault.instance_uuid) as session:
            actions.fault_create(session, fault)

    def action_event_start(
        self, ctxt: RequestContext, instance_uuid: str, event: str, host: str | None = None
    ) -> None:
        with self.dbs.instance_cell(instance_uuid) as session:
            actions.event_start(session, instance_uuid, ctxt.request_id, event, host)

    def action_event_finish(
        self,
        ctxt: RequestContext,
        instance_uuid: str,
        event: str,
        result: str,
        details: str | None = None,
        traceback: str | None = None,
    ) -> None:
        with self.dbs.instance_cell(instance_uuid) as session:
            actions.event_finish(
                session, instance_uuid, ctxt.request_id, event, result,
                details=details, traceback=traceback,
            )  # fmt: skip

    def service_heartbeat(
        self, ctxt: RequestContext, host: str, binary: str, topic: str | None = None
    ) -> Service:
        with self.dbs.local_cell() as session:
            return services.heartbeat(session, host, binary, topic)

    def compute_node_update(self, ctxt: RequestContext, node: ComputeNode) -> ComputeNode:
        with self.dbs.local_cell() as session:
            return services.node_upsert(session, node)


@contextmanager
def _no_such_move(uuid: str, vm_state: VmState, action: str) -> Iterator[None]:
    """The table has no move from where the instance is now (deleted, failed by the
    watchdog, taken by another action): the agent's late report loses, as a CAS would."""
    try:
        yield
    except (KeyError, ValueError):
        raise InstanceInvalidState(
            attr="vm_state", instance_uuid=uuid, state=str(vm_state),
            method=str(action),
        ) from None  # fmt: skip


def _update(session: Session, instance_uuid: str, updates: dict[str, Any]) -> Instance:
    if not updates:
        return instances.get(session, instance_uuid)
    return instances.update(session, instance_uuid, **column_updates(updates))
