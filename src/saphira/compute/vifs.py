"""A bound port as the info cache keeps it, and the cache as the driver's NICs."""

from __future__ import annotations

from typing import Any

from saphira.objects import Instance, InstanceVIF
from saphira.virt.types import VIF, NetworkInfo


def instance_vif(
    port: dict[str, Any], network: dict[str, Any], preserve: bool, tag: str | None = None
) -> InstanceVIF:
    """``port`` and its ``network`` as the network service shows them to an admin."""
    details = port.get("binding:vif_details") or {}
    mtu = network.get("mtu")
    return InstanceVIF(
        port_id=port["id"],
        mac_address=port["mac_address"],
        network_id=port["network_id"],
        network_name=str(network.get("name") or ""),
        fixed_ips=[ip["ip_address"] for ip in port.get("fixed_ips") or []],
        vif_type=str(port.get("binding:vif_type") or ""),
        bridge=details.get("bridge_name"),
        mtu=int(mtu) if mtu else None,
        active=port.get("status") == "ACTIVE",
        preserve_on_delete=preserve,
        tag=tag,
    )


def network_info(instance: Instance) -> NetworkInfo:
    """The guest's NICs, from the info cache (no call to the network service)."""
    return tuple(driver_vif(cached) for cached in instance.network_info)


def driver_vif(cached: InstanceVIF) -> VIF:
    return VIF(
        id=cached.port_id,
        address=cached.mac_address,
        network_id=cached.network_id,
        vif_type=cached.vif_type,
        bridge=cached.bridge,
        mtu=cached.mtu,
        fixed_ips=tuple(cached.fixed_ips),
    )
