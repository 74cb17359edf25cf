"""The DHCP agent on Open vSwitch (userspace datapath): the DHCP port as an OVS port.

ovsdb-server and ovs-vswitchd are started by the project's starter if they
are not running, and left running, as the test command does for the suite.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saphira.network.dhcp import config
from saphira.network.dhcp.agent import DhcpAgent, Wire
from saphira.network.ovs_daemons import ensure_running
from tests.environment import require_tools

from .dhcp_host import (
    assert_nothing_left,
    guest,
    host,
    lease,
    make_network,
    ovs_bridge,
    sh,
    state_dir,
)

pytestmark = pytest.mark.integration


@pytest.fixture
def bridge() -> Iterator[str]:
    require_tools("dnsmasq", "busybox", "ip", "ethtool", "ovs-vsctl")
    ensure_running()
    with ovs_bridge() as name:
        yield name


@pytest.mark.parametrize("vlan", [None, 101])
def test_a_guest_on_ovs_gets_its_port(bridge: str, vlan: int | None, tmp_path: Path) -> None:
    network = make_network(host("10.77.0.10"))
    port = config.device_name(network.dhcp_port.port_id)
    with state_dir() as root:
        agent = DhcpAgent(root, lambda _: Wire(bridge, vlan), interface="ovs")
        try:
            assert agent.sync([network]).started == [network.network_id]
            iface_id = sh("ovs-vsctl", "get", "Interface", port, "external_ids:iface-id")
            assert iface_id.strip().strip('"') == network.dhcp_port.port_id
            assert sh("ovs-vsctl", "get", "Port", port, "tag").strip() == str(vlan or "[]")
            with guest(bridge, network.hosts[0].mac_address, ovs=True, tag=vlan) as vm:
                got = lease(vm, tmp_path)
            assert got is not None and got["ip"] == "10.77.0.10"
            if vlan:  # the same MAC on the untagged side is on another wire
                with guest(bridge, network.hosts[0].mac_address, ovs=True) as outsider:
                    assert lease(outsider, tmp_path, tries=2) is None
            assert agent.sync([network]).unchanged == [network.network_id]
        finally:
            assert agent.sync([]).failed == {}
        assert_nothing_left(root, network.network_id, network.dhcp_port.port_id, ovs=True)
        assert sh("ovs-vsctl", "list-ports", bridge).strip() == ""
