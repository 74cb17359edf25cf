"""The build on its host, in Nova's order: ports (task_state networking), the
info cache, then the guest (spawning), started only once its ports are plugged.

A failure undoes the guest and the ports before anything else happens. Then
either another host is tried (the conductor's reschedule) or, when no host
could do better (a network request that cannot be met, a port that never came
up), the build is aborted here: ERROR with the fault, placement claim released.
"""

from __future__ import annotations

import datetime as dt
import logging
import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from saphira import exception
from saphira.compute import network_errors, vifs
from saphira.compute.events import VIF_PLUGGED, InstanceEvents, Waiter
from saphira.compute.images import image_meta
from saphira.compute.network import Allocation, Networking, wanted
from saphira.context import RequestContext
from saphira.domain.table import TABLE, Action
from saphira.objects import Instance, InstanceFault, RequestSpec, Selection
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
        self,
        ctxt: RequestContext,
        instance: Instance,
        node: str,
        image: dict[str, Any],
        request_spec: RequestSpec,
        host_list: list[Selection],
        admin_password: str | None = None,
        requested_networks: list[dict[str, Any]] | None = None,
        tried: list[dict[str, str]] | None = None,
    ) -> None:
        uuid = instance.uuid
        self.conductor.action_event_start(ctxt, uuid, EVENT, self.host)
        driver = self.drivers.get(node) or next(iter(self.drivers.values()))
        ports = Allocation()
        steps = TABLE[Action.BUILD].steps
        try:
            for step in steps[:-2]:  # up to networking
                instance = self.conductor.instance_advance(ctxt, uuid, Action.BUILD, step)
            ports = self._allocate(ctxt, instance, requested_networks)
            instance = self.conductor.instance_advance(ctxt, uuid, Action.BUILD, steps[-2])
            self._spawn(driver, instance, image)
        except exception.InstanceInvalidState as error:  # deleted or moved: no guest yet
            LOG.info("build of %s stopped: %s", uuid, error.message)
            self._release(ctxt, instance, ports)
            return
        except Exception as error:
            reason = _reason(error)
            LOG.warning("build of %s failed on %s: %s", uuid, self.host, reason)
            self._undo(ctxt, driver, instance, ports)
            if isinstance(error, _ABORTS):
                self._abort(ctxt, uuid, reason)
                return
            self.conductor.action_event_finish(
                ctxt, uuid, EVENT, "Error", details=reason, traceback=traceback.format_exc()
            )
            history = [*(tried or []), {"host": self.host, "node": driver.node, "reason": reason}]
            self.conductor.build_instances(
                ctxt, instance, image, request_spec, host_list, history,
                admin_password=admin_password, requested_networks=requested_networks,
            )  # fmt: skip
            return
        self._finish(ctxt, driver, instance, ports)

    def _finish(
        self, ctxt: RequestContext, driver: ComputeDriver, instance: Instance, ports: Allocation
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
            self._undo(ctxt, driver, instance, ports)

    def _allocate(
        self, ctxt: RequestContext, instance: Instance, requested: list[dict[str, Any]] | None
    ) -> Allocation:
        """Bound ports, recorded in the info cache before the guest exists, so a
        delete from now on knows which ports were the user's."""
        if self.network is None:  # no network service configured: no NICs
            return Allocation()
        ports = self.network.allocate(instance, wanted(instance, requested), ctxt)
        try:
            self.conductor.instance_update(ctxt, instance.uuid, {"network_info": ports.vifs()})
        except BaseException:
            self.network.release(ports)
            raise
        return ports

    def _spawn(self, driver: ComputeDriver, instance: Instance, image: dict[str, Any]) -> None:
        meta, nics = image_meta(image, instance.image_ref), vifs.network_info(instance)
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

    def _undo(
        self, ctxt: RequestContext, driver: ComputeDriver, instance: Instance, ports: Allocation
    ) -> None:
        """Guest first, then its ports, then the info cache that named them."""
        try:
            driver.destroy(instance, vifs.network_info(instance))
        except Exception:
            LOG.exception("cleanup of %s on %s failed", instance.uuid, self.host)
        self._release(ctxt, instance, ports)

    def _release(self, ctxt: RequestContext, instance: Instance, ports: Allocation) -> None:
        if self.network is None or not ports.ports:
            return
        self.network.release(ports)
        try:
            self.conductor.instance_update(ctxt, instance.uuid, {"network_info": []})
        except exception.SaphiraError as error:  # deleted meanwhile: nothing to clear
            LOG.debug("info cache of %s not cleared: %s", instance.uuid, error)

    def _abort(self, ctxt: RequestContext, uuid: str, reason: str) -> None:
        """Nova's BuildAbortException: ERROR with the fault, no other host tried."""
        message = f"Build of instance {uuid} aborted: {reason}"
        self.placement.delete_allocations(uuid)
        fault = InstanceFault(uuid, 500, message, traceback.format_exc(), self.host)
        try:
            self.conductor.instance_fail(ctxt, uuid, Action.BUILD, fault, event=EVENT)
        except exception.InstanceInvalidState as error:
            LOG.info("build of %s not failed: %s", uuid, error.message)
