"""Resize on the agents, in Nova's hops: prep_resize (destination) ->
resize_instance (source) -> finish_resize (destination) -> RESIZED; then
confirm_resize (source) or revert_resize (destination) -> finish_revert_resize
(source). Placement: the conductor moved the source claim to the migration
uuid and the scheduler claimed the destination for the instance; confirm
drops the migration's, revert gives it back to the instance."""

from __future__ import annotations

import dataclasses
import logging
from typing import TYPE_CHECKING, Any

from saphira.compute.images import image_meta
from saphira.compute.network import Networking
from saphira.compute.tracked import Failed, TrackedAction
from saphira.compute.vifs import driver_vif, network_info
from saphira.context import RequestContext
from saphira.domain.states import TaskState
from saphira.domain.table import Action, Event
from saphira.objects import Flavor, Instance, RequestSpec, Selection
from saphira.rpc.rpcapi.compute import OLD_VM_STATE_KEY, RESIZE_KEY
from saphira.virt.types import Migration, MigrationTarget, NetworkInfo

if TYPE_CHECKING:
    from saphira.clients.placement import PlacementClient
    from saphira.rpc.rpcapi.compute import ComputeAPI
    from saphira.rpc.rpcapi.conductor import ConductorAPI
    from saphira.virt.driver import ComputeDriver

LOG = logging.getLogger(__name__)
T = TaskState


def _flavor(value: Flavor | dict[str, Any]) -> Flavor:
    """The bus revives nested object primitives, the system metadata does not."""
    return value if isinstance(value, Flavor) else Flavor.from_primitive(value)


def _migration(data: dict[str, Any]) -> Migration:
    target = data.get("target")
    return Migration(
        data["uuid"], data["source_host"], data["source_node"], data["dest_host"],
        data["dest_node"], _flavor(data["old_flavor"]), _flavor(data["new_flavor"]),
        MigrationTarget(**target) if target else None,
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

    def _move(
        self, ctxt: RequestContext, instance: Instance, action: Action, event: str,
        migration: dict[str, Any], failed: str = "error",
    ) -> TrackedAction:  # fmt: skip
        """One agent's part of a move, as a tracked action with its event; a failure
        marks the migration ``failed`` (the last undo; Nova's words)."""
        track = TrackedAction(self.conductor, ctxt, instance, action, event, self.host)
        track.done("status", lambda: self._status(ctxt, instance, migration, failed))
        return track

    def _claimed(
        self, ctxt: RequestContext, instance: Instance, event: str, migration: dict[str, Any]
    ) -> TrackedAction:
        """A resize hop while the destination holds the claim: a failure gives the
        source its claim back."""
        track = self._move(ctxt, instance, Action.RESIZE, event, migration)
        track.done("claim", lambda: self._restore_source_claim(instance, migration))
        return track

    def _status(self, ctxt: RequestContext, instance: Instance, migration: dict[str, Any],
                status: str) -> None:  # fmt: skip
        """The move's status for os-migrations; a lost update is only logged."""
        try:
            self.conductor.migration_status(ctxt, instance.uuid, migration["uuid"], status)
        except Exception:
            LOG.exception("migration %s of %s: status %s not recorded",
                          migration["uuid"], instance.uuid, status)  # fmt: skip

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

    def _nics_here(self, track: TrackedAction, instance: Instance, came_from: str) -> NetworkInfo:
        """The guest's NICs on this host; its ports bound here first if it came from
        another (undone by binding them back to ``came_from``)."""
        network = self.network
        if network is None or came_from == self.host or not instance.network_info:
            return network_info(instance)
        ctxt, before = track.ctxt, list(instance.network_info)

        def back() -> None:
            Networking(network.client, came_from).rebind(instance)
            self.conductor.instance_update(ctxt, instance.uuid, {"network_info": before})

        track.done("ports", back)
        moved = network.rebind(instance)
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
        """The scheduler's claim is the destination's; hand over to the source. A
        failure here is a pre-flight one: the guest is untouched, so the instance goes
        back where it was (the row's failure) with the source claim, as Nova's
        conductor puts back a resize no host could take (Nova's prep_resize would try
        another host first, then ERROR; here the scheduler already chose and claimed)."""
        from saphira.rpc.rpcapi.compute import resize_migration

        migration = resize_migration(instance)
        track = self._claimed(ctxt, instance, "compute_prep_resize", migration)

        def work() -> None:
            if self.host != migration["dest_host"]:
                raise ValueError(f"prep_resize for {migration['dest_host']} reached {self.host}")
            driver = _node_driver(self, migration["dest_node"])
            target = driver.prepare_migration_target(instance, _migration(migration))
            if target is not None:  # the source sends the disks there (one time, checked)
                migration["target"] = dataclasses.asdict(target)

        if not isinstance(track.run(work), Failed):
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
        """Power the source off and move its disk; from the driver call on, a failure
        is ERROR (the guest was touched), as Nova's _error_out_instance_on_exception."""
        track = self._claimed(ctxt, instance, "compute_resize_instance", migration)

        def work() -> Instance:
            track.advance(T.RESIZE_PREP)
            driver = _node_driver(self, migration["source_node"])
            track.failing_as(Event.MOVE_ERROR)
            self._status(ctxt, instance, migration, "migrating")
            driver.migrate_disk_and_power_off(instance, _migration(migration), flavor)
            self._status(ctxt, instance, migration, "post-migrating")
            return track.advance(T.RESIZE_MIGRATING)

        moved = track.run(work)
        if not isinstance(moved, Failed):
            self.compute.finish_resize(ctxt, moved, flavor, image, migration)

    def finish_resize(
        self,
        ctxt: RequestContext,
        instance: Instance,
        flavor: Flavor,
        image: dict[str, Any],
        migration: dict[str, Any],
    ) -> None:
        """The guest on the destination; a failure is ERROR with the source intact:
        the destination's guest and its disks go, the ports go back to the source, and
        so does the claim."""
        track = self._claimed(ctxt, instance, "compute_finish_resize", migration)
        track.failing_as(Event.MOVE_ERROR)

        def work() -> None:
            track.advance(T.RESIZE_MIGRATED)
            driver = _node_driver(self, migration["dest_node"])
            power_on = instance.system_metadata.get(OLD_VM_STATE_KEY) != "stopped"
            nics = self._nics_here(track, instance, migration["source_host"])
            if migration["dest_node"] != migration["source_node"]:
                track.done("guest", lambda: driver.destroy(instance, nics))
            driver.finish_migration(
                instance, _migration(migration), image_meta(image, instance.image_ref),
                nics, power_on,
            )  # fmt: skip
            power = driver.get_info(instance).state
            self._status(ctxt, instance, migration, "finished")
            track.finish(
                {"host": migration["dest_host"], "node": migration["dest_node"],
                 "flavor": flavor, "power_state": int(power)},
            )  # fmt: skip

        track.run(work)

    def confirm_resize(
        self, ctxt: RequestContext, instance: Instance, migration: dict[str, Any]
    ) -> None:
        event = "compute_confirm_resize"
        track = self._move(ctxt, instance, Action.CONFIRM_RESIZE, event, migration)

        def work() -> None:
            driver = _node_driver(self, migration["source_node"])
            driver.confirm_migration(instance, _migration(migration))
            self.placement.delete_allocations(migration["uuid"])
            self._status(ctxt, instance, migration, "confirmed")
            track.finish({"system_metadata": _without_resize(instance)})

        track.run(work)

    def revert_resize(
        self, ctxt: RequestContext, instance: Instance, migration: dict[str, Any]
    ) -> None:
        event = "compute_revert_resize"
        track = self._move(ctxt, instance, Action.REVERT_RESIZE, event, migration)

        def work() -> None:
            self._status(ctxt, instance, migration, "reverting")
            if migration["dest_node"] != migration["source_node"]:
                _node_driver(self, migration["dest_node"]).destroy(instance, network_info(instance))
            self._restore_source_claim(instance, migration)

        if not isinstance(track.run(work), Failed):
            self.compute.finish_revert_resize(ctxt, instance, migration)

    def finish_revert_resize(
        self, ctxt: RequestContext, instance: Instance, migration: dict[str, Any]
    ) -> None:
        move = _migration(migration)
        event = "compute_finish_revert_resize"
        track = self._move(ctxt, instance, Action.REVERT_RESIZE, event, migration)

        def work() -> None:
            driver = _node_driver(self, migration["source_node"])
            power_on = instance.system_metadata.get(OLD_VM_STATE_KEY) != "stopped"
            nics = self._nics_here(track, instance, migration["dest_host"])
            driver.finish_revert_migration(instance, move, nics, power_on)
            power = driver.get_info(instance).state
            self._status(ctxt, instance, migration, "reverted")
            track.finish(
                {"host": migration["source_host"], "node": migration["source_node"],
                 "flavor": move.old_flavor, "power_state": int(power),
                 "system_metadata": _without_resize(instance)},
            )  # fmt: skip

        track.run(work)
