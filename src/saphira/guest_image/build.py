"""Build the tiny test guest: kernel, initramfs and a bootable qcow2 disk.

Outputs in ``out_dir``: ``vmlinuz`` (the Debian bzImage), ``vmlinux`` (its
uncompressed ELF, the fast direct boot), ``initramfs.img``, ``saphira-tiny.qcow2``
(FAT + SYSLINUX, boots on its own) and ``manifest.json`` (inputs, command
line, checksums). A build whose manifest already matches its inputs is reused.
``shared()`` is the one build of the user's cache (beside the .debs), which
every ``saphira up --test-image`` of that user reuses.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from saphira.guest_image import cpio, debs, disk, guest_init, kernel, kmod, shims, ssh

#: Bump when the image's content changes for the same packages.
FORMAT = 13  # 8: no_timer_check; 9: dropbear, root by key only; 10: curl, sudo, blkid -L;
# 11-12: ecdsa keys; 13: the host name from Nova's "hostname"
# no_timer_check: under TCG on a busy host the kernel's check that the timer reaches the
# IO-APIC can miss, and it panics ("IO-APIC + timer doesn't work"), boot after boot; cloud
# images boot with it for the same reason.
CMDLINE = "console=tty0 console=ttyS0,115200 quiet panic=-1 no_timer_check"
DISK_NAME = "saphira-tiny.qcow2"


@dataclass(frozen=True)
class GuestImage:
    """Where a built image's parts are, and how to boot them directly."""

    directory: Path
    qcow2: Path
    bzimage: Path
    vmlinux: Path
    initramfs: Path
    cmdline: str
    manifest: dict[str, object]


def _initramfs(root: Path) -> bytes:
    modules = kmod.load_order(root)
    entries = [cpio.directory(d) for d in ("bin", "dev", "etc", "lib", "lib/modules", "proc")]
    entries += [cpio.directory(d) for d in ("root", "sys", "tmp", "etc/acpi", "etc/acpi/PWRF")]
    entries += [cpio.directory(d) for d in ("www", "www/cgi-bin")]
    entries += [
        cpio.chardev("dev/console", 5, 1),
        cpio.file("bin/busybox", (root / "bin" / "busybox").read_bytes(), 0o755),
        cpio.symlink("bin/sh", "busybox"),
        cpio.file("init", guest_init.init_script().encode(), 0o755),
        cpio.file("etc/udhcpc.script", guest_init.UDHCPC.encode(), 0o755),
        cpio.file("www/cgi-bin/probe", guest_init.probe_script().encode(), 0o755),
        cpio.file("etc/acpi/PWRF/00000080", guest_init.ACPI_POWER.encode(), 0o755),
        cpio.file("etc/passwd", b"root:*:0:0:root:/root:/bin/sh\n"),  # no password: keys only
        cpio.file("etc/modules", "".join(f"{m.name}\n" for m in modules).encode()),
    ]
    entries += [cpio.file(f"lib/modules/{m.name}", m.read_bytes()) for m in modules]
    entries += ssh.entries(root)
    entries += shims.entries()
    return cpio.archive(entries)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _image(out: Path, manifest: dict[str, object]) -> GuestImage:
    return GuestImage(
        out,
        out / DISK_NAME,
        out / "vmlinuz",
        out / "vmlinux",
        out / "initramfs.img",
        CMDLINE,
        manifest,
    )


def _current(out: Path, inputs: dict[str, object]) -> GuestImage | None:
    try:
        manifest = json.loads((out / "manifest.json").read_text())
    except (OSError, ValueError):
        return None
    image = _image(out, manifest)
    parts = (image.qcow2, image.bzimage, image.vmlinux, image.initramfs)
    if manifest.get("inputs") == inputs and all(p.is_file() for p in parts):
        return image
    return None


def build(
    out_dir: Path, cache_dir: Path | None = None, kernel_pkg: str | None = None, force: bool = False
) -> GuestImage:
    """Build (or reuse) the tiny image in out_dir; .debs are cached in cache_dir."""
    cache = cache_dir or debs.default_cache_dir()
    packages = debs.resolve(kernel_pkg, cache)
    inputs: dict[str, object] = {
        "format": FORMAT,
        "cmdline": CMDLINE,
        "packages": {p.name: p.version for p in packages},
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    if not force and (done := _current(out_dir, inputs)) is not None:
        return done
    paths = debs.fetch(packages, cache)
    with tempfile.TemporaryDirectory(prefix="saphira-image-", dir=out_dir) as tmp:
        root = Path(tmp) / "root"
        debs.extract(paths, root)
        release = kmod.kernel_release(root)
        image = _image(out_dir, {})
        shutil.copyfile(root / "boot" / f"vmlinuz-{release}", image.bzimage)
        image.vmlinux.write_bytes(kernel.vmlinux_from_bzimage(image.bzimage.read_bytes()))
        image.initramfs.write_bytes(_initramfs(root))
        disk.make_disk(image.bzimage, image.initramfs, CMDLINE, Path(tmp) / "disk.raw", image.qcow2)
    parts = (image.qcow2, image.bzimage, image.vmlinux, image.initramfs)
    manifest: dict[str, object] = {
        "inputs": inputs,
        "kernel_release": release,
        "markers": {"booted": guest_init.BOOTED, "ready": guest_init.READY},
        "http": {"port": guest_init.HTTP_PORT, "body": guest_init.HTTP_BODY},
        "ssh": {"port": ssh.PORT, "user": "root"},
        "sha256": {p.name: _sha256(p) for p in parts},
    }
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return _image(out_dir, manifest)


@contextlib.contextmanager
def shared(cache_dir: Path | None = None) -> Iterator[GuestImage]:
    """The image built (or reused) in the cache's ``image`` directory, locked while in use.

    A build is deterministic, so one per user and set of inputs serves every
    cloud; the lock keeps parallel starts from building it twice and from
    reading parts another start is rewriting (after a kernel update).
    """
    cache = cache_dir or debs.default_cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    # Read-only is enough for flock, so a user who may only read a cache that
    # another user built still reuses it.
    lock = os.open(cache / ".image.lock", os.O_RDONLY | os.O_CREAT, 0o644)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield build(cache / "image", cache)
    finally:
        os.close(lock)
