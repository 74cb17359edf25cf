"""A compute node: a network namespace, and persistent mount and UTS namespaces.

The mount namespace is made by ``unshare --mount=<file>`` (pinned by a bind
mount of its nsfs file, as ``ip netns`` pins network namespaces, under a
directory that is itself a private bind mount: the kernel refuses to pin a
mount namespace on a shared mount); its UTS namespace, pinned beside it,
gives the node its own host name (the node's name). Inside, with private
propagation:

* a tmpfs on ``/run``: the node's own libvirt and OVS sockets and pidfiles,
  ``/run/netns`` for its DHCP namespaces, ``/run/saphira``;
* a sysfs of the node's network namespace on ``/sys`` (as ``ip netns exec``
  mounts one), with the host's cgroup hierarchies moved back on top: libvirtd
  places guests in cgroups, and a fresh sysfs would hide them;
* bind mounts of the node's own directories over ``/etc/libvirt`` (a copy of
  the host's without its domains, networks' autostart, pools and secrets, so
  the node's libvirtd defines only its own), ``/var/lib/libvirt``,
  ``/var/log/libvirt``, ``/var/cache/libvirt``, ``/etc/openvswitch``,
  ``/var/lib/openvswitch`` and ``/var/log/openvswitch``, and a copy of the
  host's ``/etc/sudoers.d`` (the join tool installs its rule there).

The node's Saphira state and configuration directories are plain directories
under the node's own (``state``, ``etc``), handed to the join tool by path,
so nothing is created in the host's tree.
"""

from __future__ import annotations

import shlex
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from saphira.devtools.testbed import procs
from saphira.devtools.testbed.errors import TestbedError
from saphira.devtools.testbed.layout import Layout
from saphira.devtools.testbed.mounts import is_mount_point
from saphira.devtools.testbed.runner import Runner

NETNS_DIR = Path("/run/netns")
BINDS = (
    ("etc-libvirt", "/etc/libvirt"),
    ("lib-libvirt", "/var/lib/libvirt"),
    ("log-libvirt", "/var/log/libvirt"),
    ("cache-libvirt", "/var/cache/libvirt"),
    ("etc-openvswitch", "/etc/openvswitch"),
    ("lib-openvswitch", "/var/lib/openvswitch"),
    ("log-openvswitch", "/var/log/openvswitch"),
    ("etc-sudoers.d", "/etc/sudoers.d"),
)
COPIED = {"etc-libvirt": Path("/etc/libvirt"), "etc-sudoers.d": Path("/etc/sudoers.d")}
NOT_COPIED = ("storage", "secrets", "autostart")  # the host's pools, secrets, autostart links


def _libvirt_copy_ignores(directory: str, names: list[str]) -> set[str]:
    """The host's defined domains and autostarted networks stay the host's."""
    skip = {name for name in names if name in NOT_COPIED}
    if Path(directory).name in ("qemu", "lxc"):
        skip |= {name for name in names if name.endswith(".xml")}
    return skip


@dataclass(frozen=True)
class Node:
    layout: Layout
    name: str
    runner: Runner

    @property
    def netns_path(self) -> Path:
        return NETNS_DIR / self.layout.netns(self.name)

    @property
    def mount_ns(self) -> Path:
        return self.layout.mount_ns(self.name)

    @property
    def uts_ns(self) -> Path:
        return self.layout.uts_ns(self.name)

    @property
    def directory(self) -> Path:
        return self.layout.node_dir(self.name)

    @property
    def state_dir(self) -> Path:
        """The node's Saphira state directory (the join tool's ``--state-dir``)."""
        return self.directory / "state"

    @property
    def config_dir(self) -> Path:
        """The node's Saphira configuration directory (the join tool's ``--config-dir``)."""
        return self.directory / "etc"

    def enter(self, argv: Sequence[str]) -> list[str]:
        """``argv`` run inside the node: its mount and network namespaces, as root."""
        namespaces = [
            f"--mount={self.mount_ns}",
            f"--uts={self.uts_ns}",
            f"--net={self.netns_path}",
        ]
        return ["nsenter", *namespaces, "--", *argv]

    def run(self, argv: Sequence[str], check: bool = True) -> str:
        return self.runner.run(self.enter(argv), check).out

    def exists(self) -> bool:
        pinned = is_mount_point(self.mount_ns) and is_mount_point(self.uts_ns)
        return self.netns_path.exists() and pinned

    def create(self) -> None:
        """Make whatever of the node is missing (a second call makes nothing)."""
        self._make_dirs()
        if not self.netns_path.exists():
            self.runner.run(["ip", "netns", "add", self.layout.netns(self.name)])
        self.runner.run(["ip", "-n", self.layout.netns(self.name), "link", "set", "lo", "up"])
        if not (is_mount_point(self.mount_ns) and is_mount_point(self.uts_ns)):
            self._unpin()
            self._pin_dir()
            self.mount_ns.touch()
            self.uts_ns.touch()
            self.runner.run(self._unshare())

    def _unpin(self) -> None:
        """Release a half-made pair of namespaces (one pinned, the other not)."""
        for pinned in (self.mount_ns, self.uts_ns):
            if is_mount_point(pinned):
                self.runner.run(["umount", str(pinned)])
            pinned.unlink(missing_ok=True)

    def _make_dirs(self) -> None:
        for sub in ("state", "etc"):
            (self.directory / sub).mkdir(parents=True, exist_ok=True)
        for sub, target in BINDS:
            if not Path(target).is_dir():
                raise TestbedError(detail=f"{target} is missing: is its package installed?")
            path = self.directory / sub
            if sub in COPIED and not path.exists():
                ignore = _libvirt_copy_ignores if sub == "etc-libvirt" else None
                shutil.copytree(COPIED[sub], path, symlinks=True, ignore=ignore)
            path.mkdir(parents=True, exist_ok=True)

    def _pin_dir(self) -> None:
        ns_dir = self.layout.ns_dir
        ns_dir.mkdir(parents=True, exist_ok=True)
        if not is_mount_point(ns_dir):
            self.runner.run(["mount", "--bind", str(ns_dir), str(ns_dir)])
            self.runner.run(["mount", "--make-private", str(ns_dir)])

    def _unshare(self) -> list[str]:
        steps = [
            f"hostname {shlex.quote(self.name)}",
            "mount -t tmpfs -o mode=0755 tmpfs /run",
            "mkdir /run/.cgroup",
            "mount --rbind /sys/fs/cgroup /run/.cgroup",
            "mount -t sysfs sysfs /sys",
            "mount --move /run/.cgroup /sys/fs/cgroup",
            "rmdir /run/.cgroup",
        ]
        for sub, target in BINDS:
            steps.append(f"mount --bind {shlex.quote(str(self.directory / sub))} {target}")
        return [
            "unshare", f"--mount={self.mount_ns}", f"--uts={self.uts_ns}",
            "--propagation", "private",
            "nsenter", f"--net={self.netns_path}", "--", "sh", "-ec", "\n".join(steps),
        ]  # fmt: skip

    def processes(self) -> list[int]:
        """Every process in the node's namespaces (its daemons, guests, DHCP servers...)."""
        pinned = (self.mount_ns, self.netns_path, self.uts_ns)
        return procs.in_namespaces(procs.ns_key(path) for path in pinned)

    def remove(self) -> list[int]:
        """End every process of the node, then its namespaces and directory; PIDs never gone."""
        left = procs.end(self.processes())
        self._unpin()
        if self.netns_path.exists():
            self.runner.run(["ip", "netns", "delete", self.layout.netns(self.name)])
        shutil.rmtree(self.directory, ignore_errors=True)
        return left
