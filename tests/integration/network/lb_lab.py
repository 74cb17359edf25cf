"""A Linux bridge with "guests": namespaces whose veth peers are the ports' taps.

Each guest's host-side veth end is named as Nova names a tap
(``tap<port id[:11]>``; the port ids start with ``sx<suffix>`` so the taps
carry the lab's suffix) and enslaved to the bridge as libvirt does it, or
left loose for the agent to plug. The agent's nftables tables are named
after the lab. ``close`` removes everything and checks nothing is left.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from saphira.network.l2.linuxbridge import LinuxBridgeReconciler
from saphira.network.l2.nft_ruleset import tap_name
from saphira.objects.network import FixedIP, PortDetails, SecurityRule, Segment
from saphira.privsep import bridge, links, netns, nft
from saphira.privsep.runner import PrivsepError, run

DEVICE = "eth0"
EGRESS_OPEN = [SecurityRule("egress", "IPv4"), SecurityRule("egress", "IPv6")]
UDP_SINK = """
import socket, sys
sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sink.bind(("0.0.0.0", int(sys.argv[1])))
with open(sys.argv[2], "a") as seen:
    while True:
        data, (source, _) = sink.recvfrom(2048)
        seen.write(f"{source} {data.decode()}\\n")
        seen.flush()
"""


def in_namespace(namespace: str, *argv: str, timeout: float = 20.0) -> int:
    """Exit status of ``argv`` inside ``namespace`` (probes fail by design: no raise)."""
    full = ["ip", "netns", "exec", namespace, *argv]
    return subprocess.run(full, capture_output=True, timeout=timeout, check=False).returncode


def tcp_ok(ip: str, port: int, namespace: str | None = None) -> bool:
    """A new connection to ip:port within 1.5 s (from the host when no namespace)."""
    code = f"import socket; socket.create_connection(({ip!r}, {port}), timeout=1.5).close()"
    argv = [sys.executable, "-c", code]
    if namespace is None:
        return subprocess.run(argv, capture_output=True, timeout=20, check=False).returncode == 0
    return in_namespace(namespace, *argv) == 0


@dataclass
class Guest:
    namespace: str
    tap: str
    port_id: str
    mac: str  # the port's
    ip: str  # the port's fixed IPv4 address
    ip6: str  # and IPv6 one
    prefix: int
    network_id: str
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def details(
        self, *, rules: list[SecurityRule] | None = None, vlan: int | None = None, **fields: object
    ) -> PortDetails:
        """The port as the network service describes it (egress open unless ``rules`` say)."""
        segment = Segment("vlan", "physnet1", vlan) if vlan else Segment("flat", "physnet1")
        port = PortDetails(
            self.port_id,
            self.network_id,
            self.mac,
            segment,
            fixed_ips=[FixedIP("sxsubnet", self.ip), FixedIP("sxsubnet6", self.ip6)],
            security_rules=EGRESS_OPEN + (rules or []),
        )
        for name, value in fields.items():
            setattr(port, name, value)
        return port

    def tcp_ok(self, ip: str, port: int) -> bool:
        return tcp_ok(ip, port, self.namespace)

    def ping_ok(self, ip: str, *, source: str | None = None) -> bool:
        """One echo request with a fresh ICMP id (a new connection) answered within 1 s."""
        extra = ["-I", source] if source else []
        return in_namespace(self.namespace, "ping", "-n", "-c", "1", "-W", "1", *extra, ip) == 0

    def serve_tcp(self, port: int) -> None:
        """A listener on every address, ready when this returns (checked over lo)."""
        self._spawn(sys.executable, "-m", "http.server", str(port))
        deadline = time.monotonic() + 10
        while not self.tcp_ok("127.0.0.1", port):
            assert time.monotonic() < deadline, f"nothing listens on {self.namespace}:{port}"
            time.sleep(0.1)

    def serve_dhcp(self, first: str, last: str) -> None:
        """dnsmasq handing out ``first``-``last``, in the foreground (``stop`` ends it)."""
        self._spawn(
            "dnsmasq", "--no-daemon", "--conf-file=/dev/null", "--no-resolv", "--no-hosts",
            "--port=0", "--user=root", "--pid-file=", "--leasefile-ro", "--bind-interfaces",
            # Without it dnsmasq pings a free address for ~3 s before offering it: as long
            # as the client waits (dhcp_ok), so a busy machine failed the lease.
            "--no-ping",
            f"--interface={DEVICE}", f"--dhcp-range={first},{last},255.255.255.0,2m",
        )  # fmt: skip
        self._wait_udp(67)

    def dhcp_ok(self) -> bool:
        """Whether a DHCP client on the guest gets a lease within about 3 s."""
        client = ["busybox", "udhcpc", "-i", DEVICE, "-n", "-q", "-t", "3", "-T", "1"]
        return in_namespace(self.namespace, *client, "-s", "/bin/true") == 0

    def sink_udp(self, port: int) -> Path:
        """A file that gains a ``<source ip> <payload>`` line per datagram received."""
        seen = Path(tempfile.mkstemp(prefix="sxlb-udp-")[1])
        self._spawn(sys.executable, "-c", UDP_SINK, str(port), str(seen))
        self._wait_udp(port)
        return seen

    def send_udp(self, ip: str, port: int, payload: str, *, source: str = "") -> None:
        code = (
            "import socket, sys; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM);"
            f" s.bind(({source!r}, 0)); s.sendto({payload.encode()!r}, ({ip!r}, {port}))"
        )
        assert in_namespace(self.namespace, sys.executable, "-c", code) == 0

    def arping(self, ip: str, *, source: str) -> None:
        """One ARP request for ``ip`` saying it comes from ``source`` (answered or not)."""
        argv = ["busybox", "arping", "-c", "1", "-w", "1", "-I", DEVICE, "-s", source, ip]
        in_namespace(self.namespace, *argv)

    def neighbours(self) -> dict[str, str]:
        """The addresses this guest has learnt a MAC for."""
        out = run(["ip", "-j", "neigh", "show", "dev", DEVICE], namespace=self.namespace)
        return {n["dst"]: n["lladdr"] for n in json.loads(out) if "lladdr" in n}

    def add_address(self, ip: str) -> None:
        links.add_address(DEVICE, f"{ip}/{self.prefix}", namespace=self.namespace)

    def set_mac(self, mac: str) -> None:
        links.set_mac(DEVICE, mac, namespace=self.namespace)

    def know(self, ip: str, mac: str) -> None:
        """A static neighbour entry: the probe that follows needs no ARP."""
        argv = ["ip", "neigh", "replace", ip, "lladdr", mac, "dev", DEVICE]
        assert in_namespace(self.namespace, *argv) == 0

    def _wait_udp(self, port: int) -> None:
        deadline = time.monotonic() + 10
        while not run(["ss", "-H", "-lun", f"sport = :{port}"], namespace=self.namespace).strip():
            assert time.monotonic() < deadline, f"nothing listens on {self.namespace} udp {port}"
            time.sleep(0.1)

    def _spawn(self, *argv: str) -> None:
        full = ["ip", "netns", "exec", self.namespace, *argv]
        self.processes.append(
            subprocess.Popen(full, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        )

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
            process.wait(timeout=10)
        self.processes.clear()


class Lab:
    """Bridge ``sxlb<suffix>`` (physnet1), guests on 10.<a>.<b>.0/24, tables ``saphira_<suffix>``.

    The privileged helper touches no nftables table whose name does not start with "saphira".
    """

    def __init__(self) -> None:
        self.suffix = secrets.token_hex(3)
        self.bridge, self.table = f"sxlb{self.suffix}", f"saphira_{self.suffix}"
        self.net = f"10.{200 + secrets.randbelow(50)}.{secrets.randbelow(256)}"
        self.network_id = f"sx{self.suffix}-net-0000"
        self.guests: list[Guest] = []
        self.udp_files: list[Path] = []
        self.agent = LinuxBridgeReconciler({"physnet1": self.bridge}, table=self.table)

    def ip(self, host: int) -> str:
        return f"{self.net}.{host}"

    def make_bridge(self) -> None:
        bridge.create(self.bridge)
        links.set_up(self.bridge)

    def guest(self, letter: str, *, plugged: bool = True, device: str = "") -> Guest:
        """A guest (IP .<n> for letter n-th) whose tap is in the bridge, or still loose.

        ``device`` names the host end something else than the port's tap: a
        namespace standing for the physical network or the DHCP agent.
        """
        host = ord(letter) - ord("a") + 1
        port_id = f"sx{self.suffix}{letter}-0000-4000-8000-{host:012d}"
        mac = f"fa:16:3e:{self.suffix[:2]}:{self.suffix[2:4]}:{host:02x}"
        namespace, tap = f"sxlb{self.suffix}{letter}", device or tap_name(port_id)
        ip, ip6 = self.ip(host), f"fd00:5a::{host:x}"
        guest = Guest(namespace, tap, port_id, mac, ip, ip6, 24, self.network_id)
        self.guests.append(guest)
        netns.create(namespace)
        links.create_veth(tap, DEVICE, peer_namespace=namespace, peer_mac=mac)
        links.set_up(DEVICE, namespace=namespace)
        links.add_address(DEVICE, f"{ip}/24", namespace=namespace)
        links.add_address(DEVICE, f"{ip6}/64", namespace=namespace)
        if plugged:
            links.set_master(tap, self.bridge)
            links.set_up(tap)
        return guest

    def sink_udp(self, guest: Guest, port: int) -> Path:
        seen = guest.sink_udp(port)
        self.udp_files.append(seen)
        return seen

    def tables(self) -> dict[str, object]:
        return {family: nft.list_table(family, self.table) for family in ("bridge", "inet")}

    def close(self) -> None:
        for guest in self.guests:
            guest.stop()
            links.delete(guest.tap)
            netns.delete(guest.namespace)
        for family in ("bridge", "inet"):
            nft.delete_table(family, self.table)
        for link in links.all_links():
            if self.suffix in link.name and link.kind in ("vlan", "bridge"):
                links.delete(link.name)
        for seen in self.udp_files:
            seen.unlink(missing_ok=True)
        self.assert_nothing_left()

    def assert_nothing_left(self) -> None:
        leftovers = [name for name in netns.names() if self.suffix in name]
        leftovers += [link.name for link in links.all_links() if self.suffix in link.name]
        leftovers += [f"table {f}" for f, t in self.tables().items() if t is not None]
        assert leftovers == [], f"left behind: {leftovers}"


def vlans_supported(lab: Lab) -> bool:
    """Whether this kernel makes 802.1Q devices (probed on the lab's own bridge)."""
    probe = f"sxlb{lab.suffix}.9"
    try:
        bridge.create_vlan(probe, lab.bridge, 9)
    except PrivsepError:
        return False
    links.delete(probe)
    return True


@contextlib.contextmanager
def lab(*, with_bridge: bool = True) -> Iterator[Lab]:
    made = Lab()
    try:
        if with_bridge:
            made.make_bridge()
        yield made
    finally:
        made.close()
