"""`saphira verify` finds the broken layer: one real guest on `provider` (the shared
``provider_cloud``), each layer broken in turn and restored, the layer the command names
and its exit status asserted.

The guest is the demo member's: the member verifies it by name and gets "needs admin"
for the admin-only layers; the admin verifies it by id and gets every layer, the
service probe from the DHCP namespace included. Agents run inside `saphira up`, so
"agent stopped" and "bridge mapping wrong" are made where the API reads them: the
agent's row in the network database gets the heartbeat of an agent gone quiet for ten
minutes, or the bridge mapping of an agent configured for another physical network
(each restored after; an agent's own report racing the edit is detected and retried).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from unittest import mock

import pytest

from saphira.cmd import up
from saphira.guest_image import HTTP_PORT, READY
from tests.functional.clients import sdk
from tests.functional.cloud import Cloud
from tests.functional.conftest import ProviderCloud
from tests.functional.test_cloud_libvirt import wait_console, wait_status

pytestmark = [pytest.mark.functional, pytest.mark.xdist_group("libvirt")]
SERVICE = f"{HTTP_PORT}/tcp"  # the tiny image's httpd
TIMEOUT = 120.0
EDIT_ATTEMPTS = 3


@dataclass(frozen=True)
class Guest:
    cloud: Cloud
    id: str
    host: str
    mac: str
    network_id: str
    group_id: str
    rule_id: str


def _saphira(cloud: Cloud, *args: str) -> tuple[int, Any]:
    """The real command, in this process (a CLI start costs seconds on this machine)."""
    out = io.StringIO()
    env = {"OS_CLIENT_CONFIG_FILE": str(cloud.clouds_yaml)}
    with mock.patch.dict(os.environ, env), contextlib.redirect_stdout(out):
        status = up.main([*args, "--json"])
    return status, json.loads(out.getvalue())


def _verify(cloud: Cloud, server: str, user: str = "admin") -> tuple[int, dict[str, Any]]:
    found: tuple[int, dict[str, Any]]
    found = _saphira(cloud, "verify", "server", server, "--port", SERVICE, "--os-cloud", user)
    return found


def _verify_cloud(cloud: Cloud) -> tuple[int, list[dict[str, Any]]]:
    found: tuple[int, list[dict[str, Any]]] = _saphira(
        cloud, "verify", "cloud", "--os-cloud", "admin"
    )
    return found


def _outcomes(report: dict[str, Any]) -> dict[str, str]:
    return {layer["layer"]: layer["outcome"] for layer in report["layers"]}


def _wait_leased(cloud: Cloud, guest_mac: str, network_id: str) -> None:
    conn = sdk(cloud.clouds_yaml, "admin")
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        for agent in conn.network.agents(agent_type="DHCP agent"):
            if guest_mac in (agent.configuration.get("leases") or {}).get(network_id, []):
                return
        time.sleep(1)
    raise AssertionError(f"no DHCP agent reported a lease for {guest_mac}")


def _wait_unplugged(conn: Any, server_id: str) -> None:
    """Until the deleted server's ports are gone too: its group is in use until then."""
    deadline = time.monotonic() + TIMEOUT
    while list(conn.network.ports(device_id=server_id)):
        assert time.monotonic() < deadline, f"the ports of {server_id} outlived it"
        time.sleep(0.5)


@pytest.fixture(scope="module")
def guest(provider_cloud: ProviderCloud) -> Iterator[Guest]:
    cloud = provider_cloud.cloud
    demo = sdk(cloud.clouds_yaml, "demo")
    group = demo.network.create_security_group(name="verify-web")
    rule = demo.network.create_security_group_rule(
        security_group_id=group.id, direction="ingress", ethertype="IPv4", protocol="tcp",
        port_range_min=HTTP_PORT, port_range_max=HTTP_PORT, remote_ip_prefix="0.0.0.0/0",
    )  # fmt: skip
    network = demo.network.find_network("provider", ignore_missing=False)
    server = demo.compute.create_server(
        name="verify1", image_id=demo.image.find_image("saphira-tiny", ignore_missing=False).id,
        flavor_id=demo.compute.find_flavor("saphira.tiny", ignore_missing=False).id,
        networks=[{"uuid": network.id}], security_groups=[{"name": "verify-web"}],
    )  # fmt: skip
    try:
        wait_status(cloud, server.id, "ACTIVE")
        wait_console(cloud, server.id, READY, 1)  # its httpd listens
        port = next(iter(demo.network.ports(device_id=server.id)))
        _wait_leased(cloud, port.mac_address, network.id)
        host = sdk(cloud.clouds_yaml, "admin").compute.get_server(server.id).compute_host
        yield Guest(cloud, server.id, host, port.mac_address, network.id, group.id, rule.id)
    finally:
        demo.compute.delete_server(server.id)
        demo.compute.wait_for_delete(server, wait=TIMEOUT)
        _wait_unplugged(demo, server.id)
        demo.network.delete_security_group(group.id)


def test_every_layer_passes_for_the_admin_and_the_member_gets_what_policy_shows(
    guest: Guest,
) -> None:
    status, report = _verify(guest.cloud, guest.id)
    assert (status, report["failed"]) == (0, None), report
    assert set(_outcomes(report).values()) == {"passed"}, report
    status, report = _verify(guest.cloud, "verify1", user="demo")
    assert (status, report["failed"]) == (0, None), report
    hidden = {k for k, v in _outcomes(report).items() if v == "needs admin"}
    assert hidden == {"hypervisor", "agents", "lease", "service"}, report
    status, health = _verify_cloud(guest.cloud)
    assert status == 0 and all(item["up"] for item in health), health
    assert {"Open vSwitch agent", "DHCP agent", "nova-compute"} <= {i["name"] for i in health}


class _AgentRow:
    """The agent's row in the network database, edited as a stopped or misconfigured
    agent would leave it, and put back."""

    def __init__(self, cloud: Cloud, agent_type: str, host: str) -> None:
        self.db = sqlite3.connect(cloud.state_dir / "neutron.sqlite", timeout=30)
        self.key = (agent_type, host)

    def read(self) -> tuple[str, str]:
        row = self.db.execute(
            "SELECT heartbeat_timestamp, configurations FROM agents "
            "WHERE agent_type = ? AND host = ?", self.key,
        ).fetchone()  # fmt: skip
        return str(row[0]), str(row[1])

    def write(self, heartbeat: str, configurations: str) -> None:
        with self.db:
            self.db.execute(
                "UPDATE agents SET heartbeat_timestamp = ?, configurations = ? "
                "WHERE agent_type = ? AND host = ?", (heartbeat, configurations, *self.key),
            )  # fmt: skip


def _with_agent_edited(
    guest: Guest, agent_type: str, heartbeat: str | None, mappings: dict[str, str] | None
) -> tuple[tuple[int, dict[str, Any]], tuple[int, list[dict[str, Any]]]]:
    """Verify the server and the cloud while the row says what we wrote; the agent's own
    report may land between the edit and the reads (every 30 s): then the edit is redone."""
    row = _AgentRow(guest.cloud, agent_type, guest.host)
    for _ in range(EDIT_ATTEMPTS):
        beat, conf = row.read()
        configurations = json.loads(conf)
        if mappings is not None:
            configurations["bridge_mappings"] = mappings
        edited = (heartbeat or beat, json.dumps(configurations))
        row.write(*edited)
        try:
            result = _verify(guest.cloud, guest.id), _verify_cloud(guest.cloud)
            if row.read() == edited:
                return result
        finally:
            if row.read() == edited:
                row.write(beat, conf)
    raise AssertionError(f"the {agent_type} reported over every edit")


def test_an_agent_stopped_is_named(guest: Guest) -> None:
    quiet = (dt.datetime.now(dt.UTC) - dt.timedelta(minutes=10)).replace(tzinfo=None)
    (status, report), (cloud_status, health) = _with_agent_edited(
        guest, "Open vSwitch agent", str(quiet), None
    )
    assert (status, report["failed"]) == (1, "agents"), report
    assert "not alive" in report["layers"][-1]["seen"], report
    down = [(i["name"], i["host"]) for i in health if not i["up"]]
    assert (cloud_status, down) == (1, [("Open vSwitch agent", guest.host)]), health
    assert all(i["fix"] for i in health if not i["up"]), health


def test_a_wrong_bridge_mapping_is_named(guest: Guest) -> None:
    (status, report), _ = _with_agent_edited(
        guest, "Open vSwitch agent", None, {"physnet2": "br-x"}
    )
    assert (status, report["failed"]) == (1, "agents"), report
    assert "not physnet1" in report["layers"][-1]["seen"], report
    assert "bridge mapping" in report["fix"], report


def test_a_closed_security_group_is_named(guest: Guest) -> None:
    demo = sdk(guest.cloud.clouds_yaml, "demo")
    rule = demo.network.get_security_group_rule(guest.rule_id)
    demo.network.delete_security_group_rule(guest.rule_id)
    try:
        status, report = _verify(guest.cloud, "verify1", user="demo")
    finally:
        demo.network.create_security_group_rule(
            security_group_id=guest.group_id, direction="ingress", ethertype="IPv4",
            protocol="tcp", port_range_min=rule.port_range_min,
            port_range_max=rule.port_range_max, remote_ip_prefix=rule.remote_ip_prefix,
        )  # fmt: skip
    assert (status, report["failed"]) == (1, "security-group"), report
    assert f"admits {SERVICE}" in report["layers"][-1]["seen"], report


def test_a_guest_that_does_not_boot_is_named(guest: Guest) -> None:
    """A blank raw disk: QEMU runs (ACTIVE), nothing boots, nothing asks for a lease."""
    conn = sdk(guest.cloud.clouds_yaml, "admin")
    image = conn.image.create_image(name="verify-blank", data=io.BytesIO(bytes(1 << 20)),
                                    disk_format="raw", container_format="bare")  # fmt: skip
    server = conn.compute.create_server(
        name="verify-blank", image_id=image.id, networks=[{"uuid": guest.network_id}],
        flavor_id=conn.compute.find_flavor("saphira.tiny", ignore_missing=False).id,
    )  # fmt: skip
    try:
        wait_status(guest.cloud, server.id, "ACTIVE")
        status, report = _verify(guest.cloud, server.id)
    finally:
        conn.compute.delete_server(server.id)
        conn.compute.wait_for_delete(server, wait=TIMEOUT)
        conn.image.delete_image(image.id)
    assert (status, report["failed"]) == (1, "console"), report
    assert _outcomes(report)["state"] == "passed", report


def test_dhcp_stopped_is_named(guest: Guest) -> None:
    """Last: the guest asked for its lease once; DHCP back, dnsmasq does not know it
    (its lease file went with the network's DHCP) until the guest asks again."""
    conn = sdk(guest.cloud.clouds_yaml, "admin")
    subnet = next(iter(conn.network.subnets(network_id=guest.network_id)))
    conn.network.update_subnet(subnet.id, enable_dhcp=False)
    try:
        status, report = _verify(guest.cloud, guest.id)
        assert (status, report["failed"]) == (1, "lease"), report
        assert "no subnet with DHCP enabled" in report["layers"][-1]["seen"], report
        _wait_served(conn, guest.network_id, served=False)
    finally:
        conn.network.update_subnet(subnet.id, enable_dhcp=True)
    _wait_served(conn, guest.network_id, served=True)
    status, report = _verify(guest.cloud, guest.id)
    assert (status, report["failed"]) == (1, "lease"), report
    assert f"leased nothing to {guest.mac}" in report["layers"][-1]["seen"], report


def _wait_served(conn: Any, network_id: str, *, served: bool) -> None:
    """Until the DHCP agent reports the network's dnsmasq gone, or back."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        reported = [network_id in (agent.configuration.get("leases") or {})
                    for agent in conn.network.agents(agent_type="DHCP agent")]  # fmt: skip
        if any(reported) == served:
            return
        time.sleep(1)
    raise AssertionError(f"the DHCP agent's report of {network_id}: never served={served}")
