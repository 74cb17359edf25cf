"""Real guests on the provider network: `saphira up` with libvirt, OVS, dnsmasq and the CLI.

Two tiny guests boot on `provider`; each gets by DHCP exactly its port's
address (its console says so); the host, on the bridge as the gateway, reaches
a guest's HTTP port only while a security group rule allows it, and pings it
only while an ICMP rule does: a refusal must hold for several probes, while
the other rule's traffic still passes. The guests reach each other through the default
group's remote-group rule, and what a guest sends from an address or MAC that
is not its port's never arrives at the host (the guest's probe CGI sends it,
a packet socket on the bridge watches). `saphira up` SIGKILLed while servers
build and started again loses nothing (issue 15's fault on the all-in-one).
Deleting the servers and the cloud's network leaves no tap, namespace or dnsmasq
behind.
"""

from __future__ import annotations

import secrets
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from saphira.guest_image import HTTP_BODY, PROBE_PATH, READY
from saphira.privsep import netns, ovs
from tests.functional.clients import sdk
from tests.functional.cloud import Cloud
from tests.functional.guest_cloud import guest_cloud
from tests.functional.sniffer import Sniffer
from tests.functional.test_cloud_libvirt import wait_console
from tests.integration.network.dhcp_host import cmdline
from tests.polling import stays_false, wait_for

pytestmark = [pytest.mark.functional, pytest.mark.xdist_group("libvirt")]


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cloud, Path, str]]:
    bridge = f"sxbr{secrets.token_hex(4)}"
    where = tmp_path_factory.mktemp("conf")
    mapping = f"[ovs]\nbridge_mappings = physnet1:{bridge}\n"
    with guest_cloud("guestnet", where, mapping) as running:
        yield *running, bridge


SPOOFED_MAC = "02:00:5e:00:00:99"


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


def eventually(what: str, check: Any, expected: bool, timeout: float = 20) -> None:
    wait_for(what, lambda: check() is expected, timeout=timeout, interval=0.5)


def probe(ip: str, query: str) -> str:
    """Ask the guest at ``ip`` to act (see the image's probe CGI); its one-line verdict."""
    answer = requests.get(f"http://{ip}{PROBE_PATH}?{query}", timeout=60)
    answer.raise_for_status()
    return answer.text


def unused_address(cloud: Cloud, neighbour: str) -> str:
    """An address on the provider subnet that no port has: the host answers it on the bridge."""
    taken = {ip["ip_address"] for p in cloud.openstack("port", "list", "-f", "json")
             for ip in p["Fixed IP Addresses"]}  # fmt: skip
    prefix = neighbour.rsplit(".", 1)[0]
    return next(f"{prefix}.{n}" for n in range(250, 100, -1) if f"{prefix}.{n}" not in taken)


def add_rule(cloud: Cloud, group: str, *args: str) -> str:
    rule = cloud.openstack("security", "group", "rule", "create", *args, group, "-f", "json")
    return str(rule["id"])


def rules_open_and_close_a_guest(cloud: Cloud, group: str, ip: str) -> None:
    """With no rule the host neither reaches port 80 nor pings; each rule opens its own
    traffic only, and once deleted that traffic stays refused while the other rule still
    lets the host through (the control: the guest is up and the probes work)."""
    http, ping = (lambda: http_ok(ip)), (lambda: ping_ok(ip))
    stays_false("port 80 with no rule", http)  # (both controls: each opens below)
    stays_false("pings with no rule", ping)
    icmp = add_rule(cloud, group, "--protocol", "icmp")
    eventually("the ICMP rule letting pings in", ping, True)
    stays_false("port 80 with only ICMP allowed", http, control=ping)
    tcp = add_rule(cloud, group, "--protocol", "tcp", "--dst-port", "80",
                   "--remote-ip", "0.0.0.0/0")  # fmt: skip
    eventually("the TCP rule opening port 80", http, True)
    cloud.openstack("security", "group", "rule", "delete", icmp)
    stays_false("pings once the ICMP rule is gone", ping, control=http)
    icmp = add_rule(cloud, group, "--protocol", "icmp")
    eventually("a second ICMP rule letting pings in", ping, True)
    cloud.openstack("security", "group", "rule", "delete", tcp)
    stays_false("port 80 once its rule is gone", http, control=ping)
    cloud.openstack("security", "group", "rule", "delete", icmp)


@pytest.fixture(scope="module")
def guests(setup: tuple[Cloud, Path, str]) -> dict[str, str]:
    """n1 and n2 on `provider`, both ready: server name to fixed IP."""
    cloud = setup[0]
    for name in ("n1", "n2"):
        cloud.openstack(
            "server", "create", "--image", "saphira-tiny", "--flavor", "saphira.tiny",
            "--network", "provider", "--wait", name,
        )  # fmt: skip
    return {name: fixed_ip(cloud, name) for name in ("n1", "n2")}


@pytest.fixture(scope="module")
def host_access(setup: tuple[Cloud, Path, str], guests: dict[str, str]) -> str:
    """n1 (only) also in a group that lets the host reach its port 80; the host's address."""
    cloud = setup[0]
    (subnet,) = cloud.openstack("subnet", "list", "--network", "provider", "-f", "json")
    host = str(cloud.openstack("subnet", "show", subnet["ID"], "-f", "json")["gateway_ip"])
    cloud.openstack("security", "group", "create", "host-access")
    cloud.openstack(
        "security", "group", "rule", "create", "--protocol", "tcp", "--dst-port", "80",
        "--remote-ip", f"{host}/32", "host-access",
    )  # fmt: skip
    cloud.openstack("server", "add", "security", "group", "n1", "host-access")
    eventually("n1 reachable through host-access", lambda: http_ok(guests["n1"]), True)
    return host


def test_guests_get_their_addresses(setup: tuple[Cloud, Path, str], guests: dict[str, str]) -> None:
    cloud = setup[0]
    for name, ip in guests.items():
        log = wait_console(cloud, name, READY, 1)
        assert f"SAPHIRA-GUEST: ip eth0 {ip}/" in log, log[-2000:]
        server = cloud.openstack("server", "show", name, "-f", "json")
        assert ip in str(server["addresses"])


def test_group_rules_open_and_close_a_guest(
    setup: tuple[Cloud, Path, str], guests: dict[str, str]
) -> None:
    cloud, ip = setup[0], guests["n2"]
    (group,) = port_of(cloud, "n2")["security_group_ids"]
    rules_open_and_close_a_guest(cloud, group, ip)


def test_guests_reach_each_other_through_their_group(
    guests: dict[str, str], host_access: str
) -> None:
    n1, n2 = guests["n1"], guests["n2"]
    assert not http_ok(n2), "n2 is not in host-access: the host must not reach it"
    assert probe(n1, f"tcp={n2},80").splitlines()[0] == "tcp ok"
    assert probe(n1, f"ping={n2}").splitlines()[0] == "ping ok"
    assert probe(n1, f"tcp={host_access},1").splitlines()[0] == "tcp failed"


def test_a_guest_cannot_send_as_another_address_or_mac(
    setup: tuple[Cloud, Path, str], guests: dict[str, str], host_access: str
) -> None:
    cloud, bridge, n1 = setup[0], setup[2], guests["n1"]
    spoofed_ip = unused_address(cloud, n1)
    with Sniffer(bridge) as honest:
        assert probe(n1, f"ping={host_access}").splitlines()[0] == "ping ok"
    assert n1 in honest.ipv4_sources(), "the packet socket saw nothing: the check would be blind"
    with Sniffer(bridge) as spoofed:
        assert probe(n1, f"spoofip={spoofed_ip},{host_access}").splitlines()[0] == "spoofip failed"
        moved = probe(n1, f"spoofmac={SPOOFED_MAC},{host_access}")
    assert f"now {SPOOFED_MAC}" in moved and "spoofmac failed" in moved, moved
    assert spoofed_ip not in spoofed.ipv4_sources() | spoofed.arp_senders()
    assert SPOOFED_MAC not in spoofed.mac_sources()
    assert http_ok(n1), "n1 did not get its own MAC back"


def test_the_cloud_killed_mid_build_and_started_again_loses_nothing(
    setup: tuple[Cloud, Path, str], guests: dict[str, str]
) -> None:
    """`saphira up` SIGKILLed while two servers build, then started again on its state:
    each build ends ACTIVE or ERROR with a fault, none in a task state; the guests from
    before still run; the network has one dnsmasq still; deleting the two leaves none of
    their domains, taps, ports or placement claims."""
    cloud = setup[0]
    names = _killed_mid_build(cloud, sdk(cloud.clouds_yaml, "admin"))
    cloud.start()
    conn = sdk(cloud.clouds_yaml, "admin")

    def settled() -> list[Any] | None:
        found = _found(conn, names)
        return found if all(s.status != "BUILD" and not s.task_state for s in found) else None

    servers: list[Any] = wait_for("the builds settled", settled, timeout=300, interval=1)
    assert all(s.status == "ACTIVE" or s.fault for s in servers), [
        (s.name, s.status) for s in servers
    ]
    assert [(s.status, s.power_state) for s in _found(conn, tuple(guests))] == [("ACTIVE", 1)] * 2
    network = conn.network.find_network("provider", ignore_missing=False).id
    serving = [p for p in Path("/proc").glob("[0-9]*") if network in cmdline(p)]
    assert [_name(p) for p in serving].count("dnsmasq") == 1  # its metadata proxy aside
    ids = [s.id for s in servers]
    ports = [p.id for i in ids for p in conn.network.ports(device_id=i)]
    for name in names:
        cloud.openstack("server", "delete", "--wait", name)
    domains = subprocess.run(["virsh", "-c", "qemu:///system", "list", "--all", "--uuid"],
                             capture_output=True, text=True, check=True).stdout.split()  # fmt: skip
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True, check=True)
    assert not set(ids) & set(domains)
    assert not [p for p in ports if f"tap{p}"[:14] in links.stdout]
    assert not [p for i in ids for p in conn.network.ports(device_id=i)]
    held = [i for i in ids if conn.placement.get(f"/allocations/{i}").json()["allocations"]]
    assert not held


KILL_ATTEMPTS = 3
KILL_WAIT = 240.0  # seconds a build may take to reach the agent on a busy machine


def _killed_mid_build(cloud: Cloud, conn: Any) -> tuple[str, ...]:
    """Two servers created, then the cloud SIGKILLed while one of them networks or
    spawns; their names. On an idle machine a build passes both in under a second, so
    a pair that ended before a poll saw it is deleted and another made, up to
    KILL_ATTEMPTS (each miss is named in the failure)."""
    network = conn.network.find_network("provider", ignore_missing=False).id
    image = conn.image.find_image("saphira-tiny", ignore_missing=False).id
    flavor = conn.compute.find_flavor("saphira.tiny", ignore_missing=False).id
    missed = []
    for attempt in range(KILL_ATTEMPTS):
        names = (f"k{attempt}a", f"k{attempt}b")
        for name in names:
            conn.compute.create_server(name=name, image_id=image, flavor_id=flavor,
                                       networks=[{"uuid": network}])  # fmt: skip
        found, deadline = _found(conn, names), time.monotonic() + KILL_WAIT
        while not any(s.task_state in ("networking", "spawning") for s in found):
            if all(s.status != "BUILD" for s in found):
                break
            assert time.monotonic() < deadline, [(s.name, s.task_state) for s in found]
            time.sleep(0.1)
            found = _found(conn, names)
        else:
            assert cloud.stop(signal.SIGKILL) == -signal.SIGKILL
            return names
        missed.append([(s.name, s.status, s.task_state) for s in found])
        for server in found:
            conn.compute.delete_server(server)
            conn.compute.wait_for_delete(server, interval=1, wait=120)
    raise AssertionError(f"no build seen networking or spawning: {missed}")


def _name(proc: Path) -> str:
    return Path(cmdline(proc).split("\0")[0]).name


def _found(conn: Any, names: tuple[str, ...]) -> list[Any]:
    return [conn.compute.find_server(name, ignore_missing=False) for name in names]


def test_deleting_everything_leaves_nothing(
    setup: tuple[Cloud, Path, str], guests: dict[str, str]
) -> None:
    cloud, bridge = setup[0], setup[2]
    network = cloud.openstack("network", "show", "provider", "-f", "json")
    every = cloud.openstack("port", "list", "--network", "provider", "-f", "json")
    taps = {f"tap{p['ID']}"[:14] for p in every}
    macs = {p["MAC Address"] for p in every}
    assert any(mac in flow for flow in ovs.dump_flows(bridge) for mac in macs)
    for name in guests:
        cloud.openstack("server", "delete", "--wait", name)
    assert cloud.openstack("port", "list", "--device-owner", "compute:nova", "-f", "json") == []
    cloud.openstack("network", "delete", "provider")
    eventually("the DHCP namespace gone", lambda: f"qdhcp-{network['id']}" in netns.names(), False)
    assert not [flow for flow in ovs.dump_flows(bridge) for mac in macs if mac in flow]
    assert not [p for p in Path("/proc").glob("[0-9]*") if network["id"] in cmdline(p)]
    links = subprocess.run(["ip", "-br", "link"], capture_output=True, text=True, check=True)
    assert not [ln for ln in links.stdout.splitlines() if ln.split()[0].split("@")[0] in taps]
