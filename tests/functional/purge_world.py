"""Someone else's things on the host, for ``saphira purge`` to leave alone.

A DHCP namespace with a dnsmasq whose pid file is under a directory that
only starts like the purged cloud's state directory (``<state>-other``),
a Linux bridge with a tap on it, and an Open vSwitch bridge the operator
made (the purged cloud maps a physical network to it: its port there must
go, the bridge must stay).
"""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass
from pathlib import Path

from saphira.network.dhcp import process
from saphira.privsep import links, netns, ovs
from saphira.privsep.runner import run


@dataclass(frozen=True)
class HostSnapshot:
    namespaces: frozenset[str]
    devices: frozenset[str]
    processes: frozenset[tuple[int, str]]  # (pid, first --pid-file) of dnsmasq and proxies


def snapshot() -> HostSnapshot:
    owned = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            pid_files = [a for a in process.cmdline(int(entry.name)) if a.startswith("--pid-file=")]
            owned |= {(int(entry.name), pid_files[0])} if pid_files else set()
    return HostSnapshot(
        frozenset(netns.names()), frozenset(d.name for d in links.all_links()), frozenset(owned)
    )


@dataclass(frozen=True)
class Bystanders:
    namespace: str
    pid_file: Path
    bridge: str
    tap: str
    operator_bridge: str

    @classmethod
    def named(cls, state_dir: Path) -> Bystanders:
        suffix = secrets.token_hex(4)
        network = str(uuid.uuid4())
        pid_file = Path(f"{state_dir}-other", "dhcp", network, "pid")
        return cls(f"qdhcp-{network}", pid_file, f"sxpb{suffix}", f"tap{suffix}ab",
                   f"sxop{suffix}")  # fmt: skip

    def make(self) -> None:
        netns.create(self.namespace)
        self.pid_file.parent.mkdir(parents=True)
        run(["dnsmasq", "--conf-file=/dev/null", "--port=0", "--interface=lo",
             f"--pid-file={self.pid_file}"], namespace=self.namespace)  # fmt: skip
        run(["ip", "link", "add", self.bridge, "type", "bridge"])
        run(["ip", "tuntap", "add", "dev", self.tap, "mode", "tap"])
        run(["ip", "link", "set", self.tap, "master", self.bridge])
        run(["ovs-vsctl", "add-br", self.operator_bridge, "--", "set", "Bridge",
             self.operator_bridge, "datapath_type=netdev"])  # fmt: skip

    def dnsmasq_pid(self) -> int | None:
        return process.running_pid(self.pid_file)

    def problems(self) -> list[str]:
        """What of them is gone or changed (empty: all untouched)."""
        found = []
        if self.namespace not in netns.names():
            found.append(f"namespace {self.namespace}")
        if self.dnsmasq_pid() is None:
            found.append(f"dnsmasq of {self.pid_file}")
        tap = links.show(self.tap)
        if links.show(self.bridge) is None or tap is None or tap.master != self.bridge:
            found.append(f"bridge {self.bridge} with {self.tap}")
        if ovs.bridge(self.operator_bridge) is None:
            found.append(f"Open vSwitch bridge {self.operator_bridge}")
        return found

    def remove(self) -> None:
        pid = self.dnsmasq_pid()
        if pid is not None:
            run(["kill", str(pid)])
        netns.delete(self.namespace)
        for device in (self.tap, self.bridge):
            links.delete(device)
        ovs.delete_bridge(self.operator_bridge)
