"""Guests ask 169.254.169.254 through the DHCP namespace's proxy: real namespaces, a
recording metadata API that checks the signature as Nova does."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator

import pytest

from saphira.network.dhcp.agent import DhcpAgent, Wire
from saphira.network.metadata.resolver import InstancePort
from saphira.objects.network import DhcpSubnet, FixedIP
from saphira.privsep import metadata as privileged
from saphira.privsep.validate import InvalidArgument
from tests.environment import require_tools
from tests.polling import wait_for

from .dhcp_host import Guest, assert_nothing_left, guest, host, make_network, sh
from .metadata_lab import Lab, addressed_guest, ask, metadata_lab, proxy_pid, uids

pytestmark = pytest.mark.integration
V6_METADATA = "fe80::a9fe:a9fe%eth0"

MINE = InstancePort("vm-mine-0001", "project-a")
THEIRS = InstancePort("vm-theirs-0002", "project-b")


@pytest.fixture
def lab() -> Iterator[Lab]:
    require_tools("dnsmasq", "ip")
    with metadata_lab() as lab:
        yield lab


def test_a_guest_gets_its_own_instance_whatever_headers_it_forges(lab: Lab) -> None:
    mine, theirs = host("10.77.0.10"), host("10.77.0.11")
    network = make_network(mine, theirs)
    lab.ports.known[(network.network_id, "10.77.0.10")] = MINE
    lab.ports.known[(network.network_id, "10.77.0.11")] = THEIRS
    try:
        report = lab.agent().sync([network])
        assert report.proxied == [network.network_id], report
        forged = {
            "X-Forwarded-For": "10.77.0.11",
            "X-Instance-ID": THEIRS.instance_id,
            "X-Instance-ID-Signature": "0" * 64,
            "X-Tenant-ID": THEIRS.project_id,
            "X-Neutron-Network-ID": "another-network",
        }
        with addressed_guest(lab.bridge, mine.mac_address, "10.77.0.10/24") as vm:
            status, body = ask(vm, "/openstack/latest/meta_data.json", forged)
        assert status == 200, body
        assert json.loads(body)["uuid"] == MINE.instance_id
        seen = lab.stub.seen[-1]
        assert seen.path == "/openstack/latest/meta_data.json"
        assert seen.headers["x-instance-id"] == MINE.instance_id
        assert seen.headers["x-tenant-id"] == MINE.project_id
        assert seen.headers["x-forwarded-for"] == "10.77.0.10"
        assert not any(name.startswith("x-neutron") for name in seen.headers)
    finally:
        assert lab.agent().sync([]).failed == {}
    assert_nothing_left(lab.root, network.network_id, network.dhcp_port.port_id)


def test_an_address_that_matches_no_port_gets_404(lab: Lab) -> None:
    network = make_network(host("10.77.0.10"))
    try:
        lab.agent().sync([network])
        with addressed_guest(lab.bridge, "fa:16:3e:ee:ee:01", "10.77.0.50/24") as stranger:
            status, _ = ask(stranger, "/latest/meta-data/instance-id")
        assert status == 404
        assert lab.stub.seen == []
    finally:
        lab.agent().sync([])


def test_the_proxy_runs_unprivileged_and_a_resync_keeps_it(lab: Lab) -> None:
    network = make_network(host("10.77.0.10"))
    try:
        lab.agent().sync([network])
        pid = proxy_pid(lab.root, network)
        assert pid is not None
        assert 0 not in uids(pid)
        directory = lab.root / "dhcp" / network.network_id
        for name in ("metadata-proxy.pid", "metadata-proxy.log"):  # not root's either
            assert (directory / name).stat().st_uid == uids(pid)[0], name
        report = lab.agent().sync([network])
        assert report.proxied == [] and report.unchanged == [network.network_id], report
        assert proxy_pid(lab.root, network) == pid
    finally:
        report = lab.agent().sync([])
    assert report.stopped == [network.network_id]
    assert proxy_pid(lab.root, network) is None


def test_an_ipv6_guest_asks_fe80_a9fe_a9fe_from_its_link_local_address(lab: Lab) -> None:
    """The guest's source is its EUI-64 link-local address, matched to its port by MAC."""
    mine = host("10.77.0.10")
    network = make_network(mine)
    v6 = DhcpSubnet("sxsubnet-6", "fd77::/64", ip_version=6)
    network.subnets.append(v6)
    network.dhcp_port.fixed_ips.append(FixedIP(v6.subnet_id, "fd77::2"))
    mine.fixed_ips.append(FixedIP(v6.subnet_id, "fd77::10"))
    lab.ports.known[(network.network_id, mine.mac_address)] = MINE
    try:
        lab.agent().sync([network])
        with guest(lab.bridge, mine.mac_address) as vm:
            status, body = ask_when_ready(vm)
        assert status == 200, body
        assert json.loads(body)["uuid"] == MINE.instance_id
        assert lab.stub.seen[-1].headers["x-forwarded-for"].startswith("fe80::")
    finally:
        lab.agent().sync([])


def ask_when_ready(vm: Guest) -> tuple[int, str]:
    """The guest's link-local address is usable once duplicate detection is over."""
    deadline = time.monotonic() + 20
    while True:
        try:
            return ask(vm, "/openstack/latest/meta_data.json", host=V6_METADATA)
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_a_dead_proxy_is_restarted_and_metadata_off_stops_it(lab: Lab) -> None:
    network = make_network(host("10.77.0.10"))
    namespace = f"qdhcp-{network.network_id}"
    try:
        lab.agent().sync([network])
        pid = proxy_pid(lab.root, network)
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        wait_for("the proxy gone", lambda: proxy_pid(lab.root, network) is None)
        report = lab.agent().sync([network])
        assert report.proxied == [network.network_id], report
        assert proxy_pid(lab.root, network) not in (None, pid)
        assert "169.254.169.254/32" in sh("ip", "-o", "addr", "show", namespace=namespace)

        without = DhcpAgent(lab.root, lambda _: Wire(lab.bridge), interface="linuxbridge")
        report = without.sync([network])
        assert report.failed == {} and report.proxied == [], report
        assert proxy_pid(lab.root, network) is None
        assert "169.254.169.254" not in sh("ip", "-o", "addr", "show", namespace=namespace)
    finally:
        lab.agent().sync([])


@pytest.mark.parametrize(
    ("listen", "uid"),
    [(["169.254.169.254"], 0), (["10.77.0.2"], 65534), (["fe80::a9fe:a9fe%lo;x"], 65534)],
)
def test_the_helper_starts_no_proxy_as_root_or_elsewhere(listen: list[str], uid: int) -> None:
    """Refused inside the helper, whatever the caller sends, before anything runs."""
    with pytest.raises(InvalidArgument):
        privileged.spawn_proxy("net1", "/tmp/sx-socket", "/tmp/sx-dir", listen, uid, uid,
                               namespace="qdhcp-sx-none")  # fmt: skip
