"""Mount points as the kernel lists them (/proc/self/mountinfo)."""

from __future__ import annotations

from pathlib import Path

MOUNTINFO = Path("/proc/self/mountinfo")


def mount_points(mountinfo: Path = MOUNTINFO) -> list[str]:
    """Every mount point of this process's mount namespace (octal escapes decoded)."""
    points = []
    for line in mountinfo.read_text().splitlines():
        field = line.split()[4]
        points.append(field.encode().decode("unicode_escape"))
    return points


def is_mount_point(path: Path, mountinfo: Path = MOUNTINFO) -> bool:
    return str(path) in mount_points(mountinfo)
