"""Resize on the agents, in Nova's hops: prep_resize (destination) ->
resize_instance (source) -> finish_resize (destination) -> RESIZED; then
confirm_resize (source) or revert_resize (destination) -> finish_revert_resize
(source). Placement: the conductor moved the source claim to the migration
uuid and the scheduler claimed the destination for the instance; confirm
drops the migration's, revert gives it back to the instance."""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from saphira.compute.images import image_meta
from saphira.compute.vifs import driver_vif, network_info
from saphira.context import RequestContext
from saphira.domain.states import TaskState
from saphira.domain.table import Action, Event
from saphira.objects import Flavor, Instance, InstanceFault, RequestSpec, Selection
from saphira.rpc.rpcapi.compute import OLD_VM_STATE_KEY, RESIZE_KEY
from saphira.virt.types import Migration, NetworkInfo

if TYPE_CHECKING:
    from saphira.clients.placement import PlacementClient
    from saphira.compute.network import Networking
    from saphira.rpc.rpcapi.compute import ComputeAPI
    from saphira.rpc.rpcapi.conductor import ConductorAPI
    from saphira.virt.driver import ComputeDriver

LOG = logging.getLogger(__name__)
T = TaskState


def _flavor(value: Flavor | dict[str, Any]) -> Flavor:
    """The bus revives nested object primitives, the system metadata does not."""
    return value if isinstance(value, Flavor) else Flavor.from_primitive(value)


def _migration(data: dict[str, Any]) -> Migration:
    return Migration(
        data["uuid"], data["source_host"], data["source_node"], data["dest_host"],
        data["dest_node"], _flavor(data["old_flavor"]), _flavor(data["new_flavor"]),
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
    network: Networking | None

    def _hop(
        self,
        ctxt: RequestContext,
        instance: Instance,
        action: Action,
        event: str,
        work: Callable[[], None],
        migration: dict[str, Any] | None = None,
        *,
        error_out: bool = False,
    ) -> bool:
        """One agent's part of a move, recorded as an action event; on failure the
        source claim is given back (mid-resize), then the failed state, the fault and
        the event's Error are one conductor call (one transaction).

        ``error_out``: the guest was already touched (disk moved, source powered
        off), so the instance goes to ERROR as Nova's does, not back to ACTIVE.
        """
        uuid = instance.uuid
        self.conductor.action_event_start(ctxt, uuid, event, self.host)
        try:
            work()
        except Exception as error:
            reason = getattr(error, "message", None) or str(error)
            if migration is not None:
                self._restore_source_claim(instance, migration)
            fault = InstanceFault(uuid, 500, reason, traceback.format_exc(), self.host)
            if error_out:
                self.conductor.instance_event(
                    ctxt, uuid, Event.MOVE_ERROR, instance.vm_state, fault=fault,
                    failed_event=event,
                )  # fmt: skip
            else:
                self.conductor.instance_fail(ctxt, uuid, action, fault, event=event)
            return False
        self.conductor.action_event_finish(ctxt, uuid, event, "Success")
        return True

    def _restore_source_claim(self, instance: Instance, migration: dict[str, Any]) -> None:
        """Drop the destination claim and give the migration's (source) one back."""
        try:
            held = self.placement.get_allocations(migration["uuid"]).get("allocations", {})
            if not held:
                return
            self.placement.delete_allocations(instance.uuid)
            self.placement.put_allocations(
                instance.uuid, {rp: dict(v["resources"]) for rp, v in held.items()},
                project_id=instance.project_id, user_id=instance.user_id,
                consumer_generation=None,
            )  # fmt: skip
            self.placement.delete_allocations(migration["uuid"])
        except Exception:
            LOG.exception("could not give %s its source claim back", instance.uuid)

    def _nics_here(self, ctxt: RequestContext, instance: Instance, came_from: str) -> NetworkInfo:
        """The guest's NICs on this host; its ports bound here first if it came from another."""
        if self.network is None or came_from == self.host or not instance.network_info:
            return network_info(instance)
        moved = self.network.rebind(instance)
        self.conductor.instance_update(ctxt, instance.uuid, {"network_info": moved})
        return tuple(driver_vif(vif) for vif in moved)

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

        migration = resize_migration(instance)

        def work() -> None:
            if self.host != migration["dest_host"]:
                raise ValueError(f"prep_resize for {migration['dest_host']} reached {self.host}")

        if self._hop(ctxt, instance, Action.RESIZE, "compute_prep_resize", work, migration):
            self.compute.resize_instance(
                ctxt, instance, flavor, image, migration, clean_shutdown=clean_shutdown
            )

    def resize_instance(
        self,
        ctxt: RequestContext,
        instance: Instance,
        flavor: Flavor,
        image: dict[str, Any],
        migration: dict[str, Any],
        clean_shutdown: bool = True,
    ) -> None:
        moved: list[Instance] = []

        def work() -> None:
            self.conductor.instance_advance(ctxt, instance.uuid, Action.RESIZE, T.RESIZE_PREP)
            driver = _node_driver(self, migration["source_node"])
            driver.migrate_disk_and_power_off(instance, _migration(migration), flavor)
            moved.append(self.conductor.instance_advance(
                ctxt, instance.uuid, Action.RESIZE, T.RESIZE_MIGRATING
            ))  # fmt: skip

        event = "compute_resize_instance"
        if self._hop(ctxt, instance, Action.RESIZE, event, work, migration, error_out=True):
            self.compute.finish_resize(ctxt, moved[0], flavor, image, migration)

    def finish_resize(
        self,
        ctxt: RequestContext,
        instance: Instance,
        flavor: Flavor,
        image: dict[str, Any],
        migration: dict[str, Any],
    ) -> None:
        def work() -> None:
            self.conductor.instance_advance(ctxt, instance.uuid, Action.RESIZE, T.RESIZE_MIGRATED)
            driver = _node_driver(self, migration["dest_node"])
            power_on = instance.system_metadata.get(OLD_VM_STATE_KEY) != "stopped"
            nics = self._nics_here(ctxt, instance, migration["source_host"])
            driver.finish_migration(
                instance, _migration(migration), image_meta(image, instance.image_ref),
                nics, power_on,
            )  # fmt: skip
            power = driver.get_info(instance).state
            self.conductor.instance_finish(
                ctxt, instance.uuid, Action.RESIZE,
                {"host": migration["dest_host"], "node": migration["dest_node"],
                 "flavor": flavor, "power_state": int(power)},
            )  # fmt: skip

        event = "compute_finish_resize"
        self._hop(ctxt, instance, Action.RESIZE, event, work, migration, error_out=True)

    def confirm_resize(
        self, ctxt: RequestContext, instance: Instance, migration: dict[str, Any]
    ) -> None:
        def work() -> None:
            driver = _node_driver(self, migration["source_node"])
            driver.confirm_migration(instance, _migration(migration))
            self.placement.delete_allocations(migration["uuid"])
            self.conductor.instance_finish(
                ctxt, instance.uuid, Action.CONFIRM_RESIZE,
                {"system_metadata": _without_resize(instance)},
            )  # fmt: skip

        self._hop(ctxt, instance, Action.CONFIRM_RESIZE, "compute_confirm_resize", work)

    def revert_resize(
        self, ctxt: RequestContext, instance: Instance, migration: dict[str, Any]
    ) -> None:
        def work() -> None:
            if migration["dest_node"] != migration["source_node"]:
                _node_driver(self, migration["dest_node"]).destroy(instance, network_info(instance))
            self._restore_source_claim(instance, migration)

        if self._hop(ctxt, instance, Action.REVERT_RESIZE, "compute_revert_resize", work):
            self.compute.finish_revert_resize(ctxt, instance, migration)

    def finish_revert_resize(
        self, ctxt: RequestContext, instance: Instance, migration: dict[str, Any]
    ) -> None:
        move = _migration(migration)

        def work() -> None:
            driver = _node_driver(self, migration["source_node"])
            power_on = instance.system_metadata.get(OLD_VM_STATE_KEY) != "stopped"
            nics = self._nics_here(ctxt, instance, migration["dest_host"])
            driver.finish_revert_migration(instance, move, nics, power_on)
            power = driver.get_info(instance).state
            self.conductor.instance_finish(
                ctxt, instance.uuid, Action.REVERT_RESIZE,
                {"host": migration["source_host"], "node": migration["source_node"],
                 "flavor": move.old_flavor, "power_state": int(power),
                 "system_metadata": _without_resize(instance)},
            )  # fmt: skip

        event = "compute_finish_revert_resize"
        self._hop(ctxt, instance, Action.REVERT_RESIZE, event, work)
