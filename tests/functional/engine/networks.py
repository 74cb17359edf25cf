"""The network service beside the in-process plane: served over HTTP with the
plane's identity, so the compute hosts' NetworkClient talks to the real API.

No agents run: ``wire(host)`` records an L2 agent's heartbeat (so ports bind
to that host) and ``plugged(host, ports)`` is the agent's report that they are
wired, which is what turns them ACTIVE and tells the compute API.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import requests

from saphira.api.auth import LocalValidator
from saphira.api.compute.app import ComputeApp
from saphira.api.compute.state import ComputeState
from saphira.api.network import build_app, build_backend
from saphira.api.network.app import Backend
from saphira.clients.compute_events import ComputeEvents
from saphira.clients.network import NetworkClient
from saphira.context import RequestContext
from saphira.db.network import sync
from saphira.netsvc.agents import AgentRegistry
from saphira.netsvc.plugin_rpc import PluginEndpoint
from saphira.objects.network import OVS_AGENT
from tests.functional.compute.servers_harness import check as _check
from tests.functional.engine.conftest import Plane
from tests.functional.identity.server import serve
from tests.wsgi import JsonResponse

BRIDGE = "br-sxtest"


@dataclass
class Neutron:
    url: str
    backend: Backend
    token: Callable[[], str]  # the admin's
    compute_url: str

    def ok(self, method: str, path: str, status: int = 200, body: Any = None) -> Any:
        response = requests.request(method, f"{self.url}/v2.0{path}", json=body, timeout=30,
                                    headers={"X-Auth-Token": self.token()})  # fmt: skip
        assert response.status_code == status, response.text
        return response.json() if response.content else None

    def network(self, name: str, project_id: str, cidr: str, **attrs: Any) -> dict[str, Any]:
        """A network with one IPv4 subnet."""
        body = {"network": {"name": name, "project_id": project_id, **attrs}}
        network: dict[str, Any] = self.ok("POST", "/networks", 201, body)["network"]
        subnet = {"network_id": network["id"], "cidr": cidr, "ip_version": 4,
                  "project_id": project_id}  # fmt: skip
        self.ok("POST", "/subnets", 201, {"subnet": subnet})
        return network

    def port(self, network_id: str, project_id: str, **attrs: Any) -> dict[str, Any]:
        body = {"port": {"network_id": network_id, "project_id": project_id, **attrs}}
        port: dict[str, Any] = self.ok("POST", "/ports", 201, body)["port"]
        return port

    def ports(self, **filters: str) -> list[dict[str, Any]]:
        query = "&".join(f"{key}={value}" for key, value in filters.items())
        found: list[dict[str, Any]] = self.ok("GET", f"/ports?{query}")["ports"]
        return found

    def show_port(self, port_id: str) -> dict[str, Any]:
        port: dict[str, Any] = self.ok("GET", f"/ports/{port_id}")["port"]
        return port

    def wire(self, host: str) -> None:
        registry = AgentRegistry(self.backend.db, self.backend.settings)
        registry.report_state(OVS_AGENT, "neutron-openvswitch-agent", host,
                              {"bridge_mappings": {"physnet1": BRIDGE}})  # fmt: skip

    def plugged(self, host: str, port_ids: list[str]) -> None:
        """The L2 agent's report, through the service's endpoint and its notifier."""
        notifier = ComputeEvents(self.compute_url, self.token)
        endpoint = PluginEndpoint(
            self.backend.db, self.backend.settings, self.backend.enforcer, notifier
        )
        endpoint.ports_status(RequestContext(), host, port_ids, [])


def compute_state(plane: Plane) -> ComputeState:
    """The compute API's state, behind its middlewares (request id, /openapi.json, token)."""
    app: object = plane.api.app
    while not isinstance(app, ComputeApp):
        assert hasattr(app, "app"), f"no compute app behind {app!r}"
        app = app.app
    return app.state


@contextmanager
def serve_network(plane: Plane) -> Iterator[Neutron]:
    """Compute hosts added from now on get NICs from this service; the compute
    API's proxies and server bodies ask it too."""
    backend = build_backend(plane.conf)
    sync(backend.db.engine)
    validator = LocalValidator(plane.api.identity.backend)
    admin = lambda: plane.api.token("admin")  # noqa: E731 - a token provider
    try:
        with serve(build_app(plane.conf, validator, backend)) as url, serve(plane.api.app) as api:
            plane.network = NetworkClient(url, admin)
            compute_state(plane).network_url = url
            yield Neutron(url, backend, admin, f"{api}/v2.1")
    finally:
        backend.db.engine.dispose()


# -- what the compute API's network tests share ---------------------------------
def check(schema: dict[str, Any], response: JsonResponse) -> Any:
    """tempest's validator, after the status it expects (it lets errors through)."""
    assert response.status_code in schema["status_code"], response.get_data(True)
    return _check(schema, response)


def refused(response: JsonResponse, status: int, message: str) -> None:
    """A fault in Nova's shape, with exactly this message."""
    assert response.status_code == status, response.get_data(True)
    (fault,) = response.get_json().values()
    assert fault == {"code": status, "message": message}


def project(plane: Plane) -> str:
    return plane.api.project_id("demo")


def server_on(plane: Plane, network: dict[str, Any]) -> str:
    """An ACTIVE server of the demo project with one port on ``network``."""
    response = plane.api.create(networks=[{"uuid": network["id"]}])
    assert response.status_code == 202, response.get_data(True)
    server_id = str(response.get_json()["server"]["id"])
    plane.api.wait(server_id, "ACTIVE")
    return server_id
