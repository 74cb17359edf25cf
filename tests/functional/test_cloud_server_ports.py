"""`saphira up` with its provider network: the real CLI puts servers on it.

Fake guests (no taps), but real ports: made or taken over by the compute
agent, bound to the host whose L2 agent maps the provider bridge, shown as
the server's addresses, and deleted (or only unbound, for the user's own
port) with the server. The cloud has a bridge of its own, removed afterwards
with the DHCP namespace and dnsmasq it leaves behind.
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from saphira.devtools.leftovers import purge
from tests.functional.cloud import Cloud, start_cloud
from tests.integration.libvirt.guests import qemu_reachable_dir

pytestmark = [pytest.mark.functional, pytest.mark.xdist_group("ovs")]


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    bridge = f"sxbr{secrets.token_hex(4)}"
    cidr = f"10.{random.randrange(100, 250)}.{random.randrange(0, 250)}.0/24"
    conf = tmp_path_factory.mktemp("conf") / "network.conf"
    conf.write_text(f"[ovs]\nbridge_mappings = physnet1:{bridge}\n[provider]\ncidr = {cidr}\n")
    with qemu_reachable_dir("ports") as root:
        running = start_cloud(str(root), ["--provider-network", "--config-file", str(conf)])
        try:
            _flavor_and_image(running, tmp_path_factory.mktemp("image"))
            yield running
            assert running.stop() == 0, running.log()
        finally:
            running.kill()
            purge(running.state_dir)


def _flavor_and_image(cloud: Cloud, where: Path) -> None:
    cloud.openstack("flavor", "create", "--vcpus", "1", "--ram", "64", "--disk", "1", "tiny")
    disk = where / "tiny.raw"
    disk.write_bytes(b"\0" * 4096)
    cloud.openstack("image", "create", "--public", "--disk-format", "raw",
                    "--container-format", "bare", "--file", str(disk), "tiny")  # fmt: skip


def _boot(cloud: Cloud, name: str, *nic: str) -> dict[str, Any]:
    server: dict[str, Any] = cloud.openstack(
        "server", "create", "--flavor", "tiny", "--image", "tiny", *nic, "--wait", name,
        "-f", "json", cloud="demo",
    )  # fmt: skip
    assert server["status"] == "ACTIVE", server
    return server


def _ports(cloud: Cloud, server_id: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = cloud.openstack(
        "port", "list", "--device-id", server_id, "--long", "-f", "json"
    )
    return found


def test_a_server_on_the_provider_network(cloud: Cloud) -> None:
    server = _boot(cloud, "on-provider", "--network", "provider")
    (port,) = _ports(cloud, server["id"])
    ip = port["Fixed IP Addresses"][0]["ip_address"]
    assert server["addresses"] == {"provider": [ip]}
    shown = cloud.openstack("port", "show", port["ID"], "-f", "json")
    assert shown["binding_host_id"] and shown["binding_vif_type"] == "ovs"
    assert shown["device_owner"] == "compute:nova"

    cloud.openstack("server", "delete", "--wait", server["id"], cloud="demo")
    assert _ports(cloud, server["id"]) == []


def test_the_provider_gateway_is_no_members_server_address(cloud: Cloud) -> None:
    """The issue's exploit, as the demo member typed it: refused at once (400),
    as `port create --fixed-ip` is refused, and no port, no server made."""
    (subnet,) = cloud.openstack("subnet", "list", "--network", "provider", "-f", "json")
    gateway = cloud.openstack("subnet", "show", subnet["ID"], "-f", "json")["gateway_ip"]
    refused = cloud.openstack(
        "server", "create", "--flavor", "tiny", "--image", "tiny", "--wait",
        "--nic", f"net-id=provider,v4-fixed-ip={gateway}", "on-the-gateway",
        cloud="demo", check=False,
    )  # fmt: skip
    assert refused.returncode != 0
    assert f"{gateway} is the gateway of subnet" in refused.stderr
    assert "BadRequestException: 400" in refused.stderr
    assert cloud.openstack("server", "list", "-f", "json", cloud="demo") == []
    held = cloud.openstack("port", "list", "--fixed-ip", f"ip-address={gateway}", "-f", "json")
    assert held == []


def test_a_users_port_outlives_the_server(cloud: Cloud) -> None:
    port = cloud.openstack("port", "create", "--network", "provider", "mine", "-f", "json",
                           cloud="demo")  # fmt: skip
    server = _boot(cloud, "on-my-port", "--port", "mine")
    assert server["addresses"] == {"provider": [port["fixed_ips"][0]["ip_address"]]}
    cloud.openstack("server", "delete", "--wait", server["id"], cloud="demo")
    kept = cloud.openstack("port", "show", "mine", "-f", "json", cloud="demo")
    assert (kept["device_id"], kept["device_owner"]) == ("", "")
    cloud.openstack("port", "delete", "mine", cloud="demo")


def _until(condition: Callable[[], bool], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.5)


def test_ports_and_networks_added_to_and_removed_from_a_server(cloud: Cloud) -> None:
    server = _boot(cloud, "nics", "--network", "provider")
    extra = cloud.openstack("port", "create", "--network", "provider", "extra", "-f", "json",
                            cloud="demo")  # fmt: skip
    cloud.openstack("server", "add", "port", server["id"], "extra", cloud="demo")
    cloud.openstack("server", "add", "network", server["id"], "provider", cloud="demo")
    ports = _ports(cloud, server["id"])
    assert len(ports) == 3 and extra["id"] in {port["ID"] for port in ports}
    shown = cloud.openstack("server", "show", server["id"], "-f", "json", cloud="demo")
    assert len(shown["addresses"]["provider"]) == 3

    cloud.openstack("server", "remove", "port", server["id"], "extra", cloud="demo")
    _until(lambda: len(_ports(cloud, server["id"])) == 2)
    kept = cloud.openstack("port", "show", "extra", "-f", "json", cloud="demo")
    assert (kept["device_id"], kept["device_owner"]) == ("", "")
    cloud.openstack("server", "remove", "network", server["id"], "provider", cloud="demo")
    _until(lambda: _ports(cloud, server["id"]) == [])
    shown = cloud.openstack("server", "show", server["id"], "-f", "json", cloud="demo")
    assert shown["addresses"] == {}

    cloud.openstack("server", "delete", "--wait", server["id"], cloud="demo")
    cloud.openstack("port", "delete", "extra", cloud="demo")


def test_security_groups_added_to_and_removed_from_a_server(cloud: Cloud) -> None:
    server = _boot(cloud, "guarded", "--network", "provider")
    cloud.openstack("security", "group", "create", "web", cloud="demo")
    cloud.openstack("server", "add", "security", "group", server["id"], "web", cloud="demo")
    shown = cloud.openstack("server", "show", server["id"], "-f", "json", cloud="demo")
    assert sorted(g["name"] for g in shown["security_groups"]) == ["default", "web"]
    cloud.openstack("server", "remove", "security", "group", server["id"], "web", cloud="demo")
    shown = cloud.openstack("server", "show", server["id"], "-f", "json", cloud="demo")
    assert shown["security_groups"] == [{"name": "default"}]
    cloud.openstack("server", "delete", "--wait", server["id"], cloud="demo")
    cloud.openstack("security", "group", "delete", "web", cloud="demo")
