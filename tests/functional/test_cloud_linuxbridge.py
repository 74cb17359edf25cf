"""`saphira up` where the L2 mechanism is Linux bridge: a real guest, nftables groups.

With `[ml2] mechanism_drivers = linuxbridge` the host runs the Linux bridge
agent (and the DHCP agent plugs into Linux bridges): the provider bridge is
a kernel bridge, the guest's port binds as `bridge`, its lease matches the
port, and the host reaches its HTTP port (and pings it) only while a rule allows it.
Deleting the server and the network leaves no tap, namespace or dnsmasq.
"""

from __future__ import annotations

import secrets
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from saphira.guest_image import READY
from saphira.privsep import links, netns
from tests.functional.cloud import Cloud
from tests.functional.guest_cloud import guest_cloud
from tests.functional.test_cloud_guest_network import (
    eventually,
    port_of,
    rules_open_and_close_a_guest,
)
from tests.functional.test_cloud_libvirt import wait_console
from tests.integration.network.dhcp_host import cmdline
from tests.polling import wait_for

pytestmark = [pytest.mark.functional, pytest.mark.xdist_group("libvirt")]


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cloud, str]]:
    bridge = f"sxlb{secrets.token_hex(4)}"
    conf = (
        "[ml2]\nmechanism_drivers = linuxbridge\n"
        f"[linux_bridge]\nbridge_mappings = physnet1:{bridge}\n"
    )
    where = tmp_path_factory.mktemp("conf")
    with guest_cloud("lbnet", where, conf) as (cloud, _):
        yield cloud, bridge


def test_the_linux_bridge_agent_wires_and_filters_a_real_guest(
    setup: tuple[Cloud, str],
) -> None:
    cloud, bridge = setup

    def agents() -> list[dict[str, Any]] | None:
        listed: list[dict[str, Any]] = cloud.openstack("network", "agent", "list", "-f", "json")
        alive = sorted(a["Agent Type"] for a in listed if a["Alive"])
        return listed if alive == ["DHCP agent", "Linux bridge agent"] else None

    listed = wait_for("both agents alive", agents)
    l2 = next(a for a in listed if a["Agent Type"] == "Linux bridge agent")
    shown = cloud.openstack("network", "agent", "show", l2["ID"], "-f", "json")
    assert shown["configuration"]["bridge_mappings"] == {"physnet1": bridge}

    cloud.openstack(
        "server", "create", "--image", "saphira-tiny", "--flavor", "saphira.tiny",
        "--network", "provider", "--wait", "lb1",
    )  # fmt: skip
    port = port_of(cloud, "lb1")
    assert port["binding_vif_type"] == "bridge"
    ip = port["fixed_ips"][0]["ip_address"]
    log = wait_console(cloud, "lb1", READY, 1)
    assert f"SAPHIRA-GUEST: ip eth0 {ip}/" in log, log[-2000:]

    (group,) = port["security_group_ids"]
    rules_open_and_close_a_guest(cloud, group, ip)

    network = cloud.openstack("network", "show", "provider", "-f", "json")
    tap = f"tap{port['id']}"[:14]
    cloud.openstack("server", "delete", "--wait", "lb1")
    cloud.openstack("network", "delete", "provider")
    eventually("the DHCP namespace gone", lambda: f"qdhcp-{network['id']}" in netns.names(), False)
    assert links.show(tap) is None
    assert not [p for p in Path("/proc").glob("[0-9]*") if network["id"] in cmdline(p)]
    links_out = subprocess.run(["ip", "-br", "link"], capture_output=True, text=True, check=True)
    assert tap not in links_out.stdout
