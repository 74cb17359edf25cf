"""A host for the join's tests: canned ``ip -j`` output, a fake OVS, no real change."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from saphira.clients.fake import FakeTransport
from saphira.join import services as svc
from saphira.join.machine import Machine
from saphira.join.runner import Done, Subprocess, is_read
from saphira.virt.kvm_probe import ProbeResult

LINKS: list[dict[str, Any]] = [
    {
        "ifname": "lo",
        "link_type": "loopback",
        "operstate": "UNKNOWN",
        "address": "00:00:00:00:00:00",
    },
    {"ifname": "eth0", "link_type": "ether", "operstate": "UP", "address": "52:54:00:00:00:01"},
    {"ifname": "eth1", "link_type": "ether", "operstate": "UP", "address": "52:54:00:00:00:02"},
    {
        "ifname": "veth9",
        "link_type": "ether",
        "operstate": "UP",
        "address": "52:54:00:00:00:03",
        "linkinfo": {"info_kind": "veth"},
    },
]
DEFAULT_ROUTE = [{"dst": "default", "gateway": "10.0.0.1", "dev": "eth0", "flags": []}]
ADDRS = [
    {
        "ifname": "eth0",
        "addr_info": [{"family": "inet", "local": "10.0.0.5", "prefixlen": 24, "scope": "global"}],
    },
]
LSBLK = {
    "blockdevices": [
        {"name": "vda", "size": 21474836480, "type": "disk"},
        {"name": "sr0", "size": 1024, "type": "rom"},
    ]
}
CONTROLLER = "10.0.0.2"


@dataclass
class FakeHost:
    """The commands a test host answers; OVS bridges kept in a dict. Every argv is kept."""

    routes: dict[str, dict[str, str]] = field(
        default_factory=lambda: {
            CONTROLLER: {"dst": CONTROLLER, "dev": "eth0", "prefsrc": "10.0.0.5"}
        }
    )
    bridges: dict[str, list[str]] = field(default_factory=dict)
    ran: list[tuple[str, ...]] = field(default_factory=list)
    visudo: Subprocess = field(default_factory=Subprocess)  # the real visudo -c

    def run(self, argv: Sequence[str]) -> Done:
        args = tuple(argv)
        self.ran.append(args)
        if args[0] == "visudo":
            return self.visudo.run(args)
        if args[0] == "ovs-vsctl":
            return self._ovs(args[1:])
        return self._read(args)

    def writes(self) -> list[tuple[str, ...]]:
        return [a for a in self.ran if not is_read(a)]

    def _read(self, args: tuple[str, ...]) -> Done:
        canned = {
            ("uname", "-m"): "x86_64\n",
            ("lsblk", "-J", "-b", "-d", "-o", "NAME,SIZE,TYPE"): json.dumps(LSBLK),
            ("ip", "-j", "-d", "link", "show"): json.dumps(LINKS),
            ("ip", "-j", "route", "show", "default"): json.dumps(DEFAULT_ROUTE),
            ("ip", "-j", "-4", "addr", "show", "scope", "global"): json.dumps(ADDRS),
        }
        if args in canned:
            return Done(0, canned[args])
        if args[:4] == ("ip", "-j", "route", "get"):
            route = self.routes.get(args[4])
            if route is None:
                return Done(2, "", "RTNETLINK answers: Network is unreachable")
            return Done(0, json.dumps([route]))
        if (
            args[:3] == ("ip", "link", "set")
            or args[0] == "systemctl"
            or args == ("ovs-dpctl", "show")
        ):
            return Done(0)
        if args[:3] == ("ip", "link", "show"):
            known = [str(link["ifname"]) for link in LINKS] + list(self.bridges)
            return Done(0) if args[3] in known else Done(1, "", "does not exist")
        raise AssertionError(f"FakeHost: nothing programmed for {args}")

    def _ovs(self, args: tuple[str, ...]) -> Done:
        words = [a for a in args[: args.index("--")] if a != "--"] if "--" in args else list(args)
        words = [a for a in words if not a.startswith("--")]
        verb, rest = words[0], words[1:]
        if verb == "br-exists":
            return Done(0 if rest[0] in self.bridges else 2)
        if verb == "list-ports":
            return Done(0, "".join(f"{p}\n" for p in self.bridges[rest[0]]))
        if verb == "port-to-br":
            owner = [b for b, ports in self.bridges.items() if rest[0] in ports]
            return Done(0, f"{owner[0]}\n") if owner else Done(1, "", "no port named")
        if verb == "add-br":
            self.bridges.setdefault(rest[0], [])
            return Done(0)
        if verb == "add-port":
            ports = self.bridges[rest[0]]
            ports += [] if rest[1] in ports else [rest[1]]
            return Done(0)
        raise AssertionError(f"FakeHost: ovs-vsctl {args}")


@dataclass
class Supervisor:
    started: list[tuple[Path, Path]] = field(default_factory=list)
    argv: dict[int, list[str]] = field(default_factory=dict)  # the network agent's, by PID
    stopped: list[Path] = field(default_factory=list)
    running: bool = False

    def start(self, state: Path, services: Path) -> int | None:
        if self.running:
            return None
        self.started.append((state, services))
        self.running = True
        for service in svc.loads(services.read_text()):  # "running": this test's live PID
            svc.pid_file(state, service.name).write_text(f"{os.getpid()}\n")
            if service.name == svc.NETWORK_AGENT:  # the command line --check reads
                self.argv[os.getpid()] = list(service.argv)
        return 4242

    def stop(self, state: Path) -> bool:
        self.stopped.append(state)
        was, self.running = self.running, False
        return was


def identity_up(transport: FakeTransport, status: int = 300) -> FakeTransport:
    transport.reply("GET", "/v3", status, json={"versions": {"values": []}})
    return transport


def machine(
    host: FakeHost, transport: FakeTransport, supervisor: Supervisor, kvm_works: bool = False
) -> Machine:
    return Machine(
        runner=host,
        transport=transport,
        kvm=lambda _state: ProbeResult(
            kvm_works, "a probe guest booted" if kvm_works else "/dev/kvm does not exist"
        ),
        libvirt=lambda: ["libvirtd 9.0.0 at qemu:///system: already running"],
        libvirt_running=lambda: {"virtlogd": True, "libvirtd": True},
        modular_libvirt=lambda: False,
        systemd=lambda: False,
        start_supervisor=supervisor.start,
        stop_supervisor=supervisor.stop,
        euid=lambda: 1000,  # no chown in a test's temporary root
        cmdline=lambda pid: supervisor.argv.get(pid, []),
    )
