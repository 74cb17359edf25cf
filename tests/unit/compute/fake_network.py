"""An in-memory network service behind NetworkClient's interface, for the agent's tests.

It binds as the real one does (host with an agent -> "ovs", else
"binding_failed") and refuses with the client's own error classes. A client
from ``as_user`` shares the service's state but writes as that user: every
write is logged as ``(who, method, attribute names)``, and a user may not
bind a port nor set its owner (the network service's admin-only attributes).
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

from saphira.clients.network import (
    Filter,
    NetworkClient,
    NetworkConflict,
    NetworkForbidden,
    NetworkNotFound,
)

SERVICE = "service"
ADMIN_ONLY = ("binding:host_id", "device_owner")

_ids = itertools.count(1)


def _matches(item: dict[str, Any], filters: dict[str, Filter]) -> bool:
    return all(item.get(key) == value for key, value in filters.items())


class FakeNetworkClient(NetworkClient):
    def __init__(self, wired_hosts: tuple[str, ...] = ("h1",)) -> None:
        super().__init__("http://unused", lambda: "token")
        self.wired_hosts = wired_hosts
        self.networks: dict[str, dict[str, Any]] = {}
        self.ports: dict[str, dict[str, Any]] = {}
        self.groups: list[dict[str, Any]] = []
        self.used_ips: set[str] = set()
        self.who = SERVICE
        self.writes: list[tuple[str, str, tuple[str, ...]]] = []

    def as_user(self, token: str) -> FakeNetworkClient:
        user = copy.copy(self)  # the same dicts and log: one service, another caller
        user.who = token
        return user

    def _write(self, method: str, attrs: dict[str, Any]) -> None:
        self.writes.append((self.who, method, tuple(sorted(attrs))))
        if self.who != SERVICE and any(attrs.get(key) for key in ADMIN_ONLY):
            raise NetworkForbidden("disallowed by policy", "PolicyNotAuthorized")

    def add_network(self, name: str, project_id: str = "p1", **attrs: Any) -> dict[str, Any]:
        network = {
            "id": f"net-{name}", "name": name, "project_id": project_id, "shared": False,
            "router:external": False, "mtu": 1450, "subnets": [f"sub-{name}"], **attrs,
        }  # fmt: skip
        self.networks[network["id"]] = network
        return network

    def add_port(self, network_id: str, project_id: str = "p1", **attrs: Any) -> dict[str, Any]:
        port = self._new_port({"network_id": network_id, "project_id": project_id, **attrs})
        return port

    # -- NetworkClient --------------------------------------------------------
    def list_networks(self, **filters: Filter) -> list[dict[str, Any]]:
        return [n for n in self.networks.values() if _matches(n, filters)]

    def show_network(self, network_id: str) -> dict[str, Any]:
        if network_id not in self.networks:
            raise NetworkNotFound(f"Network {network_id} could not be found.", "NetworkNotFound")
        return dict(self.networks[network_id])

    def list_ports(self, **filters: Filter) -> list[dict[str, Any]]:
        return [dict(p) for p in self.ports.values() if _matches(p, filters)]

    def show_port(self, port_id: str) -> dict[str, Any]:
        if port_id not in self.ports:
            raise NetworkNotFound(f"Port {port_id} could not be found.", "PortNotFound")
        return dict(self.ports[port_id])

    def create_port(self, attrs: dict[str, Any]) -> dict[str, Any]:
        self._write("create_port", attrs)
        self.show_network(attrs["network_id"])
        return dict(self._new_port(attrs))

    def update_port(self, port_id: str, attrs: dict[str, Any]) -> dict[str, Any]:
        port = self.ports[self.show_port(port_id)["id"]]
        self._write("update_port", attrs)
        port.update(attrs)
        port["binding:host_id"] = port.get("binding:host_id") or ""
        self._bind(port)
        return dict(port)

    def delete_port(self, port_id: str) -> None:
        self.show_port(port_id)
        self._write("delete_port", {})
        del self.ports[port_id]

    def list_security_groups(self, **filters: Filter) -> list[dict[str, Any]]:
        return [g for g in self.groups if _matches(g, filters)]

    # -- internals --------------------------------------------------------------
    def _new_port(self, attrs: dict[str, Any]) -> dict[str, Any]:
        n = next(_ids)
        wanted = [f.get("ip_address") for f in attrs.pop("fixed_ips", [])]
        ip = wanted[0] if wanted else f"10.0.0.{n}"
        if ip in self.used_ips:
            raise NetworkConflict(f"IP address {ip} already allocated in subnet sub",
                                  "IpAddressAlreadyAllocated")  # fmt: skip
        self.used_ips.add(ip)
        port = {"id": f"port-{n}", "mac_address": f"fa:16:3e:00:00:{n:02x}", "status": "DOWN",
                "device_id": "", "device_owner": "", "binding:host_id": "",
                "fixed_ips": [{"subnet_id": "sub", "ip_address": ip}], **attrs}  # fmt: skip
        self._bind(port)
        self.ports[port["id"]] = port
        return port

    def _bind(self, port: dict[str, Any]) -> None:
        host = port.get("binding:host_id")
        if not host:
            port["binding:vif_type"], port["binding:vif_details"] = "unbound", {}
        elif host in self.wired_hosts:
            port["binding:vif_type"] = "ovs"
            port["binding:vif_details"] = {"bridge_name": "br-physnet1"}
        else:
            port["binding:vif_type"], port["binding:vif_details"] = "binding_failed", {}
