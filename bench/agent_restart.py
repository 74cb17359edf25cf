"""An L2 agent restart with many ports on its bridge: reconcile times, and ping loss meanwhile.

No cloud: the reconciler the L2 agent runs (``OvsReconciler``) on a bridge of
our own (``sxbr<suffix>``, the datapath chosen as the agent chooses it), with
``ports`` fake taps (``taps.py``). Every port has a few rules: egress open,
ICMP in, SSH from a /8, and HTTP from one remote group whose members are all
the ports (as Neutron's default group admits its own members: one flow per
member on every port). Two of the ports are namespaces with an address that
ping each other every 10 ms (iputils ``ping -i 0.01``) from a second before
the first restart to a second after the last. A restart is a new
``OvsReconciler``: it remembers nothing of the flows it finds, as after an
agent process restart.
"""

from __future__ import annotations

import ipaddress
import random
import re
import secrets
import signal
import statistics
import subprocess
import time
from dataclasses import dataclass, field

from taps import INNER, Tap, leftovers, plug, remove_namespaces, unplug

from saphira.devtools.benchreport.figures import Figure, emit
from saphira.network.l2 import ovs_bridge
from saphira.network.l2.ovs_reconcile import OvsReconciler
from saphira.network.ovs_daemons import ensure_running
from saphira.objects.network import FixedIP, PortDetails, SecurityRule, Segment
from saphira.privsep import netns, ovs

PHYSNET = "physnet1"
MAX_PORTS = 240  # addresses .10 to .249 of a /24
MARGIN = 1.0  # seconds of pinging before the first restart and after the last
REPLY = re.compile(r"icmp_seq=(\d+) ")
SENT = re.compile(r"(\d+) packets transmitted")


@dataclass
class Lab:
    """The bridge, a quiet namespace holding most taps' inner ends, and two pinging ones."""

    suffix: str = field(default_factory=lambda: secrets.token_hex(3))
    subnet: ipaddress.IPv4Network = field(
        default_factory=lambda: ipaddress.IPv4Network(
            f"10.{random.randrange(150, 250)}.{random.randrange(0, 250)}.0/24"
        )
    )
    taps: list[Tap] = field(default_factory=list)

    @property
    def bridge(self) -> str:
        return f"sxbr{self.suffix}"

    def ip(self, n: int) -> str:
        return str(self.subnet.network_address + 10 + n)

    def build(self, count: int) -> None:
        """Taps 0 and 1 in namespaces of their own with an address, the rest silent."""
        ovs_bridge.ensure_bridge(self.bridge)
        quiet = f"sxns{self.suffix}q"
        netns.create(quiet)
        for n in range(count):
            own = n < 2
            namespace = f"sxns{self.suffix}{'ab'[n]}" if own else quiet
            if own:
                netns.create(namespace)
            s = self.suffix
            tap = Tap(f"sxo{s}{n:03d}", INNER if own else f"sxi{s}{n:03d}", namespace,
                      f"sxport-{s}-{n:03d}", f"fa:16:3e:{s[:2]}:{s[2:4]}:{n:02x}")  # fmt: skip
            self.taps.append(tap)
            plug(self.bridge, tap, ip_cidr=f"{self.ip(n)}/24" if own else None)

    def desired(self) -> list[PortDetails]:
        members = [self.ip(n) for n in range(len(self.taps))]
        rules = [
            SecurityRule("egress", "IPv4"),
            SecurityRule("egress", "IPv6"),
            SecurityRule("ingress", "IPv4", "icmp"),
            SecurityRule("ingress", "IPv4", "tcp", 22, 22, remote_ip_prefix="10.0.0.0/8"),
            SecurityRule("ingress", "IPv4", "tcp", 80, 80, remote_addresses=members,
                         remote_group_id="sxgroup"),
        ]  # fmt: skip
        return [
            PortDetails(tap.port_id, "sxnet", tap.mac, Segment("flat", PHYSNET),
                        fixed_ips=[FixedIP("sxsubnet", self.ip(n))], security_rules=rules)
            for n, tap in enumerate(self.taps)
        ]  # fmt: skip

    def close(self) -> None:
        for tap in self.taps:
            unplug(tap)
        remove_namespaces(self.suffix)
        ovs.delete_bridge(self.bridge)
        left = leftovers(self.suffix)
        if left:
            print(f"  left behind: {left}")


class Pinger:
    """``ping -i 0.01`` from one namespace; replies counted by sequence number."""

    def __init__(self, tap: Tap, target: str) -> None:
        argv = ["ip", "netns", "exec", tap.namespace, "ping", "-n", "-i", "0.01", target]
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)  # ip execs ping

    def stop(self) -> tuple[int, int]:
        """(requests sent, requests lost). The last request, possibly still in flight when
        ping was stopped, counts as neither."""
        self.proc.send_signal(signal.SIGINT)
        out, _ = self.proc.communicate(timeout=10)
        sent_line = SENT.search(out)
        sent = int(sent_line.group(1)) if sent_line else 0
        replied = {int(seq) for seq in REPLY.findall(out)}
        if sent and sent not in replied:
            sent -= 1
        return sent, len(set(range(1, sent + 1)) - replied)


def path_works(tap: Tap, target: str, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    argv = ["ip", "netns", "exec", tap.namespace, "ping", "-n", "-q", "-c", "1", "-W", "1"]
    while time.monotonic() < deadline:
        if subprocess.run([*argv, target], capture_output=True, check=False).returncode == 0:
            return True
    return False


def timed_reconcile(lab: Lab, desired: list[PortDetails]) -> tuple[float, str]:
    """A new reconciler (an agent just started) and its first pass: seconds, and a summary."""
    began = time.perf_counter()
    report = OvsReconciler({PHYSNET: lab.bridge}).reconcile_once(desired)
    seconds = time.perf_counter() - began
    if report.failed:
        raise RuntimeError(f"reconcile failed: {report.failed}")
    summary = (f"{len(report.up)} up, {len(report.changed)} changed, "
               f"{len(report.unchanged)} unchanged, {len(report.applied)} flow edits")  # fmt: skip
    return seconds, summary


def measure(ports: int, restarts: int) -> None:
    ensure_running()
    lab = Lab()
    pingers: list[Pinger] = []
    try:
        began = time.perf_counter()
        lab.build(ports)
        print(f"agent restart: {ports} ports on {lab.bridge} "
              f"({time.perf_counter() - began:.1f} s to plug them)")  # fmt: skip
        desired = lab.desired()
        first, summary = timed_reconcile(lab, desired)
        flows = len(ovs.dump_flows(lab.bridge))
        print(f"  {'first reconcile (empty tables)':<34} {first:6.2f} s  ({summary}; "
              f"{flows} flows on the bridge)")  # fmt: skip
        emit(Figure("agent_restart.first", f"L2 agent first reconcile, {ports} ports", first, "s"))
        a, b = lab.taps[:2]
        if not (path_works(a, lab.ip(1)) and path_works(b, lab.ip(0))):
            raise RuntimeError("the two pinging ports cannot reach each other")
        pingers = [Pinger(a, lab.ip(1)), Pinger(b, lab.ip(0))]
        window = time.perf_counter()
        time.sleep(MARGIN)
        times, summaries = zip(*(timed_reconcile(lab, desired) for _ in range(restarts)),
                               strict=True)  # fmt: skip
        time.sleep(MARGIN)
        window = time.perf_counter() - window
        counts = [pinger.stop() for pinger in pingers]
        pingers.clear()
        print(f"  {'restart: new reconciler + pass':<34} p50 {statistics.median(times):6.2f} s "
              f"(min {min(times):.2f}, max {max(times):.2f}; {restarts} restarts; "
              f"each: {'; '.join(sorted(set(summaries)))})")  # fmt: skip
        emit(
            Figure(
                "agent_restart.restart_p50",
                f"L2 agent restart reconcile, {ports} ports, p50",
                statistics.median(times),
                "s",
            ),
            Figure(
                "agent_restart.ping_lost",
                "pings lost around the agent restarts",
                sum(lost for _, lost in counts),
                "pings",
            ),
        )
        for label, (sent, lost) in zip(("a->b", "b->a"), counts, strict=True):
            share = 100 * lost / sent if sent else 0.0
            print(f"  ping {label} (-i 0.01: {sent / window:.0f}/s here) over {window:.1f} s "
                  f"around the restarts: {sent} sent, {lost} lost ({share:.2f} %)")  # fmt: skip
    finally:
        for pinger in pingers:
            pinger.stop()
        lab.close()
