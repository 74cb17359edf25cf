"""Look-ups of many guests of one network at once become one request (group commit).

When a boot storm's first requests arrive together, each would cost the
network API a port list of its own. Here one look-up per network is in
flight at a time; the addresses asked for meanwhile wait in the next batch,
which its first asker sends as one list filtered by all of them
(``fixed_ips=ip_address=a&fixed_ips=ip_address=b...``, ORed as Neutron does).
A batch holds at most ``MAX_BATCH`` addresses, so the query stays short.
Link-local addresses (matched by MAC) are looked up alone.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import defaultdict
from typing import Any

from saphira.network.metadata.resolver import (
    InstancePort,
    NetworkServicePorts,
    instance_port,
    mac_of_link_local,
)

MAX_BATCH = 64


@dataclasses.dataclass
class _Batch:
    addresses: set[str] = dataclasses.field(default_factory=set)
    done: threading.Event = dataclasses.field(default_factory=threading.Event)
    found: dict[str, InstancePort] = dataclasses.field(default_factory=dict)
    error: Exception | None = None


def by_address(ports: list[dict[str, Any]], addresses: set[str]) -> dict[str, InstancePort]:
    """Each asked address's instance (exactly one instance port holding it, as alone)."""
    holders: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for port in ports:
        for fixed in port.get("fixed_ips") or []:
            if fixed.get("ip_address") in addresses:
                holders[fixed["ip_address"]].append(port)
    found = {address: instance_port(held) for address, held in holders.items()}
    return {address: port for address, port in found.items() if port is not None}


class BatchingPorts:
    def __init__(self, ports: NetworkServicePorts) -> None:
        self.ports = ports
        self._lock = threading.Lock()
        self._pending: dict[str, _Batch] = {}
        self._in_flight: dict[str, threading.Lock] = defaultdict(threading.Lock)

    def resolve(self, network_id: str, address: str) -> InstancePort | None:
        if mac_of_link_local(address) is not None:
            return self.ports.resolve(network_id, address)
        batch, in_flight = self._join(network_id, address)
        if in_flight is not None:
            self._send(network_id, batch, in_flight)
        else:
            batch.done.wait()
        if batch.error is not None:
            raise batch.error
        return batch.found.get(address)

    def _join(self, network_id: str, address: str) -> tuple[_Batch, threading.Lock | None]:
        """The batch to wait for, and the network's lock if this asker sends it."""
        with self._lock:
            batch = self._pending.get(network_id)
            if batch is not None and len(batch.addresses) < MAX_BATCH:
                batch.addresses.add(address)
                return batch, None
            batch = self._pending[network_id] = _Batch({address})
            return batch, self._in_flight[network_id]

    def _send(self, network_id: str, batch: _Batch, in_flight: threading.Lock) -> None:
        with in_flight:  # the batch fills while the one before is out
            with self._lock:
                if self._pending.get(network_id) is batch:
                    del self._pending[network_id]
            try:
                filters = [f"ip_address={address}" for address in sorted(batch.addresses)]
                listed = self.ports.client.list_ports(network_id=network_id, fixed_ips=filters)
                batch.found = by_address(listed, batch.addresses)
            except Exception as error:  # handed to every asker of the batch, raised there
                batch.error = error
            finally:
                batch.done.set()
