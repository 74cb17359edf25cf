"""``qemu-img info`` on stored data: the virtual size, and a second opinion.

The format is always passed with -f so qemu-img never probes untrusted data,
and the output is checked for a backing file or data file again in case the
header checks in ``formats`` missed a way to name one.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from typing import Any

from saphira.image.formats import UnsafeImage, qemu_name

TIMEOUT = 60
MEMORY_LIMIT = 1024 * 1024 * 1024  # what nova's qemu-img calls allow as well
CPU_LIMIT = 30  # seconds of CPU time, as Glance's and Nova's qemu-img info calls


class QemuImgError(RuntimeError):
    """qemu-img could not be run or did not answer."""


@dataclass(frozen=True)
class Info:
    format: str
    virtual_size: int


def _command(qemu_img: str) -> list[str]:
    """qemu-img under address-space and CPU-time limits, via prlimit (no preexec_fn fork hooks).

    A crafted image cannot make qemu-img eat the host's memory or spin for
    ever; the wall-clock TIMEOUT also covers a qemu-img that sleeps.
    """
    prlimit = shutil.which("prlimit")
    limits = [f"--as={MEMORY_LIMIT}", f"--cpu={CPU_LIMIT}"]
    return [prlimit, *limits, "--", qemu_img] if prlimit else [qemu_img]


def run_info(path: str, disk_format: str, qemu_img: str = "qemu-img") -> dict[str, Any]:
    cmd = [*_command(qemu_img), "info", "--output", "json", "-f", qemu_name(disk_format), path]
    try:
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise QemuImgError(f"qemu-img info failed: {error}") from None
    if result.returncode != 0:
        raise UnsafeImage(f"qemu-img cannot read the data as {disk_format}")
    try:
        data = json.loads(result.stdout)
    except ValueError:
        raise QemuImgError("qemu-img info printed no JSON") from None
    if not isinstance(data, dict):
        raise QemuImgError("qemu-img info printed no JSON object")
    return data


def info(path: str, disk_format: str, qemu_img: str = "qemu-img") -> Info:
    """The virtual size; UnsafeImage if qemu-img sees a backing or data file."""
    data = run_info(path, disk_format, qemu_img)
    if data.get("backing-filename") or data.get("full-backing-filename"):
        raise UnsafeImage("images with a backing file are not allowed")
    specific = (data.get("format-specific") or {}).get("data") or {}
    if specific.get("data-file"):
        raise UnsafeImage("images with an external data file are not allowed")
    return Info(str(data.get("format", "")), int(data.get("virtual-size", 0)))
