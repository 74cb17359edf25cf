"""(network id, guest address) -> the instance and project behind that port.

``NetworkServicePorts`` asks the network API with the ``[neutron]`` service
user's token, as Neutron's metadata agent once did with its own credentials
(port list filtered by ``network_id`` and ``fixed_ips=ip_address=``); a
request from an IPv6 link-local address is matched by the MAC its EUI-64
interface id carries. ``CachedResolver`` keeps an answer for a few seconds,
as Neutron caches its port look-ups, so a guest's burst of requests at boot
costs one look-up.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from saphira.clients.network import Filter

INSTANCE_OWNER_PREFIX = "compute:"
PURGE_AT = 1024  # expired answers are dropped once the cache holds this many


@dataclasses.dataclass(frozen=True)
class InstancePort:
    instance_id: str
    project_id: str


class Resolver(Protocol):
    def resolve(self, network_id: str, address: str) -> InstancePort | None: ...


def mac_of_link_local(address: str) -> str | None:
    """The MAC an EUI-64 link-local address was made from (None for any other address)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if ip.version != 6 or not ip.is_link_local:
        return None
    iid = ip.packed[8:]
    if iid[3:5] != b"\xff\xfe":
        return None
    mac = bytes([iid[0] ^ 0x02, *iid[1:3], *iid[5:8]])
    return ":".join(f"{byte:02x}" for byte in mac)


def instance_port(ports: list[dict[str, Any]]) -> InstancePort | None:
    """Exactly one instance's port, or nothing (as Neutron: more than one is no answer)."""
    found = [
        port
        for port in ports
        if port.get("device_id")
        and str(port.get("device_owner", "")).startswith(INSTANCE_OWNER_PREFIX)
    ]
    if len(found) != 1:
        return None
    port = found[0]
    return InstancePort(str(port["device_id"]), str(port.get("project_id") or port["tenant_id"]))


class PortLister(Protocol):
    """What of ``NetworkClient`` the look-up uses (its port list with Neutron's filters)."""

    def list_ports(self, **filters: Filter) -> list[dict[str, Any]]: ...


class NetworkServicePorts:
    def __init__(self, client: PortLister) -> None:
        self.client = client

    def resolve(self, network_id: str, address: str) -> InstancePort | None:
        mac = mac_of_link_local(address)
        if mac is not None:
            ports = self.client.list_ports(network_id=network_id, mac_address=mac)
        else:
            ports = self.client.list_ports(network_id=network_id, fixed_ips=f"ip_address={address}")
        return instance_port(ports)


class CachedResolver:
    """Found instances kept ``seconds``; an address with no port is asked again each time."""

    def __init__(
        self,
        inner: Resolver,
        seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.inner, self.seconds, self.clock = inner, seconds, clock
        self._found: dict[tuple[str, str], tuple[float, InstancePort]] = {}
        self._lock = threading.Lock()

    def resolve(self, network_id: str, address: str) -> InstancePort | None:
        key = (network_id, address)
        now = self.clock()
        with self._lock:
            hit = self._found.get(key)
            if hit is not None and hit[0] > now:
                return hit[1]
        found = self.inner.resolve(network_id, address)
        if found is not None and self.seconds > 0:
            with self._lock:
                if len(self._found) >= PURGE_AT:
                    self._found = {k: v for k, v in self._found.items() if v[0] > now}
                self._found[key] = (now + self.seconds, found)
        return found
