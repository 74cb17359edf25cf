"""A server's metadata through the real proxy path of `saphira up`: provider network on
OVS, the DHCP namespace's proxy, the metadata agent's port look-up and signature, and
the metadata API itself.

The server runs on the fake driver; its "guest" is a fake tap (a veth in a
namespace of the test's, carrying the port's MAC and address, on the bridge
with the port's iface-id, so the L2 agent wires it as a guest's tap) that
asks 169.254.169.254 as the tiny image does, once with the headers a guest
would forge to read another server's data.
"""

from __future__ import annotations

import contextlib
import json
import random
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from saphira.devtools.leftovers import purge
from tests.functional.cloud import Cloud, start_cloud
from tests.integration.libvirt.guests import qemu_reachable_dir
from tests.integration.network.dhcp_host import Guest, sh
from tests.integration.network.metadata_lab import ask
from tests.polling import wait_for

pytestmark = [pytest.mark.functional, pytest.mark.xdist_group("ovs")]
SECRET = "functional-proxy-secret"
KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHb0aOeNq9Lr2h3WjvOkE1m2qH4n1Qx3b7sR0tYzUvWx proxy@test"
USER_DATA = "#!/bin/sh\necho through-the-proxy\n"


@pytest.fixture(scope="module")
def bridge() -> str:
    return f"sxbr{secrets.token_hex(4)}"


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory, bridge: str) -> Iterator[Cloud]:
    cidr = f"10.{random.randrange(100, 250)}.{random.randrange(0, 250)}.0/24"
    conf = tmp_path_factory.mktemp("conf") / "proxy.conf"
    conf.write_text(
        f"[ovs]\nbridge_mappings = physnet1:{bridge}\n[provider]\ncidr = {cidr}\n"
        f"[agent]\npolling_interval = 0.5\n[neutron]\nservice_metadata_proxy = true\n"
        f"metadata_proxy_shared_secret = {SECRET}\n"
    )
    with qemu_reachable_dir("mdproxy") as root:
        running = start_cloud(str(root), ["--provider-network", "--config-file", str(conf)])
        try:
            yield running
            assert running.stop() == 0, running.log()
        finally:
            running.kill()
            purge(running.state_dir)


@contextlib.contextmanager
def fake_tap(bridge: str, port: dict[str, Any], hop: str) -> Iterator[Guest]:
    """The port's "guest": its MAC and address, the metadata route option 121 gives."""
    namespace, outer = f"sxmp{secrets.token_hex(3)}", f"sxmp{secrets.token_hex(3)}o"
    ip, mac = port["fixed_ips"][0]["ip_address"], port["mac_address"]
    sh("ip", "netns", "add", namespace)
    try:
        peer = ["name", "eth0", "address", mac, "netns", namespace]
        sh("ip", "link", "add", outer, "type", "veth", "peer", *peer)
        sh("ip", "link", "set", outer, "up")
        sh("ethtool", "-K", "eth0", "tx", "off", namespace=namespace)
        sh("ip", "link", "set", "eth0", "up", namespace=namespace)
        sh("ip", "addr", "add", f"{ip}/24", "dev", "eth0", namespace=namespace)
        sh("ip", "route", "add", "169.254.169.254/32", "via", hop, namespace=namespace)
        sh("ovs-vsctl", "add-port", bridge, outer, "--", "set", "Interface", outer,
           f"external_ids:iface-id={port['id']}", f"external_ids:attached-mac={mac}",
           "external_ids:iface-status=active")  # fmt: skip
        yield Guest(namespace, mac)
    finally:
        sh("ovs-vsctl", "--if-exists", "del-port", outer, check=False)
        sh("ip", "link", "delete", outer, check=False)
        sh("ip", "netns", "delete", namespace, check=False)


def server_port(cloud: Cloud, server: str) -> dict[str, Any]:
    (listed,) = cloud.openstack("port", "list", "--server", server, "-f", "json")
    shown: dict[str, Any] = cloud.openstack("port", "show", listed["ID"], "-f", "json")
    return shown


def dhcp_ip(cloud: Cloud) -> str | None:
    listed = cloud.openstack("port", "list", "--network", "provider", "--device-owner",
                             "network:dhcp", "-f", "json")  # fmt: skip
    return str(listed[0]["Fixed IP Addresses"][0]["ip_address"]) if listed else None


def make_server(cloud: Cloud, name: str, tmp: Path) -> dict[str, Any]:
    made: dict[str, Any] = cloud.openstack(
        "server", "create", "--flavor", "mdp", "--image", "mdp-image", "--network", "provider",
        "--key-name", "mdpkey", "--user-data", str(tmp / "user-data"), "--wait", name,
        "-f", "json",
    )  # fmt: skip
    assert made["status"] == "ACTIVE", made
    return made


def test_a_server_reads_its_own_metadata_through_the_proxy(
    cloud: Cloud, bridge: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    tmp = tmp_path_factory.mktemp("server")
    (tmp / "key.pub").write_text(KEY)
    (tmp / "user-data").write_text(USER_DATA)
    (tmp / "disk.raw").write_bytes(b"\0" * 4096)
    cloud.openstack("flavor", "create", "--vcpus", "1", "--ram", "64", "--disk", "1", "mdp")
    cloud.openstack("keypair", "create", "--public-key", str(tmp / "key.pub"), "mdpkey")
    cloud.openstack("image", "create", "--disk-format", "raw", "--container-format", "bare",
                    "--file", str(tmp / "disk.raw"), "mdp-image")  # fmt: skip
    mine, theirs = make_server(cloud, "mdp-mine", tmp), make_server(cloud, "mdp-theirs", tmp)
    port = server_port(cloud, "mdp-mine")
    other_ip = server_port(cloud, "mdp-theirs")["fixed_ips"][0]["ip_address"]
    hop = wait_for("the DHCP port", lambda: dhcp_ip(cloud))
    with fake_tap(bridge, port, hop) as vm:
        wait_for("the tap wired", lambda: port_active(cloud, port["id"]), timeout=60)
        status, body = wait_for("an answer", lambda: answered(vm), timeout=60)
        assert status == 200, body
        meta = json.loads(body)
        assert meta["uuid"] == mine["id"]
        assert meta["public_keys"] == {"mdpkey": KEY}
        status, user_data = ask(vm, "/openstack/latest/user_data")
        assert (status, user_data) == (200, USER_DATA)
        forged = {"X-Instance-ID": theirs["id"], "X-Forwarded-For": other_ip,
                  "X-Tenant-ID": theirs["project_id"]}  # fmt: skip
        status, body = ask(vm, "/openstack/latest/meta_data.json", forged)
        assert status == 200 and json.loads(body)["uuid"] == mine["id"], body


def port_active(cloud: Cloud, port_id: str) -> bool:
    shown: dict[str, Any] = cloud.openstack("port", "show", port_id, "-f", "json")
    return bool(shown["status"] == "ACTIVE")


def answered(vm: Guest) -> tuple[int, str] | None:
    """The first request may meet the port's wiring still settling: asked again then."""
    try:
        return ask(vm, "/openstack/latest/meta_data.json")
    except AssertionError:
        return None
