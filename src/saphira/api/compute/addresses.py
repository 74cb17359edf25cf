"""A server's addresses as Nova shows them: by network name, from the info cache.

``GET /servers/{id}`` (and the detail list, and PUT/rebuild from 2.75) adds
each address's type and MAC (``extended``); ``/servers/{id}/ips`` and a PUT or
rebuild before 2.75 show only version and address, as tempest's schemas
require. A server still building shows none, as in Nova.
"""

from __future__ import annotations

from typing import Any

from saphira.domain.states import VmState
from saphira.objects import Instance


def by_network(instance: Instance, extended: bool) -> dict[str, list[dict[str, Any]]]:
    """Network name -> its addresses, networks in the order of the server's NICs."""
    found: dict[str, list[dict[str, Any]]] = {}
    for vif in instance.network_info:
        ips = found.setdefault(vif.network_name, [])
        for address in vif.fixed_ips:
            ip: dict[str, Any] = {"version": 6 if ":" in address else 4, "addr": address}
            if extended:
                ip.update({"OS-EXT-IPS:type": "fixed", "OS-EXT-IPS-MAC:mac_addr": vif.mac_address})
            ips.append(ip)
    return found


def server_addresses(instance: Instance, extended: bool) -> dict[str, list[dict[str, Any]]]:
    if instance.vm_state is VmState.BUILDING:
        return {}
    return by_network(instance, extended)
