"""Resize: hand the source claim to a migration consumer, schedule the new
flavor, cast prep_resize to the destination (Nova's migrate_server)."""

from __future__ import annotations

import dataclasses
import json
import uuid as uuidlib
from typing import Any

from saphira import exception
from saphira.clients.placement import PlacementClient
from saphira.conductor import faults
from saphira.conductor.databases import Databases
from saphira.conductor.records import column_updates
from saphira.context import RequestContext
from saphira.db.cell import actions, instances, migration_rows
from saphira.domain import transitions
from saphira.domain.table import Action
from saphira.objects import Flavor, Instance, InstanceFault, RequestSpec
from saphira.rpc.rpcapi.compute import OLD_VM_STATE_KEY, RESIZE_KEY, ComputeAPI
from saphira.rpc.rpcapi.scheduler import SchedulerAPI


class ResizeTasks:
    dbs: Databases
    placement: PlacementClient
    scheduler: SchedulerAPI
    compute: ComputeAPI

    def migrate_server(
        self,
        ctxt: RequestContext,
        instance: Instance,
        flavor: Flavor,
        request_spec: RequestSpec,
        clean_shutdown: bool = True,
    ) -> None:
        migration_uuid, held = self._hand_over(instance)
        spec = dataclasses.replace(request_spec, flavor=flavor, num_instances=1)
        kind = "migration" if flavor.flavorid == instance.flavor.flavorid else "resize"
        self._record(instance, migration_uuid, kind, "pre-migrating", flavor.flavorid)
        try:
            selection = self.scheduler.select_destinations(
                ctxt, spec, [instance.uuid], return_alternates=False
            )[0][0]
        except exception.SaphiraError as error:
            self._undo(ctxt, instance, migration_uuid, held, error)
            raise
        self._destination(instance, migration_uuid, selection.host, selection.node)
        migration: dict[str, Any] = {
            "uuid": migration_uuid,
            "source_host": instance.host, "source_node": instance.node,
            "dest_host": selection.host, "dest_node": selection.node,
            "old_flavor": instance.flavor.to_primitive(), "new_flavor": flavor.to_primitive(),
        }  # fmt: skip
        sysmeta = {
            **instance.system_metadata,
            RESIZE_KEY: json.dumps(migration),
            OLD_VM_STATE_KEY: str(instance.vm_state),
        }
        with self.dbs.instance_cell(instance.uuid) as session:
            updated = instances.update(
                session, instance.uuid, **column_updates({"system_metadata": sysmeta})
            )
        self.compute.prep_resize(
            ctxt, updated, flavor, {}, spec, selection, clean_shutdown=clean_shutdown
        )

    def _record(
        self, instance: Instance, uuid: str, kind: str, status: str, new_flavor: str
    ) -> None:
        """The move's row in the migrations table (os-migrations), before any work."""
        with self.dbs.instance_cell(instance.uuid) as session:
            migration_rows.create(
                session, uuid=uuid, instance_uuid=instance.uuid, migration_type=kind,
                status=status, source_compute=instance.host, source_node=instance.node,
                old_flavor_id=instance.flavor.flavorid, new_flavor_id=new_flavor,
                project_id=instance.project_id, user_id=instance.user_id,
            )  # fmt: skip

    def migration_status(
        self, ctxt: RequestContext, instance_uuid: str, migration_uuid: str, status: str
    ) -> None:
        with self.dbs.instance_cell(instance_uuid) as session:
            migration_rows.set_status(session, migration_uuid, status)

    def _destination(self, instance: Instance, uuid: str, host: str, node: str) -> None:
        with self.dbs.instance_cell(instance.uuid) as session:
            migration_rows.set_destination(session, uuid, host, node)

    def _hand_over(self, instance: Instance) -> tuple[str, dict[str, dict[str, int]]]:
        """The instance's claim moved to a new migration consumer: (its uuid, the claim)."""
        migration_uuid = str(uuidlib.uuid4())
        source = self.placement.get_allocations(instance.uuid).get("allocations", {})
        held = {rp: dict(v["resources"]) for rp, v in source.items()}
        if held:
            self.placement.put_allocations(
                migration_uuid, held, project_id=instance.project_id, user_id=instance.user_id,
                consumer_generation=None,
            )  # fmt: skip
            self.placement.delete_allocations(instance.uuid)
        return migration_uuid, held

    def _undo(
        self,
        ctxt: RequestContext,
        instance: Instance,
        migration_uuid: str,
        held: dict[str, dict[str, int]],
        error: exception.SaphiraError,
        action: Action = Action.RESIZE,
    ) -> None:
        if held:
            self.placement.put_allocations(
                instance.uuid, held, project_id=instance.project_id, user_id=instance.user_id,
                consumer_generation=None,
            )  # fmt: skip
            self.placement.delete_allocations(migration_uuid)
        with self.dbs.instance_cell(instance.uuid) as session:
            migration_rows.set_status(session, migration_uuid, "error")
            current = instances.get(session, instance.uuid)
            instances.apply(session, instance.uuid, transitions.fail(action, current.vm_state))
            text = faults.of(error)
            actions.fault_create(
                session, InstanceFault(instance.uuid, error.code, text.message, text.details)
            )
