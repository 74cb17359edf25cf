"""The servers API's two seams: the message bus and the image service.

``ServerBackend`` is everything the API asks of the conductor and (through
the typed ``ComputeHosts``) of the compute hosts; ``RpcBackend`` sends it
over ``[DEFAULT] transport_url`` with the stubs of ``saphira.rpc.rpcapi``.
Tests swap in a recorder. ``Images`` is
the image service seen with the caller's token (Nova's glance client).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import requests
from oslo_config import cfg

from saphira.common import tls
from saphira.conf import endpoints
from saphira.conf.ssl import scheme
from saphira.context import RequestContext
from saphira.exception import BadRequest, NotFound
from saphira.objects import BuildOrder, Flavor, Instance, InstanceVIF, RequestSpec

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


class Images(Protocol):
    def get(self, token: str, image_id: str) -> dict[str, Any]: ...

    def create(self, token: str, body: dict[str, Any]) -> dict[str, Any]: ...


class HttpImages:
    """Glance v2 over HTTP with the caller's token: visibility is the image service's."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        servers = list(conf.glance.api_servers or [])
        self.base = (servers[0] if servers else _local_image_url(conf)).rstrip("/")

    def get(self, token: str, image_id: str) -> dict[str, Any]:
        response = requests.get(
            f"{self.base}/v2/images/{image_id}",
            headers={"X-Auth-Token": token},
            timeout=30,
            verify=tls.verify(),
        )
        if response.status_code == 404:
            raise BadRequest(f"Image {image_id} could not be found.")
        response.raise_for_status()
        image: dict[str, Any] = response.json()
        return image

    def create(self, token: str, body: dict[str, Any]) -> dict[str, Any]:
        response = requests.post(
            f"{self.base}/v2/images",
            json=body,
            headers={"X-Auth-Token": token},
            timeout=30,
            verify=tls.verify(),
        )
        if response.status_code >= 400:
            raise NotFound(f"Image service refused the snapshot: {response.text[:200]}")
        image: dict[str, Any] = response.json()
        return image


def _local_image_url(conf: cfg.ConfigOpts) -> str:
    endpoint = endpoints.by_type("image")
    return f"{scheme(conf)}://127.0.0.1:{endpoints.listen_port(conf, endpoint)}"
