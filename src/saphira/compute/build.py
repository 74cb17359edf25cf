"""The build on its host, in Nova's order: ports (task_state networking), the
info cache, then the guest (spawning), started only once its ports are plugged.

The agent tells the conductor three things, each one transaction there with
its action event: started (event opened, steps walked to networking),
networked (info cache written, step to spawning), then finished
(``instance_finish``) or failed. A failure undoes what was done, newest first
(``tracked.Tracked``: the guest and its disks, the ports, the claim). Then
either another host is tried (the build order goes back to the conductor with
this attempt added, and the conductor closes the event) or, when no host could
do better (a network request that cannot be met, a port that never came up),
the build is aborted here: ERROR with the fault, placement claim released.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING

from saphira import exception
from saphira.compute import network_errors, vifs
from saphira.compute.events import VIF_PLUGGED, InstanceEvents, Waiter
from saphira.compute.images import build_image_meta
from saphira.compute.network import Allocation, Networking
from saphira.compute.tracked import Tracked
from saphira.context import RequestContext
from saphira.domain.table import Action
from saphira.objects import BuildAttempt, BuildImage, BuildOrder, Instance, InstanceFault
from saphira.virt.errors import VirtualInterfaceCreateFailed

if TYPE_CHECKING:
    from saphira.clients.placement import PlacementClient
    from saphira.rpc.rpcapi.conductor import ConductorAPI
    from saphira.virt.driver import ComputeDriver

LOG = logging.getLogger(__name__)
EVENT = "compute_build_and_run_instance"
_ABORTS = (network_errors.BuildAborted, VirtualInterfaceCreateFailed)


@dataclass(frozen=True)
class VifPlugging:
    """[DEFAULT] vif_plugging_timeout (0: do not wait) and vif_plugging_is_fatal."""

    timeout: int = 300
    fatal: bool = True


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def _reason(error: BaseException) -> str:
    return getattr(error, "message", None) or str(error)


def wait_plugged(waiter: Waiter, plugging: VifPlugging, host: str) -> None:
    """Until the waiter's ports are reported plugged; VirtualInterfaceCreateFailed
    when one failed, or never came and ``plugging`` says that is fatal."""
    outcome = waiter.wait(plugging.timeout)
    if outcome.failed:
        ports = ", ".join(tag for _, tag in outcome.failed)
        raise VirtualInterfaceCreateFailed(
            host=host, reason=f"the network service could not plug port(s) {ports}"
        )
    if outcome.missing:
        ports = ", ".join(tag for _, tag in outcome.missing)
        why = (f"port(s) {ports} never came up: no network-vif-plugged event within "
               f"{plugging.timeout} s")  # fmt: skip
        if plugging.fatal:
            raise VirtualInterfaceCreateFailed(host=host, reason=why)
        LOG.warning("%s: %s; going on anyway", waiter.instance_uuid, why)


class BuildMixin:
    host: str
    drivers: dict[str, ComputeDriver]
    conductor: ConductorAPI
    placement: PlacementClient
    network: Networking | None
    events: InstanceEvents
    plugging: VifPlugging

    def build_and_run_instance(
        self, ctxt: RequestContext, instance: Instance, node: str, order: BuildOrder
    ) -> None:
        uuid = instance.uuid
        driver = self.drivers.get(node) or next(iter(self.drivers.values()))
        track = Tracked(uuid, Action.BUILD, self.host)
        track.done("claim", lambda: self.placement.delete_allocations(uuid))
        try:
            instance = self.conductor.build_started(ctxt, uuid, self.host)
            ports = self._allocate(ctxt, instance, order, track)
            instance = self.conductor.build_networked(ctxt, uuid, ports.vifs())
            built = instance
            track.done("guest", lambda: driver.destroy(built, vifs.network_info(built)))
            self._spawn(driver, instance, order.image)
        except exception.InstanceInvalidState as error:  # deleted or moved meanwhile
            LOG.info("build of %s stopped: %s", uuid, error.message)
            track.forget("claim")  # the delete releases it
            track.unwind()
            return
        except Exception as error:
            self._failed(ctxt, instance, driver.node, order, track, error)
            return
        self._finish(ctxt, driver, instance, track)

    def abandon_build(self, ctxt: RequestContext, instance: Instance, reason: str) -> None:
        """A build a killed agent left behind (``recover``): its guest, ports and claim
        go, newest first, then ERROR with the fault, as an aborted build."""
        uuid, driver = instance.uuid, self.drivers.get(instance.node or "")
        driver = driver or next(iter(self.drivers.values()))
        network = self.network
        track = Tracked(uuid, Action.BUILD, self.host)
        track.done("claim", lambda: self.placement.delete_allocations(uuid))
        if network is not None:
            track.done("ports", lambda: network.deallocate(instance))
        track.done("guest", lambda: driver.destroy(instance, vifs.network_info(instance)))
        track.unwind()
        self._abort(ctxt, uuid, reason, "")

    def _failed(
        self,
        ctxt: RequestContext,
        instance: Instance,
        node: str,
        order: BuildOrder,
        track: Tracked,
        error: Exception,
    ) -> None:
        """Undo, then abort here or hand the order back for another host."""
        reason, trace = _reason(error), traceback.format_exc()
        LOG.warning("build of %s failed on %s: %s", instance.uuid, self.host, reason)
        if not isinstance(error, _ABORTS):
            track.forget("claim")  # the conductor's reschedule releases it
        track.unwind()
        if isinstance(error, _ABORTS):
            self._abort(ctxt, instance.uuid, reason, trace)
            return
        attempt = BuildAttempt(self.host, node, reason, trace)
        again = dataclasses.replace(order, attempts=[*order.attempts, attempt])
        self.conductor.build_instances(ctxt, instance, again)

    def _finish(
        self, ctxt: RequestContext, driver: ComputeDriver, instance: Instance, track: Tracked
    ) -> None:
        power = driver.get_info(instance).state
        try:
            self.conductor.instance_finish(
                ctxt, instance.uuid, Action.BUILD,
                {"launched_at": _now(), "power_state": int(power)}, event=EVENT,
            )  # fmt: skip
        except exception.InstanceInvalidState:
            # Deleted while spawning, or failed by the watchdog while this agent
            # hung: the row is no longer ours to finish, so the guest must go.
            LOG.info("build of %s finished too late; destroying its guest", instance.uuid)
            track.forget("claim")
            had_ports = bool(instance.network_info)
            track.unwind()
            if had_ports:
                self._clear_info_cache(ctxt, instance.uuid)

    def _allocate(
        self, ctxt: RequestContext, instance: Instance, order: BuildOrder, track: Tracked
    ) -> Allocation:
        """Bound ports for what the order asks (the info cache gets them next, before
        the guest exists, so a delete from then on knows which ports were the user's)."""
        if self.network is None:  # no network service configured: no NICs
            return Allocation()
        network = self.network
        ports = network.allocate(instance, order.requested_networks(), ctxt)
        if ports.ports:
            track.done("ports", lambda: network.release(ports))
        return ports

    def _spawn(self, driver: ComputeDriver, instance: Instance, image: BuildImage) -> None:
        meta, nics = build_image_meta(image, instance.image_ref), vifs.network_info(instance)
        pending = [vif.port_id for vif in instance.network_info if not vif.active]
        if not (driver.wants_vif_plugged_events and pending and self.plugging.timeout):
            driver.spawn(instance, meta, nics)
            return
        waiter = self.events.expect(instance.uuid, [(VIF_PLUGGED, port) for port in pending])
        try:
            driver.spawn(instance, meta, nics, vifs_plugged=lambda: self._plugged(waiter))
        finally:
            waiter.close()

    def _plugged(self, waiter: Waiter) -> None:
        wait_plugged(waiter, self.plugging, self.host)

    def _clear_info_cache(self, ctxt: RequestContext, uuid: str) -> None:
        try:
            self.conductor.instance_update(ctxt, uuid, {"network_info": []})
        except exception.SaphiraError as error:  # deleted meanwhile: nothing to clear
            LOG.debug("info cache of %s not cleared: %s", uuid, error)

    def _abort(self, ctxt: RequestContext, uuid: str, reason: str, trace: str) -> None:
        """Nova's BuildAbortException: ERROR with the fault, no other host tried."""
        message = f"Build of instance {uuid} aborted: {reason}"
        fault = InstanceFault(uuid, 500, message, trace, self.host)
        try:
            self.conductor.build_failed(ctxt, fault)
        except exception.InstanceInvalidState as error:
            LOG.info("build of %s not failed: %s", uuid, error.message)
