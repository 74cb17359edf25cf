"""libvirt and Open vSwitch inside a node, started and stopped by PID.

They are started by the product's own starters (``saphira.virt.libvirt.daemons``
and ``saphira.network.ovs_daemons``) run with ``nsenter`` inside the node, as
root: the node's tmpfs ``/run`` and bind mounts give them the node's own
sockets, pidfiles, databases and domain definitions, so the same code that
starts the host's daemons starts the node's (libvirtd's monolithic or the
modular set, whatever the host has; OVS with the userspace datapath). The
PIDs are then read from the pidfiles inside the node and kept in the bed's
state file; guests run under TCG (``/dev/kvm`` is not usable on these hosts).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from saphira.devtools.testbed import procs
from saphira.devtools.testbed.node import Node
from saphira.devtools.testbed.state import BedState

PIDFILES = {
    "virtlogd": "/run/virtlogd.pid",
    "libvirtd": "/run/libvirtd.pid",
    "virtqemud": "/run/virtqemud.pid",
    "virtnodedevd": "/run/virtnodedevd.pid",
    "virtsecretd": "/run/virtsecretd.pid",
    "ovsdb-server": "/run/openvswitch/ovsdb-server.pid",
    "ovs-vswitchd": "/run/openvswitch/ovs-vswitchd.pid",
}
URI = "qemu:///system"


@dataclass(frozen=True)
class Daemons:
    node: Node

    def start(self, state: BedState) -> list[str]:
        """Start what is not running; record every daemon's PID; the starters' lines."""
        lines = []
        for module in ("saphira.virt.libvirt.daemons", "saphira.network.ovs_daemons"):
            out = self.node.run([sys.executable, "-m", module])
            lines += [f"{self.node.name}: {line}" for line in out.splitlines()]
        for daemon, pid in self.pids().items():
            state.add(f"{self.node.name}/{daemon}", pid)
        return lines

    def pids(self) -> dict[str, int]:
        """The daemons whose pidfile in the node names a process of the node."""
        mine = set(self.node.processes())
        found = {}
        for daemon, path in PIDFILES.items():
            text = self.node.run(["cat", path], check=False).strip()
            if text.isdigit() and int(text) in mine:
                found[daemon] = int(text)
        return found

    def domains(self) -> list[str]:
        out = self.node.run(["virsh", "-c", URI, "list", "--name"], check=False)
        return [name for name in out.split() if name]

    def stop(self, state: BedState) -> list[int]:
        """Destroy the node's running guests, then end its daemons; PIDs that never ended."""
        for name in self.domains():
            self.node.run(["virsh", "-c", URI, "destroy", name], check=False)
        prefix = f"{self.node.name}/"
        mine = [s for s in state.started if s.label.startswith(prefix)]
        left = procs.end([s.pid for s in mine if s.alive()])
        state.started = [s for s in state.started if not s.label.startswith(prefix)]
        return left
