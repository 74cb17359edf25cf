"""The servers API's two seams: the message bus and the image service.

``ServerBackend`` is everything the API asks of the conductor and the
compute hosts; ``RpcBackend`` sends it over ``[DEFAULT] transport_url`` with
the stubs of ``saphira.rpc.rpcapi``. Tests swap in a recorder. ``Images`` is
the image service seen with the caller's token (Nova's glance client).
"""

from __future__ import annotations

import inspect
import threading
from typing import Any, Protocol

import requests
from oslo_config import cfg

from saphira.common import tls
from saphira.conf import endpoints
from saphira.conf.ssl import scheme
from saphira.context import RequestContext
from saphira.exception import BadRequest, NotFound
from saphira.objects import BuildOrder, Flavor, Instance, RequestSpec


class ServerBackend(Protocol):
    def schedule_and_build_instances(
        self, context: RequestContext, instances: list[Instance], orders: list[BuildOrder]
    ) -> None: ...

    def migrate_server(
        self, context: RequestContext, instance: Instance, flavor: Flavor, spec: RequestSpec
    ) -> None: ...

    def cast(self, context: RequestContext, host: str, method: str, **kwargs: Any) -> None: ...

    def call(self, context: RequestContext, host: str, method: str, **kwargs: Any) -> Any: ...


class RpcBackend:
    """The conductor and compute stubs, made on first use (the bus may start later)."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf
        self._lock = threading.Lock()
        self._stubs: tuple[Any, Any] | None = None

    def _clients(self) -> tuple[Any, Any]:
        with self._lock:
            if self._stubs is None:
                from saphira.rpc.rpcapi import compute, conductor
                from saphira.rpc.transport import get_rpc_transport

                transport = get_rpc_transport(self.conf)
                self._stubs = (conductor.ConductorAPI(transport), compute.ComputeAPI(transport))
            return self._stubs

    def schedule_and_build_instances(
        self, context: RequestContext, instances: list[Instance], orders: list[BuildOrder]
    ) -> None:
        self._clients()[0].schedule_and_build_instances(context, instances, orders)

    def migrate_server(
        self, context: RequestContext, instance: Instance, flavor: Flavor, spec: RequestSpec
    ) -> None:
        self._clients()[0].migrate_server(context, instance, flavor, spec)

    def cast(self, context: RequestContext, host: str, method: str, **kwargs: Any) -> None:
        self.call(context, host, method, **kwargs)

    def call(self, context: RequestContext, host: str, method: str, **kwargs: Any) -> Any:
        """ComputeAPI's method; most find the host on the instance, events take it."""
        stub = getattr(self._clients()[1], method)
        if "host" in inspect.signature(stub).parameters:
            kwargs["host"] = host
        return stub(context, **kwargs)


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
