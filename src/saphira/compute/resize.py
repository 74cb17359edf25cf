"""Resize on the agents, in Nova's hops: prep_resize (destination) ->
resize_instance (source) -> finish_resize (destination) -> RESIZED; then
confirm_resize (source) or revert_resize (destination) -> finish_revert_resize
(source). Placement: the conductor moved the source claim to the migration
uuid and the scheduler claimed the destination for the instance; confirm
drops the migration's, revert gives it back to the instance."""

from __future__ import annotations

import traceback
from typing import TYPE_CHECKING, Any

from saphira.compute.images import image_meta
from saphira.context import RequestContext
from saphira.domain.states import TaskState
from saphira.domain.table import Action
from saphira.objects import Flavor, Instance, InstanceFault, RequestSpec, Selection
from saphira.rpc.rpcapi.compute import OLD_VM_STATE_KEY, RESIZE_KEY
from saphira.virt.types import Migration

if TYPE_CHECKING:
    from saphira.placement.client import PlacementClient
    from saphira.rpc.rpcapi.compute import ComputeAPI
    from saphira.rpc.rpcapi.conductor import ConductorAPI
    from saphira.virt.driver import ComputeDriver

T = TaskState


def _migration(data: dict[str, Any]) -> Migration:
    return Migration(
        data["uuid"], data["source_host"], data["source_node"], data["dest_host"],
        data["dest_node"], Flavor.from_primitive(data["old_flavor"]),
        Flavor.from_primitive(data["new_flavor"]),
    )  # fmt: skip


def _node_driver(manager: ResizeMixin, node: str) -> ComputeDriver:
    return manager.drivers.get(node) or next(iter(manager.drivers.values()))


def _without_resize(instance: Instance) -> dict[str, str]:
    return {k: v for k, v in instance.system_metadata.items()
            if k not in (RESIZE_KEY, OLD_VM_STATE_KEY)}  # fmt: skip


class ResizeMixin:
    host: str
    drivers: dict[str, ComputeDriver]
    conductor: ConductorAPI
    compute: ComputeAPI
    placement: PlacementClient

    def _resize_failed(
        self,
        ctxt: RequestContext,
        instance: Instance,
        action: Action,
        error: Exception,
    ) -> None:
        reason = getattr(error, "message", None) or str(error)
        fault = InstanceFault(instance.uuid, 500, reason, traceback.format_exc(), self.host)
        self.conductor.instance_fail(ctxt, instance.uuid, action, fault)

    def prep_resize(
        self,
        ctxt: RequestContext,
        instance: Instance,
        flavor: Flavor,
        image: dict[str, Any],
        request_spec: RequestSpec,
        selection: Selection,
        clean_shutdown: bool = True,
    ) -> None:
        """The scheduler's claim is the destination's; hand over to the source."""
        from saphira.rpc.rpcapi.compute import resize_migration

        self.compute.resize_instance(
            ctxt, instance, flavor, image, resize_migration(instance),
            clean_shutdown=clean_shutdown,
        )  # fmt: skip

    def resize_instance(
        self,
        ctxt: RequestContext,
        instance: Instance,
        flavor: Flavor,
        image: dict[str, Any],
        migration: dict[str, Any],
        clean_shutdown: bool = True,
    ) -> None:
        try:
            self.conductor.instance_advance(ctxt, instance.uuid, Action.RESIZE, T.RESIZE_PREP)
            driver = _node_driver(self, migration["source_node"])
            driver.migrate_disk_and_power_off(instance, _migration(migration), flavor)
            instance = self.conductor.instance_advance(
                ctxt, instance.uuid, Action.RESIZE, T.RESIZE_MIGRATING
            )
        except Exception as error:
            self._resize_failed(ctxt, instance, Action.RESIZE, error)
            return
        self.compute.finish_resize(ctxt, instance, flavor, image, migration)

    def finish_resize(
        self,
        ctxt: RequestContext,
        instance: Instance,
        flavor: Flavor,
        image: dict[str, Any],
        migration: dict[str, Any],
    ) -> None:
        try:
            self.conductor.instance_advance(ctxt, instance.uuid, Action.RESIZE, T.RESIZE_MIGRATED)
            driver = _node_driver(self, migration["dest_node"])
            power_on = instance.system_metadata.get(OLD_VM_STATE_KEY) != "stopped"
            driver.finish_migration(
                instance, _migration(migration), image_meta(image, instance.image_ref), (), power_on
            )
            power = driver.get_info(instance).state
        except Exception as error:
            self._resize_failed(ctxt, instance, Action.RESIZE, error)
            return
        self.conductor.instance_finish(
            ctxt, instance.uuid, Action.RESIZE,
            {"host": migration["dest_host"], "node": migration["dest_node"], "flavor": flavor,
             "power_state": int(power)},
        )  # fmt: skip

    def confirm_resize(
        self, ctxt: RequestContext, instance: Instance, migration: dict[str, Any]
    ) -> None:
        try:
            driver = _node_driver(self, migration["source_node"])
            driver.confirm_migration(instance, _migration(migration))
        except Exception as error:
            self._resize_failed(ctxt, instance, Action.CONFIRM_RESIZE, error)
            return
        self.placement.delete_allocations(migration["uuid"])
        self.conductor.instance_finish(
            ctxt, instance.uuid, Action.CONFIRM_RESIZE,
            {"system_metadata": _without_resize(instance)},
        )  # fmt: skip

    def revert_resize(
        self, ctxt: RequestContext, instance: Instance, migration: dict[str, Any]
    ) -> None:
        try:
            if migration["dest_node"] != migration["source_node"]:
                _node_driver(self, migration["dest_node"]).destroy(instance, ())
            held = self.placement.get_allocations(migration["uuid"]).get("allocations", {})
            self.placement.delete_allocations(instance.uuid)
            if held:
                self.placement.put_allocations(
                    instance.uuid, {rp: dict(v["resources"]) for rp, v in held.items()},
                    project_id=instance.project_id, user_id=instance.user_id,
                    consumer_generation=None,
                )  # fmt: skip
                self.placement.delete_allocations(migration["uuid"])
        except Exception as error:
            self._resize_failed(ctxt, instance, Action.REVERT_RESIZE, error)
            return
        self.compute.finish_revert_resize(ctxt, instance, migration)

    def finish_revert_resize(
        self, ctxt: RequestContext, instance: Instance, migration: dict[str, Any]
    ) -> None:
        move = _migration(migration)
        try:
            driver = _node_driver(self, migration["source_node"])
            power_on = instance.system_metadata.get(OLD_VM_STATE_KEY) != "stopped"
            driver.finish_revert_migration(instance, move, (), power_on)
            power = driver.get_info(instance).state
        except Exception as error:
            self._resize_failed(ctxt, instance, Action.REVERT_RESIZE, error)
            return
        self.conductor.instance_finish(
            ctxt, instance.uuid, Action.REVERT_RESIZE,
            {"host": migration["source_host"], "node": migration["source_node"],
             "flavor": move.old_flavor, "power_state": int(power),
             "system_metadata": _without_resize(instance)},
        )  # fmt: skip
