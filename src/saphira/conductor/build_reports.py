"""The compute agent's build reports: started, networked, failed (finished is
``instance_finish`` with its event). Each is one transaction in the
instance's cell that moves the state through the table's compare-and-swap
and opens or closes the build's action event with it, so a build costs the
agent at most three calls to the conductor."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.orm import Session

from saphira.conductor.databases import Databases
from saphira.context import RequestContext
from saphira.db.cell import actions, instances
from saphira.domain import transitions
from saphira.domain.states import TaskState, VmState
from saphira.domain.table import Action
from saphira.exception import InstanceInvalidState
from saphira.objects import Instance, InstanceFault, InstanceVIF

BUILD_EVENT = "compute_build_and_run_instance"


class BuildReports:
    """Mixed into the manager: the ConductorAPI 2.0 build reports."""

    dbs: Databases

    def build_started(self, ctxt: RequestContext, instance_uuid: str, host: str) -> Instance:
        with self.dbs.instance_cell(instance_uuid) as session:
            actions.event_start(session, instance_uuid, ctxt.request_id, BUILD_EVENT, host)
            # Scheduling -> block devices -> networking: the block-device step has
            # no work without a volume service, so both moves go in this one write.
            vm_state = _advance(session, instance_uuid, TaskState.SCHEDULING)
            _advance(session, instance_uuid, TaskState.BLOCK_DEVICE_MAPPING, vm_state)
            return instances.get(session, instance_uuid)

    def build_networked(
        self, ctxt: RequestContext, instance_uuid: str, network_info: list[InstanceVIF]
    ) -> Instance:
        with self.dbs.instance_cell(instance_uuid) as session:
            _advance(session, instance_uuid, TaskState.NETWORKING)
            return instances.update(session, instance_uuid, network_info=network_info)

    def build_failed(self, ctxt: RequestContext, fault: InstanceFault) -> Instance:
        uuid = fault.instance_uuid
        with self.dbs.instance_cell(uuid) as session:
            vm_state = instances.vm_state_of(session, uuid)
            with _lost(uuid, vm_state):
                move = transitions.fail(Action.BUILD, vm_state)
            instances.apply(session, uuid, move, method=Action.BUILD)
            actions.record_failure(session, uuid, ctxt.request_id, fault, BUILD_EVENT)
            return instances.update(session, uuid, network_info=[])


def _advance(
    session: Session, instance_uuid: str, step: TaskState, vm_state: VmState | None = None
) -> VmState:
    """The table's next build step after ``step``, as a compare-and-swap; the vm_state
    it leaves. Only the vm_state is read (unless given): the caller reads the row once
    at the end, instead of twice per step."""
    if vm_state is None:
        vm_state = instances.vm_state_of(session, instance_uuid)
    with _lost(instance_uuid, vm_state):
        move = transitions.advance(Action.BUILD, vm_state, step)
    instances.apply(session, instance_uuid, move, method=Action.BUILD)
    return move.vm_state


@contextmanager
def _lost(instance_uuid: str, vm_state: VmState) -> Iterator[None]:
    """No such move from where the instance is (deleted, failed by the watchdog):
    the agent's report loses, as a compare-and-swap would."""
    try:
        yield
    except (KeyError, ValueError):
        raise InstanceInvalidState(
            attr="vm_state", instance_uuid=instance_uuid, state=str(vm_state),
            method=str(Action.BUILD),
        ) from None  # fmt: skip
