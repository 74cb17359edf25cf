"""QEMU as the guest benchmark sees it: the bare-QEMU floor, console markers, guest PIDs.

The floor boots the tiny image's qcow2 with nothing but what it needs to
reach its boot marker (TCG, 128 MiB like the `saphira.tiny` flavor, the disk
on virtio, the serial port to a file; no libvirt, no display, no overlay of
our own: `-snapshot` keeps the image unchanged). What the driver adds on top
of it (libvirt, the overlay, VGA, the API round trips) is what the benchmark
is after.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Iterable
from pathlib import Path

import libvirt
from common import rss_kib

QEMU = "qemu-system-x86_64"
POLL = 0.02
WAIT = 180.0


def wait_text(path: Path, text: str, began: float, stop: threading.Event) -> float | None:
    """Seconds from ``began`` until ``text`` is in the file (polled every 20 ms);
    None if ``stop`` is set or WAIT passes first."""
    while not stop.is_set() and time.perf_counter() - began < WAIT:
        try:
            if text in path.read_text(errors="replace"):
                return time.perf_counter() - began
        except FileNotFoundError:
            pass  # libvirt has not started the guest yet
        stop.wait(POLL)
    return None


class FloorBoot:
    """Boots of the image with bare QEMU, each to a marker on a fresh serial file."""

    def __init__(self, qcow2: Path, work: Path) -> None:
        self.qcow2 = qcow2
        self.serial = work / "floor-serial.log"
        self.errors = work / "floor-qemu.log"

    def _argv(self) -> list[str]:
        return [
            QEMU, "-accel", "tcg", "-machine", "pc", "-cpu", "qemu64", "-m", "128",
            "-smp", "1", "-nodefaults", "-no-user-config", "-display", "none", "-snapshot",
            "-drive", f"file={self.qcow2},format=qcow2,if=virtio",
            "-serial", f"file:{self.serial}",
        ]  # fmt: skip

    def _run_to(self, marker: str) -> tuple[subprocess.Popen[bytes], float]:
        """A QEMU that has printed ``marker``, and the seconds from its start."""
        self.serial.unlink(missing_ok=True)
        began = time.perf_counter()
        with self.errors.open("ab") as errors:
            proc = subprocess.Popen(self._argv(), stdout=subprocess.DEVNULL, stderr=errors)
        stop = threading.Event()
        watcher = threading.Thread(target=_stop_on_exit, args=(proc, stop), daemon=True)
        watcher.start()
        try:
            seconds = wait_text(self.serial, marker, began, stop)
        except BaseException:  # an interrupt must not leave this QEMU running
            _end(proc)
            raise
        if seconds is None:
            _end(proc)
            raise RuntimeError(f"bare QEMU never printed {marker!r}; see {self.errors}")
        return proc, seconds

    def boot(self, marker: str) -> float:
        proc, seconds = self._run_to(marker)
        _end(proc)
        return seconds

    def ready_rss_kib(self, marker: str) -> int:
        proc, _ = self._run_to(marker)
        try:
            return rss_kib(proc.pid)
        finally:
            _end(proc)


def _stop_on_exit(proc: subprocess.Popen[bytes], stop: threading.Event) -> None:
    proc.wait()
    stop.set()


def _end(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def qemu_pid(uuid: str) -> int:
    """The QEMU process libvirt started for the domain ``uuid`` (it is on the command line)."""
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue  # the process ended meanwhile
        if Path(argv[0].decode(errors="replace")).name.startswith("qemu-system") and (
            uuid.encode() in argv
        ):
            return int(cmdline.parent.name)
    raise RuntimeError(f"no QEMU process for {uuid}")


def kill_domains(uuids: Iterable[str]) -> None:
    """Destroy and undefine the domains of servers the API could not delete."""
    left = list(uuids)
    if not left:
        return
    try:
        conn = libvirt.open("qemu:///system")
    except libvirt.libvirtError as error:
        print(f"  domains of {', '.join(left)} may be left: {error}")
        return
    try:
        for uuid in left:
            try:
                dom = conn.lookupByUUIDString(uuid)
                if dom.isActive():
                    dom.destroy()
                dom.undefineFlags(libvirt.VIR_DOMAIN_UNDEFINE_MANAGED_SAVE)
                print(f"  removed the domain of {uuid} through libvirt")
            except libvirt.libvirtError as error:
                print(f"  {uuid}: {error}")
    finally:
        conn.close()
