"""A userspace OVS bridge with "guests": namespaces whose veth peers are OVS ports.

Each guest's host-side veth end is added to the bridge the way libvirt adds
a tap (``external_ids:iface-id`` = the port id, ``attached-mac``), untagged:
the agent sets the tag. TX checksum offload is off inside the namespaces
(the userspace datapath forwards unfilled checksums). Everything has an
``sx`` name with the lab's random suffix and is removed by ``close``.
"""

from __future__ import annotations

import contextlib
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from saphira.network.l2 import ovs_bridge
from saphira.objects.network import FixedIP, PortDetails, SecurityRule, Segment
from saphira.privsep import links, netns, ovs
from saphira.privsep.runner import run

PREFIX_LEN = 24
DEVICE = "eth0"
EGRESS_OPEN = [SecurityRule("egress", "IPv4"), SecurityRule("egress", "IPv6")]


def in_namespace(namespace: str, *argv: str, timeout: float = 10.0) -> int:
    """Exit status of ``argv`` inside ``namespace`` (probes fail by design: no raise)."""
    full = ["ip", "netns", "exec", namespace, *argv]
    done = subprocess.run(full, capture_output=True, timeout=timeout, check=False)
    return done.returncode


@dataclass
class Guest:
    namespace: str
    device: str  # the OVS port: the veth end on the host
    port_id: str
    mac: str  # the port's: what the agent's flows allow
    ip: str
    used_mac: str = ""  # what the namespace really uses (set_mac/set_ip impersonate)
    used_ip: str = ""
    servers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.used_mac, self.used_ip = self.used_mac or self.mac, self.used_ip or self.ip

    def details(
        self, *, rules: list[SecurityRule] | None = None, vlan: int | None = None, **fields: object
    ) -> PortDetails:
        """The port as the network service would describe it (egress open by default)."""
        segment = Segment("vlan", "physnet1", vlan) if vlan else Segment("flat", "physnet1")
        wanted = EGRESS_OPEN + (rules or [])
        port = PortDetails(
            self.port_id,
            "sxnet",
            self.mac,
            segment,
            fixed_ips=[FixedIP("sxsubnet", self.ip)],
            security_rules=wanted,
        )
        for name, value in fields.items():
            setattr(port, name, value)
        return port

    def tcp_ok(self, ip: str, port: int) -> bool:
        """A new connection (new source port) to ip:port within 1.5 s."""
        assert in_namespace(self.namespace, "ip", "neigh", "flush", "dev", DEVICE) == 0
        code = f"import socket; socket.create_connection(({ip!r}, {port}), timeout=1.5).close()"
        return in_namespace(self.namespace, sys.executable, "-c", code) == 0

    def ping_ok(self, ip: str) -> bool:
        """Any of three echo requests answered (a new ping: a new ICMP id, a new connection).

        Learned neighbours are forgotten first, so each probe resolves afresh
        instead of waiting on a resolution an earlier probe left pending.
        """
        assert in_namespace(self.namespace, "ip", "neigh", "flush", "dev", DEVICE) == 0
        family = "-6" if ":" in ip else "-4"
        argv = ["ping", family, "-n", "-q", "-c", "3", "-i", "0.2", "-W", "1", ip]
        return in_namespace(self.namespace, *argv) == 0

    def serve_tcp(self, port: int) -> None:
        """A listener on ip:port, ready when this returns (checked over the guest's own lo)."""
        argv = [
            "ip",
            "netns",
            "exec",
            self.namespace,
            sys.executable,
            "-m",
            "http.server",
            str(port),
            "--bind",
            self.ip,
        ]
        self.servers.append(
            subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        )
        deadline = time.monotonic() + 10
        while not self.tcp_ok(self.ip, port):
            assert time.monotonic() < deadline, f"nothing listens on {self.ip}:{port}"
            time.sleep(0.1)

    def set_ip(self, ip: str) -> None:
        """Send from another address than the port's."""
        links.delete_address(DEVICE, f"{self.used_ip}/{PREFIX_LEN}", namespace=self.namespace)
        links.add_address(DEVICE, f"{ip}/{PREFIX_LEN}", namespace=self.namespace)
        self.used_ip = ip

    def set_mac(self, mac: str) -> None:
        """Send from another MAC than the port's."""
        links.set_mac(DEVICE, mac, namespace=self.namespace)
        self.used_mac = mac

    def know(self, other: Guest) -> None:
        """A static neighbour entry, so a probe needs no ARP (ARP has its own checks)."""
        argv = ["ip", "neigh", "replace", other.used_ip, "lladdr", other.used_mac, "dev", DEVICE]
        assert in_namespace(self.namespace, *argv) == 0

    def stop(self) -> None:
        for server in self.servers:
            server.terminate()
            server.wait(timeout=10)
        self.servers.clear()


class Lab:
    """One bridge ``sxbr<suffix>`` and its guests."""

    def __init__(self) -> None:
        self.suffix = secrets.token_hex(3)
        self.bridge = f"sxbr{self.suffix}"
        self.guests: list[Guest] = []
        self.switch: str | None = None
        self.info = ovs_bridge.ensure_bridge(self.bridge)

    def guest(self, letter: str, ip: str, *, plugged: bool = True) -> Guest:
        """A guest whose port is plugged as libvirt plugs it (or not yet: ``plug`` later)."""
        guest = self._namespace(letter, ip)
        if plugged:
            self.plug(guest)
        return guest

    def plug(self, guest: Guest) -> None:
        ovs.add_port(self.bridge, guest.device, iface_id=guest.port_id, mac=guest.mac, vlan=None)

    def outside(self, letter: str, ip: str, *, vlan: int | None = None) -> Guest:
        """A host beyond the uplink: on a second bridge, the "physical switch".

        The switch (``sxsw<suffix>``, a plain learning switch) joins our bridge
        through a patch port pair; on our side the patch port has no iface-id,
        so the agent treats it as the uplink trunk. The host is an access port
        of the switch: untagged, or in ``vlan`` (the kernel here has no 802.1Q
        devices, so the switch does the tagging).
        """
        if self.switch is None:
            self.switch = f"sxsw{self.suffix}"
            ours, theirs = f"sxpa{self.suffix}", f"sxpb{self.suffix}"
            argv = ["ovs-vsctl", "add-br", self.switch, "--", "set", "Bridge", self.switch]
            argv.append("datapath_type=netdev")
            for port, bridge, peer in ((ours, self.bridge, theirs), (theirs, self.switch, ours)):
                argv += ["--", "add-port", bridge, port, "--", "set", "Interface", port]
                argv += ["type=patch", f"options:peer={peer}"]
            run(argv)
        host = self._namespace(letter, ip)
        tag = [f"tag={vlan}"] if vlan else []
        run(["ovs-vsctl", "add-port", self.switch, host.device, *tag])
        return host

    def _namespace(self, letter: str, ip: str) -> Guest:
        namespace, device = f"sxns{self.suffix}{letter}", f"sxv{self.suffix}{letter}"
        mac = f"fa:16:3e:{self.suffix[:2]}:{self.suffix[2:4]}:{ord(letter):02x}"
        guest = Guest(namespace, device, f"sxport-{self.suffix}-{letter}", mac, ip)
        self.guests.append(guest)
        netns.create(namespace)
        links.create_veth(device, DEVICE, peer_namespace=namespace, peer_mac=mac)
        links.set_up(device)
        links.set_up(DEVICE, namespace=namespace)
        links.add_address(DEVICE, f"{ip}/{PREFIX_LEN}", namespace=namespace)
        links.disable_tx_offload(DEVICE, namespace=namespace)
        return guest

    def unplug(self, guest: Guest) -> None:
        ovs.delete_port(guest.device)
        links.delete(guest.device)

    def close(self) -> None:
        for guest in self.guests:
            guest.stop()
            ovs.delete_port(guest.device)
            links.delete(guest.device)
            netns.delete(guest.namespace)
        if self.switch is not None:
            ovs.delete_bridge(self.switch)
        ovs.delete_bridge(self.bridge)
        self.assert_nothing_left()

    def assert_nothing_left(self) -> None:
        leftovers = [name for name in netns.names() if self.suffix in name]
        leftovers += [link.name for link in links.all_links() if self.suffix in link.name]
        leftovers += [name for name in run(["ovs-vsctl", "list-br"]).split() if self.suffix in name]
        assert leftovers == [], f"left behind: {leftovers}"


@contextlib.contextmanager
def lab() -> Iterator[Lab]:
    made = Lab()
    try:
        yield made
    finally:
        made.close()
