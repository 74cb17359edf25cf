"""Evacuate: rebuild a server of a dead host on another one (Nova's
rebuild_instance task with a destination to find).

The API checked that the source's compute service is down and moved the
instance to ``rebuilding``. The source claim goes to a migration consumer,
which stays while the dead host may still hold the guest's disks; the
destination is scheduled (the source ignored), the evacuation is written into
the system metadata (``EVACUATE_KEY``) and the destination's agent spawns the
server from its image. When the source's agent starts again it finds the
evacuation naming it, removes its leftover guest and frees the migration's
claim (``compute/evacuate.py``).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from saphira import exception
from saphira.conductor.records import column_updates
from saphira.conductor.resize import ResizeTasks
from saphira.context import RequestContext
from saphira.db.cell import instances
from saphira.domain.table import Action
from saphira.objects import Instance, RequestSpec
from saphira.rpc.rpcapi.compute import EVACUATE_KEY


class EvacuateTasks(ResizeTasks):
    def evacuate_server(
        self, ctxt: RequestContext, instance: Instance, request_spec: RequestSpec
    ) -> None:
        migration_uuid, held = self._hand_over(instance)
        flavor = instance.flavor.flavorid
        self._record(instance, migration_uuid, "evacuation", "accepted", flavor)
        ignore = [*request_spec.ignore_hosts, *([instance.host] if instance.host else [])]
        spec = dataclasses.replace(request_spec, num_instances=1, ignore_hosts=ignore)
        try:
            selection = self.scheduler.select_destinations(
                ctxt, spec, [instance.uuid], return_alternates=False
            )[0][0]
        except exception.SaphiraError as error:
            self._undo(ctxt, instance, migration_uuid, held, error, Action.REBUILD)
            raise
        self._destination(instance, migration_uuid, selection.host, selection.node)
        migration: dict[str, Any] = {
            "uuid": migration_uuid,
            "source_host": instance.host, "source_node": instance.node,
            "dest_host": selection.host, "dest_node": selection.node,
        }  # fmt: skip
        sysmeta = {**instance.system_metadata, EVACUATE_KEY: json.dumps(migration)}
        with self.dbs.instance_cell(instance.uuid) as session:
            updated = instances.update(
                session, instance.uuid, **column_updates({"system_metadata": sysmeta})
            )
        self.compute.evacuate_instance(ctxt, updated, migration)
