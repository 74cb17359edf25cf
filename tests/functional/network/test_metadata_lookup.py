"""The metadata agent's look-up against the real network API over HTTP, with an admin
token as the ``[neutron]`` service user has: (network, fixed IP) -> the instance's port."""

from __future__ import annotations

import ipaddress

from saphira.clients.network import NetworkClient
from saphira.network.metadata.batching import BatchingPorts
from saphira.network.metadata.resolver import InstancePort, NetworkServicePorts
from tests.functional.identity.server import serve
from tests.functional.network.conftest import Neutron


def test_the_port_is_found_by_network_and_address_and_only_an_instances(neutron: Neutron) -> None:
    first, second = neutron.network(), neutron.network()
    for network, cidr in ((first, "10.61.0.0/24"), (second, "10.62.0.0/24")):
        neutron.subnet(network["id"], cidr)
    demo = neutron.projects["demo"]
    vm = neutron.port(first["id"], device_id="vm-0001", device_owner="compute:nova",
                      project_id=demo, fixed_ips=[{"ip_address": "10.61.0.10"}])  # fmt: skip
    neutron.port(first["id"], device_id="dhcp-host", device_owner="network:dhcp",
                 fixed_ips=[{"ip_address": "10.61.0.11"}])  # fmt: skip
    with serve(neutron.client.application) as url:
        ports = NetworkServicePorts(NetworkClient(url, lambda: neutron.tokens["admin"]))
        assert ports.resolve(first["id"], "10.61.0.10") == InstancePort("vm-0001", demo)
        assert ports.resolve(second["id"], "10.61.0.10") is None
        assert ports.resolve(first["id"], "10.61.0.11") is None
        assert ports.resolve(first["id"], "10.61.0.12") is None
        link_local = eui64_link_local(vm["mac_address"])
        assert ports.resolve(first["id"], link_local) == InstancePort("vm-0001", demo)
        assert ports.resolve(second["id"], link_local) is None
        batching = BatchingPorts(ports)  # the same answers through the batched list
        assert batching.resolve(first["id"], "10.61.0.10") == InstancePort("vm-0001", demo)
        assert batching.resolve(first["id"], "10.61.0.11") is None
        assert batching.resolve(second["id"], "10.61.0.10") is None
    assert vm["project_id"] == demo


def eui64_link_local(mac: str) -> str:
    """The address a guest's kernel makes for itself from its MAC (RFC 4291 appendix A)."""
    octets = [int(part, 16) for part in mac.split(":")]
    octets[0] ^= 0x02
    iid = bytes([*octets[:3], 0xFF, 0xFE, *octets[3:]])
    return str(ipaddress.IPv6Address(b"\xfe\x80" + bytes(6) + iid)) + "%eth0"
