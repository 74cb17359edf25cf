"""Guest disk files through ``qemu-img``: overlays on cached bases, blank
ephemeral disks, growth, flattening for snapshots.

Every call names the format it expects where it knows it, so qemu-img probes
only where the caller asks it to (the image cache compares a probe with the
format the image service declared). ``info`` runs under an address-space and
CPU limit as Nova's does: a crafted header must not make it eat the host.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from saphira.virt.errors import VirtError

GIB = 1024**3
INFO_TIMEOUT = 60
INFO_LIMITS = ("--as=1073741824", "--cpu=30")  # 1 GiB, 30 s: nova's qemu-img info limits


@dataclass(frozen=True)
class DiskInfo:
    format: str
    virtual_size: int
    backing_file: Path | None = None
    data_file: str | None = None


def info(path: Path, disk_format: str | None = None) -> DiskInfo:
    """What qemu-img sees in ``path``: probed unless ``disk_format`` is given.

    ``-U`` reads the header without taking QEMU's image lock, so a running
    guest's disk can be inspected (the cache clean-up does that).
    """
    fmt = ["-f", disk_format] if disk_format else []
    argv = [*_limits(), "qemu-img", "info", "-U", "--output", "json", *fmt, str(path)]
    result = _run("info", argv, path, timeout=INFO_TIMEOUT)
    data = _json_object(result, path)
    backing = data.get("full-backing-filename") or data.get("backing-filename")
    specific = (data.get("format-specific") or {}).get("data") or {}
    return DiskInfo(
        format=str(data.get("format", "")),
        virtual_size=int(data.get("virtual-size", 0)),
        backing_file=Path(backing) if backing else None,
        data_file=str(specific["data-file"]) if specific.get("data-file") else None,
    )


def backing_file(path: Path) -> Path | None:
    return info(path).backing_file


def create_overlay(base: Path, base_format: str, dest: Path, size_gb: int) -> None:
    """A qcow2 on top of ``base``, as large as the flavor asks but never smaller
    than the image (size_gb 0: the image's own size)."""
    size = max(size_gb * GIB, info(base, base_format).virtual_size)
    argv = ["qemu-img", "create", "-q", "-f", "qcow2", "-b", str(base.resolve()),
            "-F", base_format, str(dest), str(size)]  # fmt: skip
    _run("create", argv, dest)


def rebase_unsafe(path: Path, base: Path, base_format: str) -> None:
    """Point the overlay ``path`` at ``base``, the same image in another place (a
    disk received from another host): only the header changes, no data is read."""
    argv = ["qemu-img", "rebase", "-q", "-u", "-f", "qcow2", "-b", str(base.resolve()),
            "-F", base_format, str(path)]  # fmt: skip
    _run("rebase", argv, path)


def create_blank(dest: Path, size_gb: int) -> None:
    if size_gb <= 0:
        raise VirtError(f"cannot create {dest}: a blank disk needs a size, got {size_gb} GiB")
    _run("create", ["qemu-img", "create", "-q", "-f", "qcow2", str(dest), f"{size_gb}G"], dest)


def resize(path: Path, size_gb: int) -> None:
    """Grow the disk to ``size_gb`` GiB; 0 or the current size leaves it as it is.

    Shrinking would cut off whatever the guest keeps at the end, so it is refused.
    """
    current = info(path)
    size = size_gb * GIB
    if size_gb == 0 or size == current.virtual_size:
        return
    if size < current.virtual_size:
        raise VirtError(
            f"cannot shrink {path} from {current.virtual_size} to {size} bytes ({size_gb} GiB)"
        )
    _run("resize", ["qemu-img", "resize", "-q", "-f", current.format, str(path), str(size)], path)


def convert(src: Path, dest: Path, out_format: str = "qcow2") -> None:
    """A standalone copy of ``src`` (an overlay's backing chain flattened into it).

    The guest must be stopped: qemu-img would read a disk being written.
    A failed conversion leaves no partial ``dest`` behind.
    """
    argv = ["qemu-img", "convert", "-f", info(src).format, "-O", out_format, str(src), str(dest)]
    try:
        _run("convert", argv, src)
    except VirtError:
        dest.unlink(missing_ok=True)
        raise


def _limits() -> list[str]:
    prlimit = shutil.which("prlimit")
    return [prlimit, *INFO_LIMITS, "--"] if prlimit else []


def _run(what: str, argv: list[str], path: Path,
         timeout: float | None = None) -> subprocess.CompletedProcess[str]:  # fmt: skip
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise VirtError(f"qemu-img {what} of {path} failed: {error}") from None
    if result.returncode != 0:
        detail = result.stderr.strip() or f"exit status {result.returncode}"
        raise VirtError(f"qemu-img {what} of {path} failed: {detail}")
    return result


def _json_object(result: subprocess.CompletedProcess[str], path: Path) -> dict[str, Any]:
    try:
        data = json.loads(result.stdout)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise VirtError(f"qemu-img info of {path} printed no JSON object")
    return data
