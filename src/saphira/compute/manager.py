"""ComputeManager: the RPC endpoint behind ComputeAPI for one compute host.

Every action follows its transition-table row: the API has set the first
task_state; the agent advances through the remaining steps, calls the
driver, and finishes (or fails, with a fault) through the conductor, each
action as one ``tracked.TrackedAction`` (its event, its undos, one failure
report). The agent never touches a database. The build is ``build.BuildMixin``, resize
``resize.ResizeMixin``, evacuate ``evacuate.EvacuateMixin``, NIC attach and detach
``interfaces.InterfaceMixin``;
every call that (re)defines a guest gets its NICs from the instance's info
cache.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from saphira import exception
from saphira.clients.image import ImageClient
from saphira.clients.placement import PlacementClient
from saphira.compute.build import BuildMixin, VifPlugging
from saphira.compute.evacuate import EvacuateMixin
from saphira.compute.events import VIF_PLUGGED, InstanceEvents
from saphira.compute.images import image_meta
from saphira.compute.interfaces import InterfaceMixin, NicLocks
from saphira.compute.network import Networking
from saphira.compute.tracked import Failed, TrackedAction
from saphira.compute.vifs import network_info
from saphira.context import RequestContext
from saphira.domain.states import PowerState
from saphira.domain.table import TABLE, Action
from saphira.objects import ConsoleEndpoint, ConsoleType, Instance
from saphira.rpc.rpcapi.compute import ComputeAPI
from saphira.rpc.rpcapi.conductor import ConductorAPI
from saphira.rpc.server import endpoint_target
from saphira.virt.driver import ComputeDriver
from saphira.virt.errors import GuestNotFound
from saphira.virt.types import RebootType

LOG = logging.getLogger(__name__)
Work = Callable[[ComputeDriver, Instance], None]


class ComputeManager(BuildMixin, EvacuateMixin, InterfaceMixin):
    target = endpoint_target(ComputeAPI.RPC_API_VERSION)

    def __init__(
        self,
        host: str,
        drivers: list[ComputeDriver],
        conductor: ConductorAPI,
        compute: ComputeAPI,
        placement: PlacementClient,
        images: ImageClient | None = None,
        network: Networking | None = None,
        plugging: VifPlugging | None = None,
    ) -> None:
        self.host = host
        self.drivers = {driver.node: driver for driver in drivers}
        self.conductor = conductor
        self.compute = compute
        self.placement = placement
        self.images = images
        self.network = network
        self.plugging = plugging or VifPlugging()
        self.events = InstanceEvents()
        self.nic_locks = NicLocks()

    def driver_for(self, instance: Instance) -> ComputeDriver:
        driver = self.drivers.get(instance.node or "")
        if driver is None:
            driver = next(iter(self.drivers.values()))
        return driver

    # -- the table's simple actions ---------------------------------------------
    def _act(
        self,
        ctxt: RequestContext,
        instance: Instance,
        action: Action,
        work: Work,
        undo: tuple[str, Callable[[], object]] | None = None,
    ) -> None:
        """Walk the row's steps, run ``work``, finish: one tracked action.

        ``undo`` takes back what the API made for this action before it reached
        the agent; it runs only if the action fails.
        """
        event = f"compute_{_EVENTS.get(action, str(action))}"
        track = TrackedAction(self.conductor, ctxt, instance, action, event, self.host)
        if undo is not None:
            track.done(*undo)
        driver = self.driver_for(instance)

        def steps() -> None:
            current = track.walk()
            work(driver, current)
            updates: dict[str, Any] = {}
            if TABLE[action].power is None:
                updates["power_state"] = int(self._power(driver, current))
            track.finish(updates)

        track.run(steps)

    def _power(self, driver: ComputeDriver, instance: Instance) -> PowerState:
        try:
            return driver.get_info(instance).state
        except GuestNotFound:
            return PowerState.NOSTATE

    def stop_instance(
        self, ctxt: RequestContext, instance: Instance, clean_shutdown: bool = True
    ) -> None:
        timeout = 60 if clean_shutdown else 0
        self._act(ctxt, instance, Action.STOP, lambda d, i: d.power_off(i, timeout))

    def start_instance(self, ctxt: RequestContext, instance: Instance) -> None:
        self._act(ctxt, instance, Action.START, lambda d, i: d.power_on(i, network_info(i)))

    def reboot_instance(self, ctxt: RequestContext, instance: Instance, reboot_type: str) -> None:
        kind = RebootType(reboot_type.upper())
        action = Action.REBOOT_HARD if kind is RebootType.HARD else Action.REBOOT_SOFT
        self._act(ctxt, instance, action, lambda d, i: d.reboot(i, network_info(i), kind))

    def rebuild_instance(
        self,
        ctxt: RequestContext,
        instance: Instance,
        image_ref: str,
        image: dict[str, Any],
        admin_password: str | None = None,
        preserve_ephemeral: bool = False,
    ) -> None:
        meta = image_meta(image, image_ref)

        def work(driver: ComputeDriver, current: Instance) -> None:
            nics = network_info(current)
            try:
                driver.rebuild(current, meta, nics)
            except NotImplementedError:  # Nova's default: destroy, then spawn again
                driver.destroy(current, nics)
                driver.spawn(current, meta, nics)

        self._act(ctxt, instance, Action.REBUILD, work)

    def pause_instance(self, ctxt: RequestContext, instance: Instance) -> None:
        self._act(ctxt, instance, Action.PAUSE, lambda d, i: d.pause(i))

    def unpause_instance(self, ctxt: RequestContext, instance: Instance) -> None:
        self._act(ctxt, instance, Action.UNPAUSE, lambda d, i: d.unpause(i))

    def suspend_instance(self, ctxt: RequestContext, instance: Instance) -> None:
        self._act(ctxt, instance, Action.SUSPEND, lambda d, i: d.suspend(i))

    def resume_instance(self, ctxt: RequestContext, instance: Instance) -> None:
        self._act(ctxt, instance, Action.RESUME, lambda d, i: d.resume(i, network_info(i)))

    def snapshot_instance(self, ctxt: RequestContext, instance: Instance, image_id: str) -> None:
        """The guest's disk into the image the API made; a failed snapshot deletes
        that image (as Nova's ``delete_image_on_error``), so no queued image is left."""
        uploader = self.images

        def work(driver: ComputeDriver, current: Instance) -> None:
            if uploader is None:
                raise exception.ServiceUnavailable("no image service configured")
            driver.snapshot(current, image_id, lambda data: uploader.upload(image_id, data))

        undo = None if uploader is None else ("snapshot image", lambda: uploader.delete(image_id))
        self._act(ctxt, instance, Action.CREATE_IMAGE, work, undo)

    # -- delete ------------------------------------------------------------------
    def terminate_instance(self, ctxt: RequestContext, instance: Instance) -> None:
        """Destroy the guest, give its ports back, release the claim, soft-delete the
        row (in that order: a failed destroy or port release leaves the instance in
        ERROR with its claim, never leaks)."""
        event = "compute_terminate_instance"
        track = TrackedAction(self.conductor, ctxt, instance, Action.DELETE, event, self.host)
        network = self.network

        def steps() -> None:
            self.driver_for(instance).destroy(instance, network_info(instance))
            if network is not None:
                network.deallocate(instance)
            self.placement.delete_allocations(instance.uuid)

        if not isinstance(track.run(steps), Failed):
            self.conductor.instance_destroy(ctxt, instance.uuid)

    # -- consoles and events ------------------------------------------------------
    def get_console_output(
        self, ctxt: RequestContext, instance: Instance, tail_length: int | None = None
    ) -> str:
        output = self.driver_for(instance).get_console_output(instance)
        if tail_length is None:
            return output
        lines = output.splitlines(keepends=True)
        return "".join(lines[-tail_length:]) if tail_length > 0 else ""

    def get_console_endpoint(
        self, ctxt: RequestContext, instance: Instance, console_type: str
    ) -> ConsoleEndpoint:
        """Where the console proxy connects for the guest's console (RPC 1.4)."""
        try:
            kind = ConsoleType(console_type)
        except ValueError:
            raise exception.ConsoleTypeUnavailable(console_type=console_type) from None
        return self.driver_for(instance).get_console(instance, kind)

    def get_vnc_console(
        self, ctxt: RequestContext, instance: Instance, console_type: str
    ) -> dict[str, Any]:
        """The 1.0-1.3 form of get_console_endpoint, for callers not yet upgraded."""
        console = self.get_console_endpoint(ctxt, instance, console_type)
        return {
            "host": console.host, "port": console.port,
            "internal_access_path": console.internal_access_path,
        }  # fmt: skip

    def get_host_uptime(self, ctxt: RequestContext) -> str:
        """The host's, not a node's: any of this agent's drivers can tell it."""
        return next(iter(self.drivers.values())).get_host_uptime()

    def external_instance_event(self, ctxt: RequestContext, events: list[dict[str, Any]]) -> None:
        """Plugged ports wake the build waiting for them; a power update, the reconcile."""
        for event in events:
            if event.get("name") != VIF_PLUGGED:
                continue
            uuid, tag = str(event.get("server_uuid")), str(event.get("tag", ""))
            if not self.events.complete(uuid, VIF_PLUGGED, tag, str(event.get("status", ""))):
                LOG.debug("%s of port %s for %s: nobody waits for it", VIF_PLUGGED, tag, uuid)
        if any(event.get("name") == "power-update" for event in events):
            from saphira.compute import reconcile

            reconcile.reconcile_once(self, ctxt)


_EVENTS = {
    Action.STOP: "stop_instance", Action.START: "start_instance",
    Action.REBOOT_SOFT: "reboot_instance", Action.REBOOT_HARD: "reboot_instance",
    Action.REBUILD: "rebuild_instance", Action.PAUSE: "pause_instance",
    Action.UNPAUSE: "unpause_instance", Action.SUSPEND: "suspend_instance",
    Action.RESUME: "resume_instance", Action.CREATE_IMAGE: "snapshot_instance",
}  # fmt: skip
