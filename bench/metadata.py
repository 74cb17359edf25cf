#!/usr/bin/env python3
"""Metadata requests while many guests ask at once, through the real proxy path.

As root, with Open vSwitch. Starts `saphira up --compute-driver
fake.FakeDriver --provider-network` on a bridge and a /24 of its own with
`[neutron] service_metadata_proxy = true`, its DHCP agent's metadata agent
pointed at a stand-in metadata API in this process (it checks the signature
and answers a small JSON document; the real API's own cost is not in these
figures). Then `--guests` (50) ports are made on `provider` as an instance's
are (`device_owner compute:nova`, a device id, bound to the cloud's host),
each plugged as a fake tap into a namespace of its own with the port's
address and the route option 121 gives (169.254.169.254 via the DHCP port).
Once all are ACTIVE, every guest sends `--requests` (10) requests one after
another, all guests starting at the same instant, as cloud-init does at boot:
guest -> OVS -> the namespace's proxy -> the agent's unix socket -> the port
look-up (network API, the `neutron` service user) -> the signed request.

With `--real-api` the guests are fake-driver servers made in one request
(with user data) and the requests go on to `saphira up`'s own metadata API,
so its cost is in the figures too.

Prints p50/p99 in milliseconds of each guest's first request (its look-up
not cached yet) and of the others, and the failures; asserts nothing.
Removes every port, tap, namespace, the bridge, the DHCP namespace with
dnsmasq and the proxy, and stops the cloud.

    .venv/bin/python bench/metadata.py [--guests 50] [--requests 10] [--real-api]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
import warnings
from pathlib import Path
from typing import Any

import openstack
from keystoneauth1.exceptions import ClientException
from openstack.config.loader import OpenStackConfig
from openstack.connection import Connection

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Cloud, free_offset
from metadata_standin import StandIn, percentile
from taps import Tap, plug, remove_namespaces, unplug

from saphira.devtools import leftovers
from saphira.devtools.benchreport.figures import Figure, emit
from saphira.exception import SaphiraError
from saphira.privsep import netns

CONF = (
    "[ovs]\nbridge_mappings = physnet1:{bridge}\n\n[provider]\ncidr = {cidr}\n\n"
    "[neutron]\nservice_metadata_proxy = true\nmetadata_proxy_shared_secret = {secret}\n"
)
ERRORS = (RuntimeError, OSError, openstack.exceptions.SDKException, ClientException, SaphiraError)
WAIT = 180.0
PATHS = ("/openstack/latest/meta_data.json", "/openstack/latest/user_data",
         "/openstack/latest/network_data.json", "/latest/meta-data/instance-id")  # fmt: skip
CLIENT = """
import http.client, json, sys, time
start_at, count, paths = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(",")
time.sleep(max(0.0, start_at - time.time()))
out = []
for n in range(count):
    began = time.perf_counter()
    try:
        connection = http.client.HTTPConnection("169.254.169.254", 80, timeout=30)
        connection.request("GET", paths[n % len(paths)])
        reply = connection.getresponse()
        reply.read()
        status = reply.status
        connection.close()
    except OSError as error:
        status = str(error)
    out.append([(time.perf_counter() - began) * 1000, status])
print(json.dumps(out))
"""


class Guests:
    """The ports, taps and namespaces of the simulated guests, all removed by ``clean_up``."""

    def __init__(self, conn: Connection, bridge: str) -> None:
        self.conn, self.bridge = conn, bridge
        self.network = conn.network.find_network("provider", ignore_missing=False)
        self.host = wait_for("an L2 agent", lambda: l2_host(conn))
        self.suffix = secrets.token_hex(3)
        self.taps: list[Tap] = []
        self.ports: list[str] = []
        self.servers: list[str] = []
        self.images: list[str] = []
        self.flavors: list[str] = []

    def instance_ports(self, count: int) -> list[Any]:
        """Ports as an instance's are, without an instance (the stand-in API answers)."""
        made = []
        for n in range(count):
            made.append(self.conn.network.create_port(
                network_id=self.network.id, binding_host_id=self.host, name=f"bench-md-{n}",
                device_owner="compute:nova", device_id=str(uuid.uuid4()),
            ))  # fmt: skip
        return made

    def server_ports(self, count: int) -> list[Any]:
        """Fake-driver servers on provider, made in one request; their ports."""
        project = str(self.conn.current_project_id)
        self.conn.set_compute_quotas(project, instances=-1, cores=-1, ram=-1)
        image = self.conn.image.create_image(
            "bench-md-image", data=b"\0" * 4096, disk_format="raw", container_format="bare"
        )
        self.images.append(image.id)
        flavor = self.conn.compute.create_flavor(name=f"bench-md-{self.suffix}", ram=64,
                                                 vcpus=1, disk=1)  # fmt: skip
        self.flavors.append(flavor.id)
        self.conn.compute.create_server(
            name="bench-md", image_id=image.id, flavor_id=flavor.id, min_count=count,
            max_count=count, networks=[{"uuid": self.network.id}],
            user_data=base64.b64encode(b"#!/bin/sh\necho bench\n").decode(),
        )  # fmt: skip
        servers = wait_for("the servers ACTIVE", lambda: self.all_active(count))
        self.servers = [server.id for server in servers]
        return [p for sid in self.servers for p in self.conn.network.ports(device_id=sid)]

    def all_active(self, count: int) -> list[Any] | None:
        servers = list(self.conn.compute.servers(name="^bench-md"))
        if any(server.status == "ERROR" for server in servers):
            raise RuntimeError("a benchmark server went to ERROR")
        active = [server for server in servers if server.status == "ACTIVE"]
        return active if len(active) == count else None

    def make(self, count: int, *, servers: bool) -> None:
        hop = wait_for("the DHCP port", lambda: dhcp_ip(self.conn, self.network.id))
        prefix = self.subnet_prefix()
        made = self.server_ports(count) if servers else self.instance_ports(count)
        for n, port in enumerate(made):
            if not servers:
                self.ports.append(port.id)
            namespace = f"sxmd{self.suffix}{n:03d}"
            netns.create(namespace)
            tap = Tap(f"sxmd{self.suffix}{n:03d}", "eth0", namespace, port.id, port.mac_address)
            self.taps.append(tap)
            plug(self.bridge, tap, ip_cidr=f"{port.fixed_ips[0]['ip_address']}/{prefix}")
            route = ["ip", "route", "add", "169.254.169.254/32", "via", hop]
            subprocess.run(["ip", "netns", "exec", namespace, *route], check=True)
        for tap in self.taps:
            wait_for(f"port {tap.port_id} ACTIVE", lambda p=tap.port_id: self.active(p))

    def subnet_prefix(self) -> int:
        subnet = self.conn.network.get_subnet(self.network.subnet_ids[0])
        return int(str(subnet.cidr).split("/")[1])

    def active(self, port_id: str) -> bool:
        return bool(self.conn.network.get_port(port_id).status == "ACTIVE")

    def ask(self, requests: int) -> list[list[tuple[float, object]]]:
        start_at = time.time() + 2.0 + 0.1 * len(self.taps)
        paths = ",".join(PATHS)
        argv = [sys.executable, "-c", CLIENT, str(start_at), str(requests), paths]
        procs = [
            subprocess.Popen(["ip", "netns", "exec", tap.namespace, *argv], stdout=subprocess.PIPE)
            for tap in self.taps
        ]
        results = []
        for proc in procs:
            out, _ = proc.communicate(timeout=WAIT)
            results.append([(float(ms), status) for ms, status in json.loads(out)])
        return results

    def clean_up(self) -> None:
        for tap in self.taps:
            unplug(tap)
        for port_id in self.ports:
            try:
                self.conn.network.delete_port(port_id, ignore_missing=True)
            except ERRORS as error:
                print(f"  could not delete port {port_id}: {error}")
        for server_id in self.servers:
            self.conn.compute.delete_server(server_id, ignore_missing=True)
        for server_id in self.servers:
            wait_for(f"server {server_id} gone",
                     lambda s=server_id: self.conn.compute.find_server(s) is None)  # fmt: skip
        for image_id in self.images:
            self.conn.image.delete_image(image_id, ignore_missing=True)
        for flavor_id in self.flavors:
            self.conn.compute.delete_flavor(flavor_id, ignore_missing=True)
        remove_namespaces(f"sxmd{self.suffix}")
        self.conn.close()


def wait_for(what: str, probe: Any) -> Any:
    deadline = time.monotonic() + WAIT
    while not (found := probe()):
        if time.monotonic() > deadline:
            raise RuntimeError(f"no {what} after {WAIT:.0f} s")
        time.sleep(0.2)
    return found


def l2_host(conn: Connection) -> str | None:
    for agent in conn.network.agents():
        if agent.agent_type == "Open vSwitch agent" and agent.is_alive:
            return str(agent.host)
    return None


def dhcp_ip(conn: Connection, network_id: str) -> str | None:
    for port in conn.network.ports(network_id=network_id, device_owner="network:dhcp"):
        if port.fixed_ips:
            return str(port.fixed_ips[0]["ip_address"])
    return None


def report(results: list[list[tuple[float, object]]], stand_in: StandIn | None) -> None:
    first = [run[0][0] for run in results if run and run[0][1] == 200]
    rest = [ms for run in results for ms, status in run[1:] if status == 200]
    failed = [status for run in results for _, status in run if status != 200]
    for label, values in (("first request of each guest", first), ("the other requests", rest)):
        if values:
            print(f"  {label:<30} p50 {percentile(values, 0.5):7.1f} ms  "
                  f"p99 {percentile(values, 0.99):7.1f} ms  max {max(values):7.1f} ms "
                  f"({len(values)})")  # fmt: skip
            key = "metadata.first" if values is first else "metadata.rest"
            emit(
                Figure(
                    f"{key}_p50",
                    f"metadata, {len(results)} guests at once, {label}, p50",
                    percentile(values, 0.5),
                    "ms",
                ),
                Figure(
                    f"{key}_p99",
                    f"metadata, {len(results)} guests at once, {label}, p99",
                    percentile(values, 0.99),
                    "ms",
                ),
            )
    print(f"  failed requests: {len(failed)} {sorted(set(map(str, failed)))[:5]}")
    emit(Figure("metadata.failed", "metadata requests failed", len(failed), "requests"))
    if stand_in is not None:
        print(f"  the stand-in API answered {stand_in.answered}, refused {stand_in.refused}")


def connect(state_dir: Path) -> Connection:
    region = OpenStackConfig(
        config_files=[str(state_dir / "clouds.yaml")], load_envvars=False
    ).get_one(cloud="admin")
    return Connection(config=region)


def with_cloud(args: argparse.Namespace, work: Path, stand_in: StandIn) -> bool:
    bridge = f"sxbr{secrets.token_hex(4)}"
    cidr = f"10.{random.randrange(150, 250)}.{random.randrange(0, 250)}.0/24"
    conf = CONF.format(bridge=bridge, cidr=cidr, secret=stand_in.secret)
    if args.real_api:  # room for every guest on the one fake host
        conf += "\n[fake_driver]\nvcpus = 1000\nmemory_mb = 1000000\nlocal_gb = 100000\n"
    else:
        conf += f"\n[metadata_agent]\nnova_metadata_port = {stand_in.port}\n"
    (work / "bench.conf").write_text(conf)
    extra = ["--compute-driver", "fake.FakeDriver", "--no-test-image", "--provider-network",
             "--config-file", str(work / "bench.conf")]  # fmt: skip
    cloud = Cloud([sys.executable, "-m", "saphira.cmd.up"], work / "state", free_offset(),
                  work / "saphira.log", extra_args=extra)  # fmt: skip
    guests: Guests | None = None
    try:
        ready = cloud.start()
        guests = Guests(connect(cloud.state_dir), bridge)
        print(f"saphira metadata benchmark ({args.guests} guests x {args.requests} requests, "
              f"provider {cidr}); ready after {ready:.1f} s; {os.cpu_count()} CPUs, "
              f"load average {os.getloadavg()[0]:.2f}")  # fmt: skip
        guests.make(args.guests, servers=args.real_api)
        report(guests.ask(args.requests), None if args.real_api else stand_in)
    except ERRORS as error:
        print(f"metadata benchmark stopped: {error}\n  saphira log kept: {cloud.log_path}")
        return False
    finally:
        try:
            if guests is not None:
                guests.clean_up()
        except ERRORS as error:
            print(f"  cleaning the guests stopped: {error}")
        cloud.stop()  # whatever happened above: a cloud left running recreates its namespaces
        try:
            for line in leftovers.purge(cloud.state_dir):
                print(f"  {line}")
        except ERRORS as error:
            print(f"  the cloud of {cloud.state_dir} may be left: {error}")
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--guests", type=int, default=50, help="guests asking at once (50)")
    parser.add_argument("--requests", type=int, default=10, help="requests per guest (10)")
    parser.add_argument("--real-api", action="store_true",
                        help="fake-driver servers and saphira up's own metadata API instead of "
                             "bare ports and the stand-in")  # fmt: skip
    args = parser.parse_args()
    if os.geteuid() != 0 or not 1 <= args.guests <= 200:
        parser.error("run as root; --guests from 1 to 200")
    warnings.filterwarnings("ignore", category=PendingDeprecationWarning, module="openstack")
    work = Path(tempfile.mkdtemp(prefix="saphira-bench-metadata-", dir="/var/tmp"))
    work.chmod(0o711)
    with StandIn.running() as stand_in:
        ok = with_cloud(args, work, stand_in)
    if ok:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
