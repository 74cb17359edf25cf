"""Evacuate on the agents: the destination spawns a server whose host is down;
the dead host, when its agent starts again, removes what it left behind.

The destination's part is the rebuild row (Nova records ``evacuate`` and
walks the rebuild's task_states): the server's ports are bound here, the guest
is spawned from its image (powered off again if it was stopped, as Nova keeps
a stopped server stopped), and the instance moves to this host. A failure
undoes newest first (the guest, the ports back to the source, the scheduler's
claim dropped and the source's given back) and the instance is ERROR on its
old host with the fault, so it can be evacuated again.

The source's part (``destroy_evacuated``, Nova's ``_destroy_evacuated_instances``)
runs when its agent starts: a local guest whose instance now lives elsewhere
and names this host in its evacuation is destroyed instead of being started,
and the migration's claim on this host is freed.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from typing import TYPE_CHECKING, Any

from saphira import exception
from saphira.compute.images import image_meta
from saphira.compute.resize import ResizeMixin, _node_driver
from saphira.context import RequestContext
from saphira.domain.states import VmState
from saphira.domain.table import Action
from saphira.objects import Instance
from saphira.rpc.rpcapi.compute import EVACUATE_KEY

if TYPE_CHECKING:
    from saphira.compute.manager import ComputeManager

LOG = logging.getLogger(__name__)


class EvacuateMixin(ResizeMixin):
    def evacuate_instance(
        self, ctxt: RequestContext, instance: Instance, migration: dict[str, Any]
    ) -> None:
        event = "compute_rebuild_instance"
        track = self._move(ctxt, instance, Action.REBUILD, event, migration, failed="failed")
        track.done("claim", lambda: self._restore_source_claim(instance, migration))
        stopped = instance.vm_state == VmState.STOPPED

        def work() -> None:
            self._status(ctxt, instance, migration, "pre-migrating")
            current = track.walk()
            driver = _node_driver(self, migration["dest_node"])
            nics = self._nics_here(track, current, migration["source_host"])
            here = dataclasses.replace(current, host=self.host, node=migration["dest_node"])
            track.done("guest", lambda: driver.destroy(here, nics))
            driver.spawn(here, image_meta({}, here.image_ref), nics)
            if stopped:
                driver.power_off(here)
            power = driver.get_info(here).state
            self._status(ctxt, instance, migration, "done")
            track.finish({"host": self.host, "node": migration["dest_node"],
                          "power_state": int(power)})  # fmt: skip

        track.run(work)


def destroy_evacuated(manager: ComputeManager, ctxt: RequestContext | None = None) -> list[str]:
    """Remove the guests evacuated from this host while it was down; their uuids."""
    ctxt = ctxt or RequestContext()
    here = {i.uuid for i in manager.conductor.instances_on_host(ctxt, manager.host)}
    removed: list[str] = []
    for driver in manager.drivers.values():
        for uuid in driver.list_instances():
            if uuid in here:
                continue
            try:
                instance = manager.conductor.instance_get(ctxt, uuid)
            except exception.SaphiraError:
                continue  # not ours to judge: no row (another cloud on this libvirtd)
            moved = json.loads(instance.system_metadata.get(EVACUATE_KEY, "{}"))
            if moved.get("source_host") != manager.host:
                continue
            LOG.info("%s was evacuated to %s: removing its guest here", uuid, instance.host)
            driver.destroy(dataclasses.replace(instance, host=manager.host), ())
            manager.placement.delete_allocations(moved["uuid"])
            rest = {k: v for k, v in instance.system_metadata.items() if k != EVACUATE_KEY}
            manager.conductor.instance_update(ctxt, uuid, {"system_metadata": rest})
            removed.append(uuid)
    return removed
