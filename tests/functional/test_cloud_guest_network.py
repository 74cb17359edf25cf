"""Real guests on the provider network: `saphira up` with libvirt, OVS, dnsmasq and the CLI.

Two tiny guests boot on `provider`; each gets by DHCP exactly its port's
address (its console says so); the host, on the bridge as the gateway, reaches
a guest's HTTP port only while a security group rule allows it, and pings it
only while an ICMP rule does. Deleting the servers and the cloud's network
leaves no tap, namespace or dnsmasq behind.
"""

from __future__ import annotations

import random
import secrets
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from saphira.devtools.guest_image import HTTP_BODY, READY
from saphira.privsep import netns
from tests.functional.cloud import Cloud, start_cloud
from tests.functional.test_cloud_libvirt import remove_guests_under, wait_console
from tests.functional.test_cloud_network import _clean
from tests.integration.libvirt.guests import qemu_reachable_dir

pytestmark = [pytest.mark.functional, pytest.mark.xdist_group("libvirt")]


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cloud, Path, str]]:
    bridge = f"sxbr{secrets.token_hex(4)}"
    cidr = f"10.{random.randrange(100, 250)}.{random.randrange(0, 250)}.0/24"
    conf = tmp_path_factory.mktemp("conf") / "guests.conf"
    with qemu_reachable_dir("guestnet") as root:
        instances = root / "instances"
        conf.write_text(
            f"[DEFAULT]\ninstances_path = {instances}\nvif_plugging_timeout = 120\n"
            f"[ovs]\nbridge_mappings = physnet1:{bridge}\n[provider]\ncidr = {cidr}\n"
            "[agent]\npolling_interval = 0.5\n"
        )
        args = ["--compute-driver", "libvirt.LibvirtDriver", "--test-image",
                "--provider-network", "--config-file", str(conf)]  # fmt: skip
        (root / "cloud").mkdir()
        cloud = start_cloud(str(root / "cloud"), args)
        try:
            yield cloud, instances, bridge
            assert cloud.stop() == 0, cloud.log()
        finally:
            cloud.kill()
            remove_guests_under(instances)
            _clean(cloud.state_dir, bridge)


def port_of(cloud: Cloud, server: str) -> dict[str, Any]:
    (port,) = cloud.openstack("port", "list", "--server", server, "-f", "json")
    shown: dict[str, Any] = cloud.openstack("port", "show", port["ID"], "-f", "json")
    return shown


def fixed_ip(cloud: Cloud, server: str) -> str:
    return str(port_of(cloud, server)["fixed_ips"][0]["ip_address"])


def http_ok(ip: str) -> bool:
    try:
        return HTTP_BODY in requests.get(f"http://{ip}/", timeout=2).text
    except requests.RequestException:
        return False


def ping_ok(ip: str) -> bool:
    done = subprocess.run(["ping", "-c", "1", "-W", "1", ip], capture_output=True, check=False)
    return done.returncode == 0


def eventually(check: Any, expected: bool, timeout: float = 20) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check() is expected:
            return True
        time.sleep(0.5)
    return False


def test_guests_get_their_addresses_and_groups_filter_them(
    setup: tuple[Cloud, Path, str],
) -> None:
    cloud, _instances, _bridge = setup
    for name in ("n1", "n2"):
        cloud.openstack(
            "server", "create", "--image", "saphira-tiny", "--flavor", "saphira.tiny",
            "--network", "provider", "--wait", name,
        )  # fmt: skip
    for name in ("n1", "n2"):
        ip = fixed_ip(cloud, name)
        log = wait_console(cloud, name, READY, 1)
        assert f"SAPHIRA-GUEST: ip eth0 {ip}/" in log, log[-2000:]
        server = cloud.openstack("server", "show", name, "-f", "json")
        assert ip in str(server["addresses"])

    ip, port = fixed_ip(cloud, "n1"), port_of(cloud, "n1")
    (group,) = port["security_group_ids"]
    assert eventually(lambda: http_ok(ip), False)  # default group: no ingress from the host
    rule = cloud.openstack(
        "security", "group", "rule", "create", "--protocol", "tcp", "--dst-port", "80",
        "--remote-ip", "0.0.0.0/0", group, "-f", "json",
    )  # fmt: skip
    assert eventually(lambda: http_ok(ip), True), "the rule did not open port 80"
    cloud.openstack("security", "group", "rule", "delete", rule["id"])
    assert eventually(lambda: http_ok(ip), False), "removing the rule left port 80 open"
    assert eventually(lambda: ping_ok(ip), False)
    icmp = cloud.openstack(
        "security", "group", "rule", "create", "--protocol", "icmp", group, "-f", "json"
    )
    assert eventually(lambda: ping_ok(ip), True), "the ICMP rule did not let pings in"
    cloud.openstack("security", "group", "rule", "delete", icmp["id"])

    network = cloud.openstack("network", "show", "provider", "-f", "json")
    every = cloud.openstack("port", "list", "--network", "provider", "-f", "json")
    taps = {f"tap{p['ID']}"[:14] for p in every}
    for name in ("n1", "n2"):
        cloud.openstack("server", "delete", "--wait", name)
    assert cloud.openstack("port", "list", "--device-owner", "compute:nova", "-f", "json") == []
    cloud.openstack("network", "delete", "provider")
    assert eventually(lambda: f"qdhcp-{network['id']}" in netns.names(), False)
    links = subprocess.run(["ip", "-br", "link"], capture_output=True, text=True, check=True)
    assert not [ln for ln in links.stdout.splitlines() if ln.split()[0].split("@")[0] in taps]
