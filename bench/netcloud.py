"""The network benchmark's side of the cloud: guests on `provider`, ports with fake taps.

Times are taken around openstacksdk calls (one request each) and polls every
20 ms: of the guest's console log for its markers, of the port's status for
ACTIVE. Everything made is remembered and removed by ``clean_up``, through
libvirt for guests the API could not delete.
"""

from __future__ import annotations

import base64
import secrets
import time
from pathlib import Path

import libvirt
import openstack
from openstack.config.loader import OpenStackConfig
from openstack.connection import Connection
from taps import Tap, plug, remove_namespaces, unplug

from saphira.devtools import leftovers
from saphira.exception import SaphiraError
from saphira.guest_image import BOOTED, MARKER
from saphira.privsep import netns

IMAGE, FLAVOR, NETWORK = "saphira-tiny", "saphira.tiny", "provider"
L2_AGENT = "Open vSwitch agent"
#: In the order the guest prints them: udhcpc starts right after the MAC line.
#: The guest reads its user data from the metadata service (169.254.169.254, through the
#: proxy in the DHCP namespace) after its lease: the last line waited for.
USER_DATA = "#!/bin/sh\necho saphira-bench\n"
BOOT_LINES = (
    BOOTED,
    f"{MARKER} mac eth0",
    f"{MARKER} ip eth0",
    f"{MARKER} user_data (metadata-service)",
)
NO_LEASE = f"{MARKER} dhcp failed"
POLL = 0.02
STATUS_EVERY = 50  # console polls between two GETs of the server (an ERROR ends the wait)
WAIT = 180.0


class ServerFailed(RuntimeError):
    def __init__(self, server_id: str, why: str) -> None:
        super().__init__(f"{server_id}: {why}")
        self.server_id = server_id


def remove_guests_under(instances: Path) -> None:
    try:
        removed = leftovers.remove_guests_under(instances)
    except (libvirt.libvirtError, SaphiraError) as error:  # listing, or one removal
        print(f"  guests under {instances} may be left: {error}")
        return
    for name in removed:
        print(f"  removed the domain {name} through libvirt")


class NetBench:
    """The admin's connection, the ids it needs, and every server, port and tap alive."""

    def __init__(self, state_dir: Path, instances: Path, bridge: str) -> None:
        region = OpenStackConfig(
            config_files=[str(state_dir / "clouds.yaml")], load_envvars=False
        ).get_one(cloud="admin")
        self.conn = Connection(config=region)
        self.instances, self.bridge = instances, bridge
        self.image = self.conn.image.find_image(IMAGE, ignore_missing=False).id
        self.flavor = self.conn.compute.find_flavor(FLAVOR, ignore_missing=False).id
        self.network = self.conn.network.find_network(NETWORK, ignore_missing=False).id
        self.host = self._l2_host()
        self.suffix = secrets.token_hex(3)
        self.tap_namespace = f"sxns{self.suffix}"
        netns.create(self.tap_namespace)
        self.servers: set[str] = set()
        self.ports: set[str] = set()
        self.taps: list[Tap] = []

    def _l2_host(self) -> str:
        """The host name the cloud binds ports to: its L2 agent's (`network agent list`)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for agent in self.conn.network.agents():
                if agent.agent_type == L2_AGENT and agent.is_alive:
                    return str(agent.host)
            time.sleep(0.5)
        raise RuntimeError(f"no {L2_AGENT} alive after 60 s")

    # --- guests --------------------------------------------------------------------

    def lease(self, name: str) -> tuple[list[float], str]:
        """One server on `provider`: seconds from the POST to each of BOOT_LINES, and its id."""
        began = time.perf_counter()
        server = self.conn.compute.create_server(
            name=name, image_id=self.image, flavor_id=self.flavor,
            networks=[{"uuid": self.network}],
            user_data=base64.b64encode(USER_DATA.encode()).decode(),
        )  # fmt: skip
        self.servers.add(server.id)
        console = self.instances / server.id / "console.log"
        seen: list[float] = []
        polls = 0
        while (now := time.perf_counter()) - began < WAIT:
            text = _read(console)
            for line in BOOT_LINES[len(seen) :]:
                if line not in text:
                    break
                seen.append(now - began)
            if len(seen) == len(BOOT_LINES):
                return seen, server.id
            if NO_LEASE in text:
                raise ServerFailed(server.id, "the guest got no DHCP lease")
            polls += 1
            if polls % STATUS_EVERY == 0:
                self._not_failed(server.id)
            time.sleep(POLL)
        raise RuntimeError(f"{server.id}: {BOOT_LINES[-1]!r} not on its console in {WAIT:.0f} s")

    def _not_failed(self, server_id: str) -> None:
        server = self.conn.compute.get_server(server_id)
        if server.status == "ERROR":
            fault = (server.fault or {}).get("message", "no fault recorded")
            raise ServerFailed(server_id, f"went to ERROR: {fault[:300]}")

    def delete_server(self, server_id: str) -> None:
        """DELETE, then GETs every 50 ms until 404: the next guest starts on a quiet host."""
        self.conn.compute.delete_server(server_id)
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            try:
                self.conn.compute.get_server(server_id)
            except openstack.exceptions.NotFoundException:
                self.servers.discard(server_id)
                return
            time.sleep(0.05)
        raise RuntimeError(f"{server_id} still there {WAIT:.0f} s after DELETE")

    def delete_servers(self) -> None:
        for server_id in list(self.servers):
            self.delete_server(server_id)

    # --- ports ---------------------------------------------------------------------

    def port_active(self, n: int) -> tuple[float, float, float]:
        """Create a bound port, plug a tap for it, poll until ACTIVE, remove both.

        Seconds from the create and from the end of the plug to ACTIVE, and
        what the plug took (veth, OVS port).
        """
        began = time.perf_counter()
        port = self.conn.network.create_port(
            network_id=self.network, binding_host_id=self.host, name=f"bench-port-{n}"
        )
        self.ports.add(port.id)
        tap = Tap(f"sxo{self.suffix}{n:03d}", f"sxi{self.suffix}{n:03d}",
                  self.tap_namespace, port.id, port.mac_address)  # fmt: skip
        self.taps.append(tap)
        plugging = time.perf_counter()
        plug(self.bridge, tap)
        plugged = time.perf_counter()
        while self.conn.network.get_port(port.id).status != "ACTIVE":
            if time.perf_counter() - began > WAIT:
                raise RuntimeError(f"port {port.id} not ACTIVE after {WAIT:.0f} s")
            time.sleep(POLL)
        active = time.perf_counter()
        self._remove_port(tap)
        return active - began, active - plugged, plugged - plugging

    def _remove_port(self, tap: Tap) -> None:
        """The tap first, so the agent never isolates a port the service still lists."""
        unplug(tap)
        self.taps.remove(tap)
        self.conn.network.delete_port(tap.port_id, ignore_missing=True)
        self.ports.discard(tap.port_id)

    def clean_up(self) -> None:
        """Every tap, port and server still there; the caller removes leftover domains."""
        errors = (RuntimeError, openstack.exceptions.SDKException)
        for tap in list(self.taps):
            unplug(tap)
        for port_id in list(self.ports):
            try:
                self.conn.network.delete_port(port_id, ignore_missing=True)
            except errors as error:
                print(f"  could not delete port {port_id}: {error}")
        for server_id in list(self.servers):
            try:
                self.delete_server(server_id)
            except errors as error:
                print(f"  could not delete {server_id} through the API: {error}")
        remove_namespaces(self.suffix)
        self.conn.close()


def _read(console: Path) -> str:
    try:
        return console.read_text(errors="replace")
    except FileNotFoundError:
        return ""  # libvirt has not started the guest yet
