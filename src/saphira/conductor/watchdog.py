"""Builds stuck on a host that went down: ERROR, with the claim released.

A compute agent killed mid-build never reports back, so nothing else would
move the instance out of BUILD. Once the host's service is seen down
([DEFAULT] service_down_time without a heartbeat), each instance it was
building goes to ERROR with the fault "The compute host went down during the build."
(admins read which host in its details)
and its placement allocation is deleted.
"""

from __future__ import annotations

import logging

from saphira import exception
from saphira.clients.placement import PlacementClient
from saphira.conductor.databases import Databases
from saphira.conductor.records import COMPUTE_BINARY
from saphira.db.cell import actions, instances, services
from saphira.db.cell.instances import InstanceFilters
from saphira.domain import transitions
from saphira.domain.states import VmState
from saphira.domain.table import Event
from saphira.objects import InstanceFault

LOG = logging.getLogger(__name__)


def fail_builds_on_down_hosts(
    dbs: Databases, placement: PlacementClient, down_time: int
) -> list[str]:
    """One pass over every cell; the uuids it moved to ERROR."""
    failed: list[str] = []
    for cell in dbs.cells():
        with dbs.cell(cell.url) as session:
            down = services.down_hosts(session, COMPUTE_BINARY, down_time)
            stuck = [
                i
                for host in down
                for i in instances.list_instances(
                    session, InstanceFilters(host=host, vm_states=[VmState.BUILDING])
                )
            ]
        for instance in stuck:
            # The host's name is for admins (the fault's details), as for NoValidHost.
            message = "The compute host went down during the build."
            details = f"host {instance.host} went down during the build"
            try:
                move = transitions.system(Event.HOST_DOWN, instance.vm_state)
                with dbs.cell(cell.url) as session:
                    instances.apply(session, instance.uuid, move, method=Event.HOST_DOWN)
                    actions.fault_create(
                        session, InstanceFault(instance.uuid, 500, message, details, instance.host)
                    )
            except exception.SaphiraError as error:  # finished or deleted meanwhile
                LOG.debug("watchdog: %s: %s", instance.uuid, error)
                continue
            placement.delete_allocations(instance.uuid)
            LOG.warning("instance %s: %s", instance.uuid, message)
            failed.append(instance.uuid)
    return failed
