"""The servers API's seam to the message bus (the image service's is
``saphira.clients.image.Images``).

``ServerBackend`` is everything the API asks of the conductor and (through
the typed ``ComputeHosts``) of the compute hosts; ``RpcBackend`` sends it
over ``[DEFAULT] transport_url`` with the stubs of ``saphira.rpc.rpcapi``.
Tests swap in a recorder.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from oslo_config import cfg

from saphira.context import RequestContext
from saphira.objects import (
    BuildOrder,
    ConsoleEndpoint,
    ConsoleType,
    Flavor,
    Instance,
    InstanceVIF,
    RequestSpec,
)

if TYPE_CHECKING:  # the stubs (and oslo.messaging) load on first use
    from saphira.rpc.rpcapi.compute import ComputeAPI
    from saphira.rpc.rpcapi.conductor import ConductorAPI


class ComputeHosts(Protocol):
    """What the API asks of compute hosts: ComputeAPI's methods it uses, typed.

    ``saphira.rpc.rpcapi.compute.ComputeAPI`` is one (each method refuses,
    before sending, a version the bus is pinned below); tests record instead.
    """

    def terminate_instance(self, ctxt: RequestContext, instance: Instance) -> None: ...

    def start_instance(self, ctxt: RequestContext, instance: Instance) -> None: ...

    def stop_instance(self, ctxt: RequestContext, instance: Instance) -> None: ...

    def reboot_instance(
        self, ctxt: RequestContext, instance: Instance, reboot_type: str
    ) -> None: ...

    def rebuild_instance(
        self,
        ctxt: RequestContext,
        instance: Instance,
        image_ref: str,
        image: dict[str, Any],
        *,
        admin_password: str | None = None,
        preserve_ephemeral: bool = False,
    ) -> None: ...

    def pause_instance(self, ctxt: RequestContext, instance: Instance) -> None: ...

    def unpause_instance(self, ctxt: RequestContext, instance: Instance) -> None: ...

    def suspend_instance(self, ctxt: RequestContext, instance: Instance) -> None: ...

    def resume_instance(self, ctxt: RequestContext, instance: Instance) -> None: ...

    def confirm_resize(self, ctxt: RequestContext, instance: Instance) -> None: ...

    def revert_resize(self, ctxt: RequestContext, instance: Instance) -> None: ...

    def snapshot_instance(
        self, ctxt: RequestContext, instance: Instance, image_id: str
    ) -> None: ...

    def get_console_output(
        self, ctxt: RequestContext, instance: Instance, tail_length: int | None = None
    ) -> str: ...

    def get_console_endpoint(
        self, ctxt: RequestContext, instance: Instance, console_type: ConsoleType
    ) -> ConsoleEndpoint: ...

    def attach_interface(
        self,
        ctxt: RequestContext,
        instance: Instance,
        network_id: str | None = None,
        port_id: str | None = None,
        requested_ip: str | None = None,
        tag: str | None = None,
        *,
        timeout: float | None = None,
    ) -> InstanceVIF: ...

    def detach_interface(self, ctxt: RequestContext, instance: Instance, port_id: str) -> None: ...

    def get_host_uptime(self, ctxt: RequestContext, host: str) -> str: ...

    def external_instance_event(
        self, ctxt: RequestContext, host: str, events: list[dict[str, Any]]
    ) -> None: ...


# One cast to the instance's host: (the hosts, the caller's context, the instance).
HostCast = Callable[[ComputeHosts, RequestContext, Instance], None]


class ServerBackend(Protocol):
    """The conductor's tasks the API starts, and the compute hosts."""

    @property
    def compute(self) -> ComputeHosts: ...

    def schedule_and_build_instances(
        self, context: RequestContext, instances: list[Instance], orders: list[BuildOrder]
    ) -> None: ...

    def migrate_server(
        self, context: RequestContext, instance: Instance, flavor: Flavor, spec: RequestSpec
    ) -> None: ...

    def evacuate_server(
        self, context: RequestContext, instance: Instance, spec: RequestSpec
    ) -> None: ...


class RpcBackend:
    """The conductor and compute stubs, made on first use (the bus may start later)."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf
        self._lock = threading.Lock()
        self._stubs: tuple[ConductorAPI, ComputeAPI] | None = None

    def _clients(self) -> tuple[ConductorAPI, ComputeAPI]:
        with self._lock:
            if self._stubs is None:
                from saphira.rpc.rpcapi.compute import ComputeAPI
                from saphira.rpc.rpcapi.conductor import ConductorAPI
                from saphira.rpc.transport import get_rpc_transport

                transport = get_rpc_transport(self.conf)
                self._stubs = (ConductorAPI(transport), ComputeAPI(transport))
            return self._stubs

    @property
    def compute(self) -> ComputeAPI:
        return self._clients()[1]

    def schedule_and_build_instances(
        self, context: RequestContext, instances: list[Instance], orders: list[BuildOrder]
    ) -> None:
        self._clients()[0].schedule_and_build_instances(context, instances, orders)

    def migrate_server(
        self, context: RequestContext, instance: Instance, flavor: Flavor, spec: RequestSpec
    ) -> None:
        self._clients()[0].migrate_server(context, instance, flavor, spec)

    def evacuate_server(
        self, context: RequestContext, instance: Instance, spec: RequestSpec
    ) -> None:
        self._clients()[0].evacuate_server(context, instance, spec)
