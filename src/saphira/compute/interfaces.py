"""NICs added to and taken from a server that exists (os-interface), on its host.

An attach allocates and binds the port as a build does (``compute.network``),
has the driver plug it, waits for ``network-vif-plugged`` when the driver wants
the events and the guest runs (a stopped guest has no tap, so no event would
come), then adds the NIC to the info cache. A detach unplugs, drops the cache
entry, then deletes the port (or unbinds the user's). A failure undoes what
was done, in reverse: no port stays bound to a server without its NIC, and the
cache never names a NIC the guest lacks.

The API recorded the instance action; the agent adds its event (each change is
one ``tracked.TrackedAction``, which also undoes it on error). A server's
NIC changes run one at a time, since the info cache is read, changed and
written whole. Errors go back to the API as ``saphira.exception`` classes (the
only ones that cross the bus as themselves) with Nova's status for them.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from saphira import exception
from saphira.compute import network_errors, vifs
from saphira.compute.build import VifPlugging, wait_plugged
from saphira.compute.events import VIF_PLUGGED, InstanceEvents
from saphira.compute.network import AUTO, Networking
from saphira.compute.tracked import Failed, TrackedAction
from saphira.context import RequestContext
from saphira.domain.states import PowerState
from saphira.domain.table import Action
from saphira.objects import Instance, InstanceVIF
from saphira.virt.errors import VirtError

if TYPE_CHECKING:
    from saphira.rpc.rpcapi.conductor import ConductorAPI
    from saphira.virt.driver import ComputeDriver

LOG = logging.getLogger(__name__)
ATTACH, DETACH = "compute_attach_interface", "compute_detach_interface"
_PUBLIC: dict[int, type[exception.SaphiraError]] = {
    400: exception.BadRequest, 403: exception.Forbidden, 404: exception.NotFound,
    409: exception.Conflict, 503: exception.ServiceUnavailable,  # 503: a service away, for now
}  # fmt: skip
_RUNNING = (PowerState.RUNNING, PowerState.PAUSED)


class NicLocks:
    """One lock per server, made on first use."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}

    def __call__(self, instance_uuid: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(instance_uuid, threading.Lock())


def public(error: BaseException, instance_uuid: str, event: str) -> exception.SaphiraError:
    """The error the API may answer with: the caller's mistake keeps its status
    and words (the network service's own, for its refusals); anything else,
    the hypervisor's failures included, is Nova's InterfaceAttachFailed or
    InterfaceDetachFailed (500)."""
    code = getattr(error, "code", 500)
    if code in _PUBLIC and not isinstance(error, VirtError):
        reason = getattr(error, "reason", None) or getattr(error, "message", None) or str(error)
        return _PUBLIC[code](reason)
    if event == ATTACH:
        return exception.SaphiraError(f"Failed to attach network adapter device to {instance_uuid}")
    return exception.SaphiraError(f"Failed to detach network adapter device from {instance_uuid}")


class InterfaceMixin:
    host: str
    conductor: ConductorAPI
    network: Networking | None
    events: InstanceEvents
    plugging: VifPlugging
    nic_locks: NicLocks
    driver_for: Callable[[Instance], ComputeDriver]

    def attach_interface(
        self,
        ctxt: RequestContext,
        instance: Instance,
        network_id: str | None = None,
        port_id: str | None = None,
        requested_ip: str | None = None,
        tag: str | None = None,
    ) -> InstanceVIF:
        track = TrackedAction(
            self.conductor, ctxt, instance, Action.ATTACH_INTERFACE, ATTACH, self.host
        )
        request: Any = AUTO
        if port_id or network_id:
            item = {"port": port_id} if port_id else {"uuid": network_id}
            request = [{**item, "fixed_ip": requested_ip, "tag": tag}]

        def work() -> InstanceVIF:
            current = self.conductor.instance_get(ctxt, instance.uuid)
            if port_id and any(vif.port_id == port_id for vif in current.network_info):
                raise network_errors.PortInUse(port_id=port_id)
            return self._attach(track, current, request)

        with self.nic_locks(instance.uuid):
            attached = track.run(work)
        if isinstance(attached, Failed):
            raise public(attached.error, instance.uuid, ATTACH) from attached.error
        return attached

    def detach_interface(self, ctxt: RequestContext, instance: Instance, port_id: str) -> None:
        """A cast: a failure is the event's result and a log line, not a reply."""
        track = TrackedAction(
            self.conductor, ctxt, instance, Action.DETACH_INTERFACE, DETACH, self.host
        )

        def work() -> None:
            self._detach(track, self.conductor.instance_get(ctxt, instance.uuid), port_id)

        with self.nic_locks(instance.uuid):
            detached = track.run(work)
        if isinstance(detached, Failed):
            error = public(detached.error, instance.uuid, DETACH)
            LOG.warning("detach of port %s from %s failed: %s", port_id, instance.uuid,
                        error.message)  # fmt: skip

    # -- attach ---------------------------------------------------------------
    def _attach(self, track: TrackedAction, instance: Instance, request: Any) -> InstanceVIF:
        network = self._network()
        ports = network.allocate(instance, request, track.ctxt)
        track.done("ports", lambda: network.release(ports))
        if not ports.ports:
            raise exception.BadRequest(
                "No specific network was requested and none are available for project "
                f"'{instance.project_id}'."
            )
        (vif,) = ports.vifs()
        self._plug(track, self.driver_for(instance), instance, vif)
        cache = [*instance.network_info, vif]
        self.conductor.instance_update(track.ctxt, instance.uuid, {"network_info": cache})
        return vif

    def _plug(
        self, track: TrackedAction, driver: ComputeDriver, instance: Instance, vif: InstanceVIF
    ) -> None:
        """Attach, and wait for the port like a build does."""
        nic = vifs.driver_vif(vif)
        waiter = None
        if self._waits(driver, instance, vif):
            waiter = self.events.expect(instance.uuid, [(VIF_PLUGGED, vif.port_id)])
        try:
            driver.attach_interface(instance, nic)
            track.done("nic", lambda: driver.detach_interface(instance, nic))
            if waiter is not None:
                wait_plugged(waiter, self.plugging, self.host)
        finally:
            if waiter is not None:
                waiter.close()

    def _waits(self, driver: ComputeDriver, instance: Instance, vif: InstanceVIF) -> bool:
        if not (driver.wants_vif_plugged_events and self.plugging.timeout and not vif.active):
            return False
        return driver.get_info(instance).state in _RUNNING

    # -- detach ---------------------------------------------------------------
    def _detach(self, track: TrackedAction, instance: Instance, port_id: str) -> None:
        """NIC out of the guest, then the cache, then the port: a port given back is
        never named by the cache, and a failure puts the NIC and the cache back."""
        gone = next((vif for vif in instance.network_info if vif.port_id == port_id), None)
        if gone is None:
            raise exception.NotFound(f"Port {port_id} is not attached")
        network, driver, nic = self._network(), self.driver_for(instance), vifs.driver_vif(gone)
        driver.detach_interface(instance, nic)
        track.done("nic", lambda: driver.attach_interface(instance, nic))
        rest = [vif for vif in instance.network_info if vif.port_id != port_id]
        self._cache(track, instance.uuid, rest)
        track.done("cache", lambda: self._cache(track, instance.uuid, instance.network_info))
        network.detach(gone)

    # -- helpers ----------------------------------------------------------------
    def _network(self) -> Networking:
        if self.network is None:
            raise exception.BadRequest("No network service is configured for this cloud.")
        return self.network

    def _cache(self, track: TrackedAction, uuid: str, nics: list[InstanceVIF]) -> None:
        self.conductor.instance_update(track.ctxt, uuid, {"network_info": nics})
