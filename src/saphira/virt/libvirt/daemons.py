"""Start the libvirt daemons this host has, with or without systemd.

Hosts differ in two ways. Debian 12 packages the monolithic ``libvirtd``;
newer distributions the modular ``virtqemud`` and its siblings, so the layout
is read from the installed binaries. And PID 1 is not always systemd
(containers, this project's CI): there each daemon is started with ``-d``,
after its pidfile shows it is not running already, so a second call starts
nothing twice, and the main daemon reads ``socket_conf``'s file, so the
``libvirt`` group opens ``qemu:///system`` without polkit and D-Bus.
``available()`` answers without starting anything, which is
what ``compute_driver = auto`` needs to decide. What is read from or done to
the machine goes through ``machine.Host``.

``python -m saphira.virt.libvirt.daemons [--uri URI]`` does the same from a
shell (``tools/run-tests`` uses it) and exits 1 with the reason on failure.
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from saphira.virt.libvirt import socket_conf
from saphira.virt.libvirt.machine import DaemonError, Host, fix_kvm, version_string

LOG = logging.getLogger(__name__)
DEFAULT_URI = "qemu:///system"
MODULAR = ("virtlogd", "virtqemud", "virtnodedevd", "virtsecretd")
MONOLITHIC = ("virtlogd", "libvirtd")
POLL = 0.1


@dataclass(frozen=True)
class Layout:
    kind: str  # "modular" or "monolithic"
    daemons: tuple[str, ...]  # in start order: virtlogd before the daemon that needs it

    @property
    def main(self) -> str:
        """The daemon that serves qemu:///system."""
        return "virtqemud" if self.kind == "modular" else "libvirtd"


@dataclass
class DaemonReport:
    uri: str
    daemon: str = "libvirt"
    version: str = ""
    started: list[str] = field(default_factory=list)  # daemons, or units under systemd
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        done = f"started {', '.join(self.started)}" if self.started else "already running"
        return [*self.notes, f"{self.daemon} {self.version} at {self.uri}: {done}"]


def detect_layout(host: Host) -> Layout:
    if host.binary("virtqemud"):
        return Layout("modular", tuple(d for d in MODULAR if host.binary(d)))
    if host.binary("libvirtd"):
        return Layout("monolithic", tuple(d for d in MONOLITHIC if host.binary(d)))
    raise DaemonError(
        f"no libvirt daemon is installed (neither virtqemud nor libvirtd in {host.sbin})"
    )


def unavailable_reason(host: Host | None = None) -> str | None:
    """Why libvirt cannot be used here, or None when it can be (nothing is started)."""
    if importlib.util.find_spec("libvirt") is None:
        return "libvirt-python is not installed"
    try:
        detect_layout(host or Host())
    except DaemonError as error:
        return error.message
    return None


def available(host: Host | None = None) -> bool:
    return unavailable_reason(host) is None


def _start_units(host: Host, layout: Layout) -> list[str]:
    """The packaged units (sockets first where shipped); starting a running unit is a no-op."""
    units: list[str] = []
    for daemon in layout.daemons:
        if host.has_unit(f"{daemon}.socket"):
            units.append(f"{daemon}.socket")
        units.append(f"{daemon}.service")
    done = host.execute(["systemctl", "start", *units])
    if done.returncode != 0:
        raise DaemonError(
            f"systemctl start {' '.join(units)} exited with status {done.returncode}: "
            f"{done.output or 'no output'}"
        )
    return units


def _start_daemons(host: Host, layout: Layout) -> list[str]:
    """Each daemon its pidfile does not show running, in order, daemonized with -d."""
    started: list[str] = []
    for daemon in layout.daemons:
        pid = host.running(daemon)
        if pid is not None:
            LOG.debug("%s: already running (pid %d)", daemon, pid)
            continue
        argv = [str(host.sbin / daemon), "-d"]
        if daemon == layout.main:
            conf = socket_conf.write(host.conf_dir, daemon)
            argv += ["-f", str(conf)] if conf is not None else []
        done = host.execute(argv)
        if done.returncode != 0:
            raise DaemonError(
                f"{' '.join(argv)} exited with status {done.returncode}: "
                f"{done.output or 'no output'}"
            )
        LOG.info("started %s", daemon)
        started.append(daemon)
    return started


def _wait(host: Host, uri: str, timeout: float, started: list[str]) -> int:
    deadline = host.clock() + timeout
    while True:
        try:
            return host.connect(uri)
        except DaemonError as error:
            if host.clock() >= deadline:
                what = f"started {', '.join(started)}" if started else "nothing to start"
                raise DaemonError(
                    f"{what}, but {uri} did not answer within {timeout:g} s: {error.message}"
                ) from None
        host.sleep(POLL)


def ensure_running(
    uri: str = DEFAULT_URI, timeout: float = 15.0, host: Host | None = None
) -> DaemonReport:
    """Make ``uri`` answer: nothing to do if it already does, else start the daemons.

    Raises DaemonError naming what failed: a missing daemon, a start command's
    exit status and stderr, or the connection that never came.
    """
    host = host or Host()
    report = DaemonReport(uri)
    note = fix_kvm(host.kvm)
    if note is not None:
        report.notes.append(note)
    layout = detect_layout(host)
    report.daemon = layout.main
    try:
        report.version = version_string(host.connect(uri))
        return report
    except DaemonError as error:
        if host.euid() != 0:
            raise DaemonError(f"{error.message}; starting {layout.main} needs root") from None
    report.started = _start_units(host, layout) if host.systemd() else _start_daemons(host, layout)
    report.version = version_string(_wait(host, uri, timeout, report.started))
    return report


def main(argv: Sequence[str] | None = None, host: Host | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m saphira.virt.libvirt.daemons",
        description="Start the libvirt daemons this host has unless they already run.",
    )
    parser.add_argument("--uri", default=DEFAULT_URI, help=f"libvirt URI (default {DEFAULT_URI})")
    parser.add_argument("--timeout", type=float, default=15.0, help="seconds to wait for it")
    args = parser.parse_args(argv)
    try:
        report = ensure_running(args.uri, args.timeout, host)
    except DaemonError as error:
        print(f"libvirt: {error.message}", file=sys.stderr)
        return 1
    for line in report.lines():
        print(f"libvirt: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
