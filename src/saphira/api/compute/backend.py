"""The servers API's seam to the message bus (the image service's is
``saphira.clients.image.Images``).

``ServerBackend`` is everything the API asks of the conductor and the
compute hosts; ``RpcBackend`` sends it over ``[DEFAULT] transport_url`` with
the stubs of ``saphira.rpc.rpcapi``. Tests swap in a recorder.
"""

from __future__ import annotations

import inspect
import threading
from typing import Any, Protocol

from oslo_config import cfg

from saphira.context import RequestContext
from saphira.objects import Flavor, Instance, RequestSpec


class ServerBackend(Protocol):
    def schedule_and_build_instances(
        self,
        context: RequestContext,
        instances: list[Instance],
        specs: list[RequestSpec],
        image: dict[str, Any],
        admin_password: str | None,
        requested_networks: list[dict[str, Any]] | None,
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
        self,
        context: RequestContext,
        instances: list[Instance],
        specs: list[RequestSpec],
        image: dict[str, Any],
        admin_password: str | None,
        requested_networks: list[dict[str, Any]] | None,
    ) -> None:
        self._clients()[0].schedule_and_build_instances(
            context,
            instances,
            specs,
            image,
            admin_password=admin_password,
            requested_networks=requested_networks,
        )

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
