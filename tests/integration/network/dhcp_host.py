"""Test-side plumbing for the DHCP agent tests: bridges, guest namespaces, a DHCP client.

Everything made here has an ``sx`` name and is removed by its context
manager, whether the test passed or not.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from saphira.network.dhcp import config
from saphira.network.dhcp.files import NetworkFiles
from saphira.network.dhcp.process import running_pid
from saphira.objects.network import DhcpHost, DhcpNetwork, DhcpSubnet, FixedIP, Segment
from tests.scratch import traversable_dir

SUBNET = DhcpSubnet(
    "sxsubnet-a", "10.77.0.0/24", gateway_ip="10.77.0.1", dns_nameservers=["10.77.0.53"]
)
MTU = 1400
CLIENT_SCRIPT = '#!/bin/sh\n[ "$1" = bound ] && env | sed "s/^/LEASE /"\nexit 0\n'


def sh(*argv: str, namespace: str | None = None, check: bool = True) -> str:
    full = ["ip", "netns", "exec", namespace, *argv] if namespace else list(argv)
    done = subprocess.run(full, capture_output=True, text=True, timeout=60, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"{' '.join(full)}: {done.stderr.strip()}")
    return done.stdout


def unique(prefix: str) -> str:
    return f"{prefix}{secrets.token_hex(4)}"


def state_dir() -> contextlib.AbstractContextManager[Path]:
    """Under /tmp and traversable: dnsmasq runs as nobody and re-reads files there."""
    return traversable_dir("sxdh")


@contextlib.contextmanager
def linux_bridge() -> Iterator[str]:
    name = unique("sxdh")
    sh("ip", "link", "add", name, "type", "bridge")
    try:
        sh("ip", "link", "set", name, "up")
        yield name
    finally:
        sh("ip", "link", "delete", name, check=False)


@contextlib.contextmanager
def ovs_bridge() -> Iterator[str]:
    name = unique("sxdo")
    sh("ovs-vsctl", "add-br", name, "--", "set", "bridge", name, "datapath_type=netdev")
    try:
        sh("ip", "link", "set", name, "up")
        yield name
    finally:
        sh("ovs-vsctl", "--if-exists", "del-br", name, check=False)


@dataclasses.dataclass(frozen=True)
class Guest:
    namespace: str
    mac: str


@contextlib.contextmanager
def guest(bridge: str, mac: str, *, ovs: bool = False, tag: int | None = None) -> Iterator[Guest]:
    """A namespace whose ``eth0`` (with ``mac``) hangs off ``bridge`` like a guest's NIC.

    On OVS the outer end is an access port (``tag`` for a VLAN).
    """
    namespace = unique("sxg")
    outer = f"{namespace}o"
    sh("ip", "netns", "add", namespace)
    try:
        peer = ["name", "eth0", "address", mac, "netns", namespace]
        sh("ip", "link", "add", outer, "type", "veth", "peer", *peer)
        if ovs:
            access = [f"tag={tag}"] if tag else []
            sh("ovs-vsctl", "add-port", bridge, outer, *access)
            sh("ethtool", "-K", "eth0", "tx", "off", namespace=namespace)
        else:
            sh("ip", "link", "set", outer, "master", bridge)
        sh("ip", "link", "set", outer, "up")
        sh("ip", "link", "set", "eth0", "up", namespace=namespace)
        yield Guest(namespace, mac)
    finally:
        if ovs:
            sh("ovs-vsctl", "--if-exists", "del-port", outer, check=False)
        sh("ip", "link", "delete", outer, check=False)
        sh("ip", "netns", "delete", namespace, check=False)


def lease(guest: Guest, tmp_path: Path, *, tries: int = 5) -> dict[str, str] | None:
    """What busybox udhcpc was given (its script's environment), or None without a lease."""
    script = tmp_path / "udhcpc.sh"
    script.write_text(CLIENT_SCRIPT)
    script.chmod(0o700)
    argv = ["busybox", "udhcpc", "-i", "eth0", "-n", "-q", "-t", str(tries), "-T", "1"]
    argv += ["-O", "staticroutes", "-O", "mtu", "-s", str(script)]
    out = sh(*argv, namespace=guest.namespace, check=False)
    pairs = [line[len("LEASE ") :].split("=", 1) for line in out.splitlines()]
    env = {pair[0]: pair[1] for pair in pairs if len(pair) == 2}
    return env or None


def solicit_v6(guest: Guest) -> str | None:
    """The address a DHCPv6 server advertises to the guest (see dhcpv6_solicit.py)."""
    script = Path(__file__).with_name("dhcpv6_solicit.py")
    out = sh(sys.executable, str(script), "eth0", guest.mac, namespace=guest.namespace)
    return out.strip() or None


def dnsmasq_pid(root: Path, network_id: str) -> int | None:
    return running_pid(NetworkFiles.under(root / "dhcp", network_id).pid)


def assert_nothing_left(root: Path, network_id: str, port_id: str, *, ovs: bool = False) -> None:
    """The leak check: no dnsmasq, namespace, veth, OVS port or files for the network."""
    device = config.device_name(port_id)
    namespaces = json.loads(sh("ip", "-j", "netns", "list") or "[]")
    assert config.namespace_name(network_id) not in [n["name"] for n in namespaces]
    assert not sh("ip", "link", "show", "dev", device, check=False)
    assert dnsmasq_pid(root, network_id) is None
    assert not any(f"--pid-file={root}" in cmdline(p) for p in Path("/proc").glob("[0-9]*"))
    assert not (root / "dhcp" / network_id).exists()
    if ovs:
        assert not sh("ovs-vsctl", "port-to-br", device, check=False)


def cmdline(proc: Path) -> str:
    try:
        return (proc / "cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def random_mac() -> str:
    return "fa:16:3e:" + ":".join(f"{b:02x}" for b in secrets.token_bytes(3))


def host(ip: str, subnet: DhcpSubnet = SUBNET) -> DhcpHost:
    return DhcpHost(unique("sxport-"), random_mac(), [FixedIP(subnet.subnet_id, ip)])


def make_network(*hosts: DhcpHost) -> DhcpNetwork:
    """A flat network with the DHCP port on .2 (the port id gives a ``tapsx...`` device)."""
    port = DhcpHost(
        "sx" + secrets.token_hex(8), random_mac(), [FixedIP(SUBNET.subnet_id, "10.77.0.2")]
    )
    return DhcpNetwork(
        network_id=unique("sxnet-"),
        segment=Segment("flat", "physnet1", mtu=MTU),
        dhcp_port=port,
        subnets=[SUBNET],
        hosts=list(hosts),
    )
