"""The cloud of a test bed as a user drives it: the real ``openstack`` CLI and
``saphira-manage`` against the bed's controller, and the nodes' files and
processes as root sees them (qemu-io on a guest's disk, the agents' PIDs)."""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

from saphira.devtools.testbed import procs
from saphira.devtools.testbed.bed import Bed
from saphira.devtools.testbed.daemons import Daemons
from saphira.devtools.testbed.join import TIMEOUT as JOIN_TIMEOUT
from saphira.devtools.testbed.join import Join
from saphira.devtools.testbed.layout import Addresses
from saphira.guest_image import PROBE_PATH, GuestImage
from saphira.join.services import NETWORK_AGENT
from tests import cli
from tests.functional.clients import sdk
from tests.polling import wait_for

CLI_TIMEOUT = 300
PLACEMENT = {"OpenStack-API-Version": "placement 1.28"}


@dataclass(frozen=True)
class BedCloud:
    bed: Bed

    @property
    def controller_dir(self) -> Path:
        return self.bed.layout.bed_dir / "controller"

    @property
    def addresses(self) -> Addresses:
        assert self.bed.state is not None
        return Addresses(self.bed.state.octet)

    def openstack(self, *args: str) -> Any:
        """``openstack --os-cloud admin ARGS`` (add ``-f json`` to get data back)."""
        return cli.openstack(self.controller_dir / "state" / "clouds.yaml", *args,
                             timeout=CLI_TIMEOUT)  # fmt: skip

    def manage(self, *args: str) -> str:
        files = [self.controller_dir / "state" / "saphira.conf", self.controller_dir / "nova.conf"]
        argv = [sys.executable, "-m", "saphira.cmd.manage"]
        argv += [arg for path in files for arg in ("--config-file", str(path))]
        done = subprocess.run([*argv, *args], capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"saphira-manage {' '.join(args)}: {done.stderr}"
        return done.stdout

    @functools.cached_property
    def sdk(self) -> Any:
        """The admin's openstacksdk connection, for the polls (an ``openstack`` run costs
        a second of CPU, which the nodes' TCG guests would lose)."""
        return self.connect()

    def connect(self) -> Any:
        """A new connection as the admin (one per thread)."""
        return sdk(self.controller_dir / "state" / "clouds.yaml", "admin")

    def server(self, name: str) -> dict[str, Any]:
        shown: dict[str, Any] = self.openstack("server", "show", name, "-f", "json")
        return shown

    def host_of(self, name: str) -> str:
        return str(self.server(name)["OS-EXT-SRV-ATTR:host"])

    def wait_status(self, name: str, status: str, timeout: float = 300) -> dict[str, Any]:
        """The server's ``openstack server show`` once it has ``status`` and no task."""

        def reached() -> bool:
            found = self.sdk.compute.find_server(name, ignore_missing=False)
            assert found.status != "ERROR" or status == "ERROR", found.fault
            return bool(found.status == status and not found.task_state)

        wait_for(f"{name} {status}", reached, timeout, interval=1)
        return self.server(name)

    def console(self, name: str) -> str:
        """The server's console log (what ``openstack console log show`` prints)."""
        found = self.sdk.compute.find_server(name, ignore_missing=False)
        return str(self.sdk.compute.get_server_console_output(found)["output"])

    def disk(self, name: str) -> Path:
        """The server's root disk in its node's instances directory."""
        shown = self.server(name)
        node = self.bed.node(str(shown["OS-EXT-SRV-ATTR:host"]))
        return node.state_dir / "instances" / str(shown["id"]) / "disk"

    def agent_pid(self, node: str, service: str) -> int:
        """A node's agent, as its supervisor records it (``<state>/run/<service>.pid``)."""
        path = self.bed.node(node).state_dir / "run" / f"{service}.pid"
        return int(path.read_text(encoding="utf-8").strip())

    def service_pids(self) -> dict[str, int]:
        """The controller's processes (a fake compute host's too) and the nodes' agents."""
        state = self.bed.state
        assert state is not None
        pids = {s.label: s.pid for s in state.started if s.label.startswith("controller/")}
        for name in self.bed.layout.nodes:
            for service in ("saphira-compute", NETWORK_AGENT):
                pids[f"{name}/{service}"] = self.agent_pid(name, service)
        return pids

    def leftovers(self, ids: list[str], ports: list[str]) -> list[str]:
        """What of these deleted servers outlives them: a domain or a tap of their ports on
        a node, a port, a placement claim."""
        found = []
        for name in self.bed.layout.nodes:
            inside = self.bed.node(name)
            domains = inside.run(["virsh", "-c", "qemu:///system", "list", "--all", "--uuid"])
            found += [f"{name}: domain {d}" for d in sorted(set(ids) & set(domains.split()))]
            links = inside.run(["ip", "-o", "link"])
            found += [f"{name}: tap of port {p}" for p in ports if f"tap{p[:11]}" in links]
        found += [f"port {p.id} of {i}" for i in ids for p in self.sdk.network.ports(device_id=i)]
        placement = self.sdk.placement
        for server_id in ids:
            held = placement.get(f"/allocations/{server_id}", headers=PLACEMENT).json()
            found += [f"claim of {server_id}"] if held["allocations"] else []
        return found

    def dhcp_served(self, node: str) -> Counter[str]:
        """The node's dnsmasq processes by the network they serve (their ``--pid-file``
        is ``<state>/dhcp/<network>/pid``)."""
        prefix = f"--pid-file={self.bed.node(node).state_dir / 'dhcp'}/"
        served: Counter[str] = Counter()
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                argv = cmdline.read_bytes().split(b"\0")
            except OSError:  # gone meanwhile
                continue
            if Path(argv[0].decode(errors="replace")).name != "dnsmasq":
                continue
            for arg in (a.decode(errors="replace") for a in argv):
                if arg.startswith(prefix):
                    served[Path(arg.removeprefix("--pid-file=")).parent.name] += 1
        return served

    def namespaces(self, node: str) -> set[str]:
        return {entry["name"] for entry in json.loads(self.bed.node(node).run(
            ["ip", "-j", "netns", "list"]) or "[]")}  # fmt: skip

    def dhcp_leftovers(self) -> list[str]:
        """What of DHCP outlives its network or doubles on a node: a ``qdhcp-`` namespace
        or a dnsmasq of a network that is gone, a second dnsmasq for one network."""
        networks = {n.id for n in self.sdk.network.networks()}
        found = []
        for name in self.bed.layout.nodes:
            found += [f"{name}: namespace {space}" for space in sorted(self.namespaces(name))
                      if space.startswith("qdhcp-") and space[6:] not in networks]  # fmt: skip
            for network, count in sorted(self.dhcp_served(name).items()):
                if count > 1 or network not in networks:
                    found.append(f"{name}: {count} dnsmasq for network {network}")
        return found

    def stacks(self, node: str, service: str) -> str:
        """The threads' stacks of a node's agent (SIGUSR2), as its log's last part shows them."""
        log = self.bed.node(node).state_dir / "log" / f"{service}.log"
        os.kill(self.agent_pid(node, service), signal.SIGUSR2)
        time.sleep(2)  # it writes them at once; a margin for the file
        return log.read_text(encoding="utf-8", errors="replace")[-20000:]

    def setup_compute(self, node: str, *args: str) -> tuple[int, str]:
        """``saphira-openstack-setup-compute ARGS`` run inside the node: (exit code, output)."""
        tool = self.bed.join_tool()
        assert tool is not None, "the join tool is not installed"
        done = self.bed.runner.run(self.bed.node(node).enter([tool, *args]), check=False,
                                   timeout=JOIN_TIMEOUT)  # fmt: skip
        return done.code, done.out + done.err

    def join_again(self, node: str) -> tuple[int, str]:
        """The bed's own join of ``node`` again (same flags, a fresh token), without --force."""
        assert self.bed.state is not None
        controller = self.bed.controller(self.bed.state)
        assert controller is not None
        step = Join(self.bed.node(node), self.addresses.controller, controller.join_token())
        return self.setup_compute(node, *step.arguments())

    def check(self, node: str) -> tuple[int, str]:
        """``--check`` of the node's join (its own configuration and state directories)."""
        found = self.bed.node(node)
        return self.setup_compute(node, "--check", "--config-dir", str(found.config_dir),
                                  "--state-dir", str(found.state_dir))  # fmt: skip

    def kill_agent(
        self, node: str, service: str, meanwhile: Callable[[], object] = lambda: None
    ) -> int:
        """SIGKILL one of the node's agents (its supervisor starts it again), do
        ``meanwhile`` (the agent, a new process, takes seconds to start); the new PID."""
        old = self.agent_pid(node, service)
        os.kill(old, signal.SIGKILL)
        meanwhile()

        def restarted() -> int | None:
            try:
                pid = self.agent_pid(node, service)
            except (OSError, ValueError):  # the supervisor is writing it
                return None
            return pid if pid != old and procs.alive([pid]) else None

        found: int = wait_for(f"{node}'s {service} started again", restarted, timeout=60,
                              interval=0.5)  # fmt: skip
        return found

    def kill_libvirt(self, node: str) -> None:
        """SIGKILL the node's libvirt daemon (libvirtd, or virtqemud of the modular set),
        then start it again as the bed started it; its guests' QEMUs live on."""
        daemons = Daemons(self.bed.node(node))
        pids = daemons.pids()
        daemon = "libvirtd" if "libvirtd" in pids else "virtqemud"
        os.kill(pids[daemon], signal.SIGKILL)
        wait_for(f"{node}'s {daemon} gone", lambda: not procs.alive([pids[daemon]]), timeout=10,
                 interval=0.1)  # fmt: skip
        state = self.bed.state
        assert state is not None
        daemons.start(state)
        state.save(self.bed.layout.state_file)

    def kill_controller(self, service: str) -> None:
        """SIGKILL one of the controller's services (``saphira.cmd.<service>``) and, once
        it is gone, start it again as the bed started it."""
        state = self.bed.state
        controller = self.bed.controller(state) if state is not None else None
        assert state is not None and controller is not None
        old = next(s for s in state.started if s.label == f"controller/{service}")
        os.kill(old.pid, signal.SIGKILL)
        wait_for(f"the controller's {service} gone", lambda: not old.alive(), timeout=10,
                 interval=0.1)  # fmt: skip
        controller.start_service(state, service)

    def kill_compute(self, node: str) -> None:
        """The node's compute agent dies and stays dead: its supervisor (which would start
        it again) is killed first, without stopping its other children."""
        for service in ("supervisor", "saphira-compute"):
            os.kill(self.agent_pid(node, service), signal.SIGKILL)


def _tiny(cloud: BedCloud, image: Path | GuestImage) -> None:
    """Image ``tiny``: the disk alone (a Path), or with the build's kernel and ramdisk,
    which its servers then boot directly (2.5 s of TCG CPU a boot instead of 7)."""
    o = cloud.openstack
    props = ["--property", "hw_disk_bus=virtio"]
    if isinstance(image, GuestImage):
        for key, fmt, part in (("kernel_id", "aki", image.vmlinux),
                               ("ramdisk_id", "ari", image.initramfs)):  # fmt: skip
            made = o("image", "create", "--disk-format", fmt, "--container-format", fmt,
                     "--public", "--file", str(part), f"tiny-{fmt}", "-f", "json")  # fmt: skip
            props += ["--property", f"{key}={made['id']}"]
        props += ["--property", f"os_command_line={image.cmdline}"]
    disk = image.qcow2 if isinstance(image, GuestImage) else image
    o("image", "create", "--disk-format", "qcow2", "--container-format", "bare", "--public",
      "--file", str(disk), *props, "tiny")  # fmt: skip


def provider_network(cloud: BedCloud, image: Path | GuestImage) -> str:
    """The tiny image and two flavors (``tiny``, ``tiny2``), a flat network ``prov`` on
    physnet1 (the bed's provider network) and, as its gateway, an address of the caller's
    on the provider bridge that the default group lets reach port 80 (the guests' probe);
    that address."""
    o = cloud.openstack
    _tiny(cloud, image)
    o("flavor", "create", "--vcpus", "1", "--ram", "128", "--disk", "1", "tiny")
    o("flavor", "create", "--vcpus", "1", "--ram", "160", "--disk", "1", "tiny2")
    prefix = f"10.{cloud.addresses.octet}.1"
    o("network", "create", "--provider-network-type", "flat",
      "--provider-physical-network", "physnet1", "--share", "prov")  # fmt: skip
    o("subnet", "create", "--network", "prov", "--subnet-range", f"{prefix}.0/24",
      "--gateway", f"{prefix}.1", "prov-subnet")  # fmt: skip
    o("security", "group", "rule", "create", "--protocol", "tcp", "--dst-port", "80",
      "--remote-ip", f"{prefix}.1/32", "default")  # fmt: skip
    bridge = cloud.bed.layout.provider_bridge
    subprocess.run(["ip", "addr", "replace", f"{prefix}.1/24", "dev", bridge], check=True)
    # The userspace datapath's conntrack drops a segment whose checksum the kernel left
    # to an offload that never happens (the guests' own taps have it off too).
    subprocess.run(["ethtool", "-K", bridge, "tx", "off"], capture_output=True, check=True)
    return f"{prefix}.1"


def qemu_io(disk: Path, command: str) -> str:
    shared = ["-r", "-U"] if command.startswith("read") else []
    done = subprocess.run(["qemu-io", *shared, "-f", "qcow2", "-c", command, str(disk)],
                          capture_output=True, text=True, check=False, timeout=60)  # fmt: skip
    return done.stdout + done.stderr


def probe(ip: str, query: str) -> str:
    """Ask the guest at ``ip`` to act (see the image's probe CGI); its one-line verdict."""
    answer = requests.get(f"http://{ip}{PROBE_PATH}?{query}", timeout=60)
    answer.raise_for_status()
    return answer.text.splitlines()[0]
