"""Make the bootable disk: a FAT "superfloppy" with SYSLINUX, as qcow2.

No partition table, no mounting, no root: ``mkfs.vfat`` makes the file system
in a plain file, ``syslinux --install`` (the mtools flavour) writes the boot
sector and ldlinux, ``mcopy`` puts the kernel and initramfs in, and
``qemu-img convert`` turns the result into the qcow2 the image service stores.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from saphira.guest_image.debs import ImageBuildError

#: Fixed volume id and timestamps keep the FAT image identical between builds.
VOLUME_ID = "5A9B1AA0"
SOURCE_DATE_EPOCH = "1700000000"


def _run(argv: list[str], env: dict[str, str] | None = None) -> None:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env)
    except FileNotFoundError as exc:
        raise ImageBuildError(f"{argv[0]} is not installed (see tools/dev)") from exc
    if done.returncode != 0:
        raise ImageBuildError(f"{' '.join(argv)} failed: {(done.stderr or done.stdout).strip()}")


def syslinux_cfg(cmdline: str) -> str:
    return (
        "DEFAULT linux\nPROMPT 0\nTIMEOUT 0\n"
        f"LABEL linux\n  KERNEL vmlinuz\n  INITRD initrd.img\n  APPEND {cmdline}\n"
    )


def make_disk(kernel: Path, initrd: Path, cmdline: str, raw: Path, qcow2: Path) -> None:
    """Write raw (the FAT image) and qcow2 from the kernel, initramfs and command line."""
    payload = kernel.stat().st_size + initrd.stat().st_size
    size_kib = (payload // 1024 + 4096 + 1023) // 1024 * 1024  # MiB-aligned, 4 MiB spare
    raw.unlink(missing_ok=True)
    mkfs = ["mkfs.vfat", "--invariant", "-C", "-n", "SAPHIRA", "-i", VOLUME_ID]
    _run([*mkfs, str(raw), str(size_kib)])
    env = {**os.environ, "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH, "MTOOLS_SKIP_CHECK": "1"}
    _run(["syslinux", "--install", str(raw)], env)
    cfg = raw.with_name("syslinux.cfg")
    cfg.write_text(syslinux_cfg(cmdline))
    for src, name in ((kernel, "vmlinuz"), (initrd, "initrd.img"), (cfg, "syslinux.cfg")):
        os.utime(src, (int(SOURCE_DATE_EPOCH), int(SOURCE_DATE_EPOCH)))  # mcopy -m keeps it
        _run(["mcopy", "-o", "-m", "-i", str(raw), str(src), f"::{name}"], env)
    cfg.unlink()
    qcow2.unlink(missing_ok=True)
    _run(["qemu-img", "convert", "-q", "-f", "raw", "-O", "qcow2", str(raw), str(qcow2)])
