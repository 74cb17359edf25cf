"""`saphira up` with its provider network: the real CLI sees the agents and the network.

The cloud gets a bridge and a subnet of its own (random names), so it shares
nothing with other clouds on this host; the test removes the bridge, the
DHCP namespace and dnsmasq it leaves behind (they outlive `saphira up` by
design, like running guests) with `saphira purge`.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterator
from typing import Any

import pytest

from saphira.devtools.leftovers import purge
from saphira.privsep import netns
from tests.functional.cloud import Cloud, start_cloud
from tests.integration.libvirt.guests import qemu_reachable_dir
from tests.polling import wait_for

pytestmark = [pytest.mark.functional, pytest.mark.xdist_group("ovs")]


@pytest.fixture(scope="module")
def bridge() -> str:
    return f"sxbr{secrets.token_hex(4)}"


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory, bridge: str) -> Iterator[Cloud]:
    cidr = f"10.{random.randrange(100, 250)}.{random.randrange(0, 250)}.0/24"
    conf = tmp_path_factory.mktemp("conf") / "network.conf"
    conf.write_text(f"[ovs]\nbridge_mappings = physnet1:{bridge}\n[provider]\ncidr = {cidr}\n")
    with qemu_reachable_dir("net") as root:
        running = start_cloud(str(root), ["--provider-network", "--config-file", str(conf)])
        try:
            yield running
            assert running.stop() == 0, running.log()
        finally:
            running.kill()
            purge(running.state_dir)


def test_agents_alive_with_the_bridge_mapping(cloud: Cloud, bridge: str) -> None:
    def both_alive() -> list[dict[str, Any]] | None:
        listed: list[dict[str, Any]] = cloud.openstack("network", "agent", "list", "-f", "json")
        return listed if sorted(a["Agent Type"] for a in listed if a["Alive"]) == [
            "DHCP agent", "Open vSwitch agent"] else None  # fmt: skip

    listed = wait_for("two agents alive", both_alive)
    ovs = next(a for a in listed if a["Agent Type"] == "Open vSwitch agent")
    shown = cloud.openstack("network", "agent", "show", ovs["ID"], "-f", "json")
    assert shown["configuration"]["bridge_mappings"] == {"physnet1": bridge}


def test_the_provider_network_is_shared_and_served(cloud: Cloud) -> None:
    network = cloud.openstack("network", "show", "provider", "-f", "json")
    assert network["shared"] is True
    assert network["provider:network_type"] == "flat"
    wait_for("its DHCP namespace", lambda: f"qdhcp-{network['id']}" in netns.names())
    demo = cloud.openstack("network", "list", "-f", "json", cloud="demo")
    assert "provider" in [n["Name"] for n in demo]
