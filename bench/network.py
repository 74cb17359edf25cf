#!/usr/bin/env python3
"""Networking figures: guest start -> DHCP lease, port create -> ACTIVE, L2 agent restart.

Starts `saphira up --compute-driver libvirt.LibvirtDriver --test-image
--provider-network` on a bridge and a /24 of its own (random `sx` names),
with `[agent] polling_interval` as given (2 s, the default: the API's nudge
wakes the agents on every change, polling only notices new taps), and
measures through openstacksdk:

* guests booted one after another on `provider`: from the POST to the
  console's `SAPHIRA-GUEST: ip eth0` line (the lease applied), and from its
  `booted` line to that one (the DHCP part alone), and to the
  `user_data (metadata-service)` line (the guest's user data read from
  169.254.169.254 through the DHCP namespace's metadata proxy);
* ports created as admin on `provider`, bound to the cloud's host, then
  plugged as a fake tap (a veth on the bridge with the port's iface-id):
  to the first GET showing ACTIVE, from the create and from the plug.

Then, without the cloud, an agent restart with 100 ports (`agent_restart.py`).
Deletes every server, port, tap, namespace and bridge it made, the DHCP
agent's namespace and dnsmasq too, and stops the cloud with SIGTERM. Prints
figures; asserts nothing.

    .venv/bin/python bench/network.py [--guests N] [--ports N] [--agent-ports N]
        [--restarts N] [--polling-interval S]
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import openstack
from keystoneauth1.exceptions import ClientException

sys.path.insert(0, str(Path(__file__).resolve().parent))
import agent_restart
from common import Cloud, free_offset
from netcloud import NetBench, ServerFailed

from saphira.devtools import leftovers
from saphira.devtools.benchreport.figures import Figure, emit
from saphira.exception import SaphiraError

CONF = (
    "[DEFAULT]\ninstances_path = {instances}\nvif_plugging_timeout = 120\n\n"
    "[libvirt]\nvirt_type = qemu\n\n[ovs]\nbridge_mappings = physnet1:{bridge}\n\n"
    "[provider]\ncidr = {cidr}\n\n[agent]\npolling_interval = {polling}\n"
)
ERRORS = (RuntimeError, openstack.exceptions.SDKException, ClientException, SaphiraError)


def percentile(values: list[float], share: float) -> float:
    """Nearest rank: with fewer than 100 values, p99 is the maximum."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def spread(label: str, values: list[float], key: str = "") -> None:
    print(f"  {label:<34} p50 {statistics.median(values):6.2f} s  "
          f"p99 {percentile(values, 0.99):6.2f} s  (min {min(values):.2f}, "
          f"max {max(values):.2f}; {len(values)} runs)")  # fmt: skip
    if key:
        emit(
            Figure(f"network.{key}_p50", f"{label}, p50", statistics.median(values), "s"),
            Figure(f"network.{key}_p99", f"{label}, p99", percentile(values, 0.99), "s"),
        )


def retried(bench: NetBench, name: str) -> tuple[list[float], str]:
    """A server that goes to ERROR (libvirtd restarted meanwhile) is tried once more."""
    try:
        return bench.lease(name)
    except ServerFailed as failed:
        print(f"  (retrying once in 5 s: {failed})")
        bench.delete_server(failed.server_id)
        time.sleep(5)
        return bench.lease(name)


def guests(bench: NetBench, count: int) -> None:
    """Each run: [booted, mac, ip, user data] seconds after the POST (see BOOT_LINES).

    Every guest stays until the last one has its lease: a deleted guest's
    address, handed to the next port, would meet the old lease in dnsmasq.
    """
    (booted, _, leased, _), _ = retried(bench, "bench-net-first")
    print(f"  first guest (image fetched into the cache): POST->lease {leased:.2f} s, "
          f"booted->lease {leased - booted:.2f} s")  # fmt: skip
    runs = [retried(bench, f"bench-net-{run}")[0] for run in range(count)]
    bench.delete_servers()
    spread("guest POST->DHCP lease (ip eth0)", [ip for _, _, ip, _ in runs], "lease")
    spread("  (POST->booted line)", [booted for booted, _, _, _ in runs])
    spread("guest booted->DHCP lease", [ip - booted for booted, _, ip, _ in runs], "boot_lease")
    spread("  (udhcpc alone: mac eth0->ip)", [ip - mac for _, mac, ip, _ in runs])
    spread(
        "guest booted->user data printed",
        [data - booted for booted, _, _, data in runs],
        "boot_userdata",
    )
    spread("  (lease->user data printed)", [data - ip for _, _, ip, data in runs])


def ports(bench: NetBench, count: int) -> None:
    bench.port_active(count)  # warm-up: the admin's default security group is made on first use
    from_create: list[float] = []
    from_plug: list[float] = []
    plugging: list[float] = []
    for n in range(count):
        created, plugged, plug_took = bench.port_active(n)
        from_create.append(created)
        from_plug.append(plugged)
        plugging.append(plug_took)
    spread("port create->ACTIVE", from_create, "port_active")
    spread("port plugged->ACTIVE", from_plug, "plug_active")
    spread("  (plugging the tap itself)", plugging)


def clean_cloud(cloud: Cloud) -> None:
    """What outlives `saphira up` by design (guests, the DHCP namespace and dnsmasq, the
    bridge it made), taken away by saphira purge."""
    try:
        for line in leftovers.purge(cloud.state_dir):
            print(f"  {line}")
    except ERRORS as error:
        print(f"  the cloud of {cloud.state_dir} may be left: {error}")


def with_cloud(args: argparse.Namespace, work: Path) -> bool:
    """The guest and port figures; False if the cloud part stopped on an error."""
    instances, bridge = work / "instances", f"sxbr{secrets.token_hex(4)}"
    cidr = f"10.{random.randrange(150, 250)}.{random.randrange(0, 250)}.0/24"
    (work / "bench.conf").write_text(
        CONF.format(instances=instances, bridge=bridge, cidr=cidr, polling=args.polling_interval)
    )
    extra = ["--compute-driver", "libvirt.LibvirtDriver", "--test-image", "--provider-network",
             "--config-file", str(work / "bench.conf")]  # fmt: skip
    cloud = Cloud([sys.executable, "-m", "saphira.cmd.up"], work / "state", free_offset(),
                  work / "saphira.log", extra_args=extra)  # fmt: skip
    bench: NetBench | None = None
    try:
        ready = cloud.start()
        bench = NetBench(cloud.state_dir, instances, bridge)
        print(f"saphira network benchmark (libvirt, TCG, provider {cidr} on {bridge}, "
              f"L2 agent on host {bench.host!r}, polling {args.polling_interval} s); "
              f"ready after {ready:.2f} s; "
              f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")  # fmt: skip
        if args.guests:
            guests(bench, args.guests)
        if args.ports:
            ports(bench, args.ports)
        print(f"  load average after the cloud part: {os.getloadavg()[0]:.2f}")
    except ERRORS as error:
        print(f"network benchmark stopped: {error}\n  saphira log kept: {cloud.log_path}")
        return False
    finally:
        if bench is not None:
            bench.clean_up()
        cloud.stop()
        clean_cloud(cloud)
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--guests", type=int, default=5, help="guests to boot (5; 0: skip)")
    parser.add_argument("--ports", type=int, default=50, help="ports to create (50; 0: skip)")
    parser.add_argument("--agent-ports", type=int, default=100,
                        help=f"ports for the agent restart (100, at most "
                             f"{agent_restart.MAX_PORTS}; 0: skip)")  # fmt: skip
    parser.add_argument("--restarts", type=int, default=5, help="agent restarts measured (5)")
    parser.add_argument("--polling-interval", type=float, default=2.0,
                        help="[agent] polling_interval of the cloud's agents (2.0)")  # fmt: skip
    args = parser.parse_args()
    if not 0 <= args.agent_ports <= agent_restart.MAX_PORTS or args.ports > 998:
        parser.error(f"--agent-ports: 0 to {agent_restart.MAX_PORTS}; --ports: at most 998")
    warnings.filterwarnings("ignore", category=PendingDeprecationWarning, module="openstack")
    work = Path(tempfile.mkdtemp(prefix="saphira-bench-network-", dir="/var/tmp"))
    work.chmod(0o711)  # QEMU runs as its own user and must reach the instances
    ok = True
    if args.guests or args.ports:
        ok = with_cloud(args, work)
    if args.agent_ports:
        try:
            agent_restart.measure(args.agent_ports, max(1, args.restarts))
        except ERRORS as error:
            print(f"agent restart benchmark stopped: {error}")
            ok = False
    if ok:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
