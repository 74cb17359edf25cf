"""Where one guest's files live: ``<instances_path>/<uuid>/`` as in Nova.

Keeping every file of a guest in one directory makes cleanup a single
removal and lets a leak check look in one place.
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from saphira.privsep import files

RESIZE_SUFFIX = "_resize"
CONSOLE_LOG = "console.log"


@dataclass(frozen=True)
class InstanceFiles:
    directory: Path

    @classmethod
    def of(cls, instances_path: Path, uuid: str) -> InstanceFiles:
        return cls(instances_path / uuid)

    @property
    def disk(self) -> Path:
        return self.directory / "disk"

    @property
    def ephemeral(self) -> Path:
        return self.directory / "disk.eph0"

    @property
    def config_drive(self) -> Path:
        return self.directory / "disk.config"

    @property
    def kernel(self) -> Path:
        """A directly booted guest's kernel (Nova's name), copied from the image cache."""
        return self.directory / "kernel"

    @property
    def ramdisk(self) -> Path:
        return self.directory / "ramdisk"

    @property
    def console_log(self) -> Path:
        return self.directory / CONSOLE_LOG

    @property
    def domain_xml(self) -> Path:
        return self.directory / "libvirt.xml"

    @property
    def resize_backup(self) -> InstanceFiles:
        """The pre-resize copy of this directory, kept until confirm or revert."""
        return InstanceFiles(self.directory.with_name(self.directory.name + RESIZE_SUFFIX))

    def create(self) -> None:
        make_reachable_dir(self.directory)

    def remove(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)


def console_bytes(path: Path, limit: int) -> bytes:
    """The last ``limit`` bytes of a console log (none yet: empty).

    virtlogd writes the log as root (0600): a service that is not root reads
    it through the privileged helper.
    """
    try:
        with path.open("rb") as log:
            return files.last_bytes(log, limit)
    except FileNotFoundError:
        return b""
    except PermissionError:
        return files.console_tail(str(path), limit)


def console_tail(path: Path, limit: int) -> str:
    """The last ``limit`` bytes of a console log, decoded leniently."""
    data = console_bytes(path, limit)
    if len(data) == limit and b"\n" in data:  # drop the partial first line
        data = data[data.index(b"\n") + 1 :]
    return data.decode("utf-8", "replace").replace("\r\n", "\n")


def copy_guest_dir(source: Path, target: Path) -> None:
    """``source`` copied to ``target``, its console log too though root wrote it."""
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(CONSOLE_LOG))
    log = console_bytes(source / CONSOLE_LOG, files.MAX_BYTES)
    if log:
        (target / CONSOLE_LOG).write_bytes(log)


QEMU_USER = "libvirt-qemu"  # Debian's build default for qemu:///system guests


def make_reachable_dir(path: Path) -> None:
    """Create ``path`` so QEMU, running as its own user, can reach files inside."""
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(path.stat().st_mode | 0o011)


def blocking_ancestor(path: Path, user: str = QEMU_USER) -> Path | None:
    """The first directory on the way to ``path`` that ``user`` cannot pass, if any.

    Guests' disks are opened by QEMU as that user, so a 0700 directory above
    instances_path (a home or a private state directory) makes every boot fail
    with "Permission denied"; finding it at start says so once, clearly.
    """
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        return None  # QEMU runs as root or a user we do not know: nothing to check
    for directory in reversed(path.resolve().parents):
        if not _passable(directory.stat(), entry.pw_uid, entry.pw_gid):
            return directory
    return None


def _passable(st: os.stat_result, uid: int, gid: int) -> bool:
    if st.st_uid == uid:
        return bool(st.st_mode & stat.S_IXUSR)
    if st.st_gid == gid:
        return bool(st.st_mode & stat.S_IXGRP)
    return bool(st.st_mode & stat.S_IXOTH)
