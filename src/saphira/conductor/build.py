"""The build workflow (cells v2, as Nova's conductor runs it).

schedule -> create the row in the chosen cell (or in cell0, ERROR + fault,
when nothing fits) -> point the instance mapping at the cell -> delete the
build request -> cast the build to the host. A failed spawn comes back here
and goes to the next alternate with a fresh claim, until [scheduler]
max_attempts hosts have been tried; the last failure names them all.
"""

from __future__ import annotations

import dataclasses
import logging

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira import exception
from saphira.clients.placement import PlacementClient
from saphira.conductor import faults
from saphira.conductor.build_reports import BUILD_EVENT
from saphira.conductor.databases import Cell, Databases
from saphira.conductor.outage import waits_out_outages
from saphira.context import RequestContext
from saphira.db.api import build_requests
from saphira.db.api.models import InstanceGroup, InstanceGroupMember, InstanceMapping
from saphira.db.cell import actions, instances
from saphira.domain import transitions
from saphira.domain.states import VmState
from saphira.domain.table import TABLE, Action, Event
from saphira.objects import (
    BuildAttempt,
    BuildOrder,
    Instance,
    InstanceFault,
    RequestSpec,
    Selection,
)
from saphira.rpc.rpcapi.compute import ComputeAPI
from saphira.rpc.rpcapi.scheduler import SchedulerAPI

LOG = logging.getLogger(__name__)
SCHEDULE_EVENT = "conductor_schedule_and_build_instances"


class BuildTasks:
    dbs: Databases
    placement: PlacementClient
    scheduler: SchedulerAPI
    compute: ComputeAPI
    max_attempts: int

    def schedule_and_build_instances(
        self, ctxt: RequestContext, instances: list[Instance], orders: list[BuildOrder]
    ) -> None:
        if not instances:
            return
        first = orders[0].request_spec
        spec = dataclasses.replace(
            first, num_instances=len(instances),
            instance_group_hosts=self._group_hosts(first, instances),
        )  # fmt: skip
        try:
            host_lists = self.scheduler.select_destinations(
                ctxt, spec, [i.uuid for i in instances], return_alternates=True
            )
        except exception.SaphiraError as error:  # NoValidHost, or the scheduler is down
            for instance in instances:
                self._bury_in_cell0(ctxt, instance, error)
            return
        for index, (instance, host_list) in enumerate(zip(instances, host_lists, strict=True)):
            order = orders[index] if index < len(orders) else orders[0]
            self._build_one(ctxt, instance, dataclasses.replace(order, host_list=host_list))

    def _group_hosts(self, spec: RequestSpec, building: list[Instance]) -> list[str]:
        """Hosts of the group's other members (Nova's setup_instance_group): the
        affinity filters need them, and only the conductor can read every cell."""
        if not spec.instance_group_uuid:
            return list(spec.instance_group_hosts)
        skip = {i.uuid for i in building}
        with self.dbs.api() as api:
            members = api.scalars(
                sa.select(InstanceGroupMember.instance_uuid)
                .join(InstanceGroup, InstanceGroup.id == InstanceGroupMember.group_id)
                .where(InstanceGroup.uuid == spec.instance_group_uuid)
            ).all()
        hosts: list[str] = []
        for member in members:
            if member in skip:
                continue
            try:
                with self.dbs.instance_cell(member) as session:
                    host = instances.get(session, member).host
            except exception.InstanceNotFound:  # not placed yet, or deleted
                continue
            if host:
                hosts.append(host)
        return hosts

    def _build_one(self, ctxt: RequestContext, instance: Instance, order: BuildOrder) -> None:
        chosen = order.host_list[0]
        cell = self.dbs.cell_by_uuid(chosen.cell_uuid)
        placed = dataclasses.replace(
            instance, host=chosen.host, node=chosen.node,
            availability_zone=instance.availability_zone or chosen.availability_zone,
            vm_state=transitions.INITIAL_VM_STATE, task_state=transitions.INITIAL_TASK_STATE,
        )  # fmt: skip
        if not self._insert(ctxt, placed, cell, event_error=None):
            self.placement.delete_allocations(instance.uuid)
            return
        self.compute.build_and_run_instance(ctxt, placed, chosen.node, order)

    def _insert(
        self,
        ctxt: RequestContext,
        instance: Instance,
        cell: Cell,
        event_error: faults.FaultText | None,
    ) -> bool:
        """Create the row, map it, drop the build request; False if the user deleted
        the server meanwhile (the row is then removed again)."""
        with self.dbs.cell(cell.url) as session:
            instances.insert(session, instance)
            error = event_error or faults.FaultText("", "")
            actions.first_action(
                session, instance.uuid, ctxt.request_id, TABLE[Action.BUILD].recorded_as,
                SCHEDULE_EVENT, "Success" if event_error is None else "Error",
                project_id=instance.project_id, user_id=instance.user_id,
                details=error.message or None, traceback=error.details or None,
            )  # fmt: skip
            if event_error is not None:
                actions.fault_create(
                    session, InstanceFault(instance.uuid, 500, error.message, error.details)
                )
        with self.dbs.api() as api:
            api.execute(_MAP, {"m_uuid": instance.uuid, "m_cell": cell.id})
            kept = build_requests.delete(api, instance.uuid)
        if not kept:
            LOG.info("instance %s was deleted while it was being scheduled", instance.uuid)
            with self.dbs.cell(cell.url) as session:
                instances.soft_delete(session, instance.uuid)
        else:  # the agent's reports need not read the mapping back
            self.dbs.remember(instance.uuid, cell)
        return kept

    def bury_lost_build(self, ctxt: RequestContext, instance: Instance, error: Exception) -> bool:
        """``lost_builds``' way in: the build request's server, ERROR in cell0."""
        return self._bury_in_cell0(ctxt, instance, error)

    def _bury_in_cell0(self, ctxt: RequestContext, instance: Instance, error: Exception) -> bool:
        """ERROR in cell0 with ``error`` as its fault; False if it was deleted or placed
        meanwhile (whoever deleted the build request first owns the server)."""
        cell0 = next(c for c in self.dbs.cells(with_cell0=True) if c.is_cell0)
        move = transitions.system(Event.NO_HOST, instance.vm_state, instance_uuid=instance.uuid)
        failed = dataclasses.replace(instance, vm_state=move.vm_state, task_state=move.task_state)
        return self._insert(ctxt, failed, cell0, event_error=faults.of(error))

    @waits_out_outages
    def build_instances(self, ctxt: RequestContext, instance: Instance, order: BuildOrder) -> None:
        """The reschedule: release the failed claim, claim the next alternate."""
        self.placement.delete_allocations(instance.uuid)
        alternates = list(order.host_list[1:])
        tried = list(order.attempts)
        failed = tried[-1] if tried else None
        while alternates and len(tried) < self.max_attempts:
            chosen = alternates.pop(0)
            try:
                self.placement.put_allocations(
                    instance.uuid, chosen.allocation_request, project_id=instance.project_id,
                    user_id=instance.user_id, consumer_generation=None,
                )  # fmt: skip
            except exception.SaphiraError as error:
                tried.append(BuildAttempt(chosen.host, chosen.node, f"claim refused: {error}"))
                continue
            try:
                moved = self._move_to(ctxt, instance.uuid, chosen, failed)
            except exception.SaphiraError as error:  # deleted meanwhile
                LOG.info("reschedule of %s abandoned: %s", instance.uuid, error)
                self.placement.delete_allocations(instance.uuid)
                return
            again = dataclasses.replace(order, host_list=[chosen, *alternates], attempts=tried)
            self.compute.build_and_run_instance(ctxt, moved, chosen.node, again)
            return
        self._give_up(ctxt, instance.uuid, tried)

    def _move_to(
        self,
        ctxt: RequestContext,
        instance_uuid: str,
        chosen: Selection,
        failed: BuildAttempt | None,
    ) -> Instance:
        move = transitions.system(Event.RESCHEDULE, VmState.BUILDING)
        with self.dbs.instance_cell(instance_uuid) as session:
            _close_attempt(session, ctxt, instance_uuid, failed)
            instances.apply(session, instance_uuid, move, method=Event.RESCHEDULE)
            return instances.update(session, instance_uuid, host=chosen.host, node=chosen.node)

    def _give_up(self, ctxt: RequestContext, instance_uuid: str, tried: list[BuildAttempt]) -> None:
        text = faults.build_given_up(instance_uuid, tried, self.max_attempts)
        move = transitions.system(Event.GIVE_UP, VmState.BUILDING)
        try:
            with self.dbs.instance_cell(instance_uuid) as session:
                _close_attempt(session, ctxt, instance_uuid, tried[-1] if tried else None)
                instances.apply(session, instance_uuid, move, method=Event.GIVE_UP)
                fault = InstanceFault(instance_uuid, 500, text.message, text.details)
                actions.fault_create(session, fault)
                actions.event_start(
                    session, instance_uuid, ctxt.request_id, "conductor_build_instances", None
                )
                actions.event_finish(
                    session, instance_uuid, ctxt.request_id, "conductor_build_instances",
                    "Error", details=text.message, traceback=text.details,
                )  # fmt: skip
        except exception.SaphiraError as error:
            LOG.info("build of %s not failed: %s", instance_uuid, error)


def _close_attempt(
    session: Session, ctxt: RequestContext, instance_uuid: str, failed: BuildAttempt | None
) -> None:
    """The failed host's build event closed, its ports (released there) out of the info cache."""
    if failed is None:
        return
    actions.event_finish(
        session, instance_uuid, ctxt.request_id, BUILD_EVENT, "Error",
        details=failed.reason, traceback=failed.traceback or None,
    )  # fmt: skip
    instances.update(session, instance_uuid, network_info=[])


# Built once with its values bound; the first statement of a fresh API session, so no
# InstanceMapping object is loaded in it to synchronise.
_MAP = (
    sa.update(InstanceMapping)
    .where(InstanceMapping.instance_uuid == sa.bindparam("m_uuid", type_=sa.String()))
    .values(cell_id=sa.bindparam("m_cell", type_=sa.Integer()))
    .execution_options(synchronize_session=False)
)
