"""The machine as ``daemons`` sees it: binaries, pidfiles, units, /dev/kvm, a connection.

Everything the daemon starter reads or changes goes through ``Host``, so its
decisions can be tested on a directory tree with pretend programs; only
``fix_kvm`` acts directly, on the device it is given.
"""

from __future__ import annotations

import grp
import logging
import os
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from saphira.virt.errors import VirtError

LOG = logging.getLogger(__name__)
UNIT_DIRS = (
    Path("/etc/systemd/system"),
    Path("/lib/systemd/system"),
    Path("/usr/lib/systemd/system"),
)
START_TIMEOUT = 60.0  # seconds a daemon's -d parent may take to report its child ready


class DaemonError(VirtError):
    msg_fmt = "libvirt is not available"


@dataclass(frozen=True)
class Completed:
    returncode: int
    output: str


def run_command(argv: Sequence[str]) -> Completed:
    """Run a starter; stderr goes to a file, never to a pipe a forked daemon could keep open."""
    with tempfile.TemporaryFile("w+") as err:
        try:
            done = subprocess.run(
                list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                check=False, timeout=START_TIMEOUT, start_new_session=True,
            )  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as error:
            return Completed(-1, str(error))
        err.seek(0)
        return Completed(done.returncode, err.read().strip())


def _ignore_libvirt_error(_ctx: Any, _error: Any) -> None:
    """libvirt's default handler prints every failed connection attempt to stderr."""


def lib_version(uri: str) -> int:
    """The libvirt version of the daemon behind ``uri``; DaemonError if none answers."""
    import libvirt

    libvirt.registerErrorHandler(_ignore_libvirt_error, None)
    try:
        conn = libvirt.open(uri)
        try:
            return int(conn.getLibVersion())
        finally:
            conn.close()
    except libvirt.libvirtError as error:
        raise DaemonError(f"cannot connect to {uri}: {error}") from None


def version_string(number: int) -> str:
    """libvirt's packed version (9000000) as people write it (9.0.0)."""
    return f"{number // 1_000_000}.{number // 1000 % 1000}.{number % 1000}"


@dataclass(frozen=True)
class Host:
    """What the daemon starter reads and changes on the machine; tests replace each part."""

    sbin: Path = Path("/usr/sbin")
    run_dir: Path = Path("/run")
    conf_dir: Path = Path("/run/saphira")  # the socket configuration of daemons Saphira starts
    proc: Path = Path("/proc")
    unit_dirs: tuple[Path, ...] = UNIT_DIRS
    kvm: Path = Path("/dev/kvm")
    execute: Callable[[Sequence[str]], Completed] = run_command
    connect: Callable[[str], int] = lib_version
    euid: Callable[[], int] = os.geteuid
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic

    def binary(self, name: str) -> Path | None:
        path = self.sbin / name
        return path if path.is_file() and os.access(path, os.X_OK) else None

    def systemd(self) -> bool:
        """PID 1 is systemd (sd_booted's test)."""
        return (self.run_dir / "systemd" / "system").is_dir()

    def running(self, daemon: str) -> int | None:
        """The pid in /run/<daemon>.pid if that process is still this daemon, and alive
        (a killed daemon nobody has reaped yet is a zombie that keeps its name)."""
        try:
            pid = int((self.run_dir / f"{daemon}.pid").read_text().strip())
            stat = (self.proc / str(pid) / "stat").read_text()  # "pid (comm) state ..."
        except (OSError, ValueError):
            return None
        comm, _, rest = stat.partition("(")[2].rpartition(")")
        zombie = rest.split()[:1] == ["Z"]
        return pid if comm == daemon[:15] and not zombie else None  # comm: cut at 15

    def has_unit(self, unit: str) -> bool:
        return any((directory / unit).exists() for directory in self.unit_dirs)


def fix_kvm(device: Path = Path("/dev/kvm"), group: str = "kvm") -> str | None:
    """Give group ``kvm`` access to a ``0600 root:root`` /dev/kvm; what was done, if anything.

    libvirt probes QEMU again on every capabilities call while it cannot
    use /dev/kvm, which costs 4 to 12 seconds each time.
    """
    try:
        info = device.stat()
        gid = grp.getgrnam(group).gr_gid
    except (OSError, KeyError):
        return None
    if stat.S_IMODE(info.st_mode) != 0o600 or (info.st_uid, info.st_gid) != (0, 0):
        return None
    try:
        os.chown(device, -1, gid)
        os.chmod(device, 0o660)
    except OSError as error:
        LOG.warning("%s is 0600 root:root (slow libvirt calls); cannot fix it: %s", device, error)
        return None
    note = f"{device}: now root:{group} 0660 (at 0600 every libvirt capabilities call re-probes)"
    LOG.info("%s", note)
    return note
