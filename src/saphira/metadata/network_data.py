"""``network_data.json`` from the network info cache (Nova's ``netutils.get_network_metadata``).

One link per NIC and one network per fixed address. Every address is
``ipv4_dhcp``/``ipv6_dhcp``: the cache keeps no subnet details (prefix,
gateway, routes, DNS), and every subnet Saphira's DHCP agent serves hands
them out, so the guest asks DHCP as Nova tells it to for a DHCP subnet.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from saphira.objects.network_info import InstanceVIF


@dataclass(frozen=True)
class Link:
    id: str
    vif_id: str
    type: str
    mtu: int | None
    ethernet_mac_address: str


@dataclass(frozen=True)
class Network:
    id: str
    type: str
    link: str
    network_id: str


@dataclass(frozen=True)
class NetworkData:
    links: tuple[Link, ...] = ()
    networks: tuple[Network, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "links": [vars(link) for link in self.links],
            "networks": [vars(network) for network in self.networks],
            "services": [],
        }


def network_data(vifs: list[InstanceVIF]) -> NetworkData:
    links: list[Link] = []
    networks: list[Network] = []
    for vif in vifs:
        link = Link(f"tap{vif.port_id[:11]}", vif.port_id, vif.vif_type or "ovs", vif.mtu,
                    vif.mac_address)  # fmt: skip
        links.append(link)
        for address in vif.fixed_ips:
            family = ipaddress.ip_address(address).version
            networks.append(Network(f"network{len(networks)}", f"ipv{family}_dhcp", link.id,
                                    vif.network_id))  # fmt: skip
    return NetworkData(tuple(links), tuple(networks))
