"""The compute agent's build reports: started, networked, failed (finished is
``instance_finish`` with its event). Each is one transaction in the
instance's cell that moves the state through the table's compare-and-swap
and opens or closes the build's action event with it, so a build costs the
agent at most three calls to the conductor."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from sqlalchemy.orm import Session

from saphira.conductor.databases import Databases
from saphira.conductor.outage import waits_out_outages
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

    @waits_out_outages
    def build_started(self, ctxt: RequestContext, instance_uuid: str, host: str) -> Instance:
        with self.dbs.instance_cell(instance_uuid) as session:
            actions.event_start(session, instance_uuid, ctxt.request_id, BUILD_EVENT, host)
            # Scheduling -> block devices -> networking: the block-device step has
            # no work without a volume service, so both moves go in one UPDATE.
            _advance(session, instance_uuid, TaskState.SCHEDULING, TaskState.BLOCK_DEVICE_MAPPING)
            return instances.get(session, instance_uuid)

    @waits_out_outages
    def build_networked(
        self, ctxt: RequestContext, instance_uuid: str, network_info: list[InstanceVIF]
    ) -> Instance:
        with self.dbs.instance_cell(instance_uuid) as session:
            _advance(session, instance_uuid, TaskState.NETWORKING)
            instances.write_info_cache(session, instance_uuid, network_info)
            return instances.get(session, instance_uuid)

    @waits_out_outages
    def build_failed(self, ctxt: RequestContext, fault: InstanceFault) -> Instance:
        uuid = fault.instance_uuid
        with self.dbs.instance_cell(uuid) as session:
            vm_state = instances.vm_state_of(session, uuid)
            with _lost(uuid, vm_state):
                move = transitions.fail(Action.BUILD, vm_state)
            instances.apply(session, uuid, move, method=Action.BUILD)
            actions.record_failure(session, uuid, ctxt.request_id, fault, BUILD_EVENT)
            return instances.update(session, uuid, network_info=[])


def _advance(session: Session, instance_uuid: str, *steps: TaskState) -> None:
    """The table's next build step after each of ``steps`` in turn, written as one
    compare-and-swap: the first move's expected states, the last move's new ones
    (the moves between are only seen inside this transaction). Only the vm_state
    is read: the caller reads the row once at the end."""
    vm_state = instances.vm_state_of(session, instance_uuid)
    with _lost(instance_uuid, vm_state):
        moves = [transitions.advance(Action.BUILD, vm_state, steps[0])]
        for step in steps[1:]:
            if moves[-1].task_state != step:  # the table's next step is not the one named
                raise ValueError(step)
            moves.append(transitions.advance(Action.BUILD, moves[-1].vm_state, step))
    first = moves[0]
    move = replace(moves[-1], expected_vm_states=first.expected_vm_states,
                   expected_task_states=first.expected_task_states)  # fmt: skip
    instances.apply(session, instance_uuid, move, method=Action.BUILD)


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
