"""What the join and --check reach for on the host: one object, so tests give fakes.

``real()`` is this machine: subprocesses, HTTP, the KVM probe, libvirt's
daemons, the supervisor and the controller's view. A test replaces any part
(a ``Runner`` that refuses writes, a transport with canned answers...).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from saphira.clients.transport import RequestsTransport, Transport
from saphira.exception import JoinRefused
from saphira.join import supervisor
from saphira.join.runner import Runner, Subprocess
from saphira.virt import kvm_probe
from saphira.virt.libvirt import daemons
from saphira.virt.libvirt.machine import DaemonError, Host

TEST_IMAGE_DIR = "test-image"  # saphira.virt.libvirt.driver's (not imported: it needs libvirt)
KvmProbe = Callable[[Path], kvm_probe.ProbeResult]  # the probe guest's directory -> the answer


def probe_kvm(guest_dir: Path) -> kvm_probe.ProbeResult:
    """The functional probe: a guest must boot under KVM (the tiny image, if built there)."""
    return kvm_probe.probe(kvm_probe.probe_guest_in(guest_dir))


def guest_dir(state_dir: Path, given: Path | None = None) -> Path:
    """Where the probe guest is: --probe-guest, else <state>/test-image (saphira up's place)."""
    return given or state_dir / TEST_IMAGE_DIR


def start_libvirt() -> list[str]:
    """The host's libvirt daemon set, started unless it runs; what was done."""
    try:
        return daemons.ensure_running().lines()
    except DaemonError as error:
        raise JoinRefused(reason=f"libvirt: {error.message}") from None


def modular_libvirt() -> bool:
    try:
        return daemons.detect_layout(Host()).kind == "modular"
    except DaemonError:
        return False


def libvirt_running() -> dict[str, bool]:
    """Each daemon of the host's libvirt set: whether its pidfile names it running."""
    host = Host()
    try:
        layout = daemons.detect_layout(host)
    except DaemonError:
        return {}
    return {daemon: host.running(daemon) is not None for daemon in layout.daemons}


def cmdline(pid: int) -> list[str]:
    """A process's command line (empty when it is gone)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def systemd_runs() -> bool:
    return Host().systemd()


@dataclass
class Machine:
    runner: Runner
    transport: Transport
    kvm: KvmProbe
    libvirt: Callable[[], list[str]]
    libvirt_running: Callable[[], dict[str, bool]]
    modular_libvirt: Callable[[], bool]
    systemd: Callable[[], bool]
    start_supervisor: Callable[[Path, Path], int | None]
    stop_supervisor: Callable[[Path], bool]
    euid: Callable[[], int]
    cmdline: Callable[[int], list[str]]


def real() -> Machine:
    return Machine(
        runner=Subprocess(),
        transport=RequestsTransport(),
        kvm=probe_kvm,
        libvirt=start_libvirt,
        libvirt_running=libvirt_running,
        modular_libvirt=modular_libvirt,
        systemd=systemd_runs,
        start_supervisor=supervisor.start,
        stop_supervisor=supervisor.stop_running,
        euid=os.geteuid,
        cmdline=cmdline,
    )
