"""A guest booted straight from a kernel and ramdisk image (Nova's AMI-style images).

An image whose ``kernel_id`` (and optionally ``ramdisk_id``) property names
other images boots the guest with QEMU's direct kernel boot: the driver
hands the hypervisor the kernel, the initial ramdisk and a command line
(the image's ``os_command_line``, else Nova's default), and the firmware
and boot loader are skipped. The compute API checks that the caller may see
both images and records them in the server's system metadata under Nova's
names; from then on the server boots from what was recorded, never from
what the image says later, so a changed property cannot reach another
project's image.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

KERNEL_KEY = "image_kernel_id"
RAMDISK_KEY = "image_ramdisk_id"
CMDLINE_KEY = "image_os_command_line"
KEYS = (KERNEL_KEY, RAMDISK_KEY, CMDLINE_KEY)
#: Nova's command line when the image gives none: the root disk and the consoles.
DEFAULT_CMDLINE = "root=/dev/vda console=tty0 console=ttyS0 console=hvc0"


@dataclass(frozen=True)
class DirectBoot:
    kernel_id: str
    ramdisk_id: str | None
    cmdline: str

    @classmethod
    def of(cls, system_metadata: Mapping[str, str]) -> DirectBoot | None:
        """What a server recorded at create or rebuild; None: it boots from its disk."""
        kernel = system_metadata.get(KERNEL_KEY)
        if not kernel:
            return None
        return cls(
            kernel,
            system_metadata.get(RAMDISK_KEY) or None,
            system_metadata.get(CMDLINE_KEY) or DEFAULT_CMDLINE,
        )


def referenced(image: Mapping[str, object]) -> tuple[str, ...]:
    """The image ids an image's properties name for its boot, kernel first."""
    return tuple(str(image[key]) for key in ("kernel_id", "ramdisk_id") if image.get(key))


def system_metadata(image: Mapping[str, object]) -> dict[str, str]:
    """The entries a server of this image records (none for an image that boots
    from its disk)."""
    if not image.get("kernel_id"):
        return {}
    found = {KERNEL_KEY: image["kernel_id"], RAMDISK_KEY: image.get("ramdisk_id"),
             CMDLINE_KEY: image.get("os_command_line")}  # fmt: skip
    return {key: str(value) for key, value in found.items() if value}


def image_properties(system_metadata: Mapping[str, str]) -> dict[str, str]:
    """A snapshot's share of what the server recorded, as image properties (Nova's
    snapshots inherit their server's ``image_*`` entries), so it boots the same way."""
    names = {KERNEL_KEY: "kernel_id", RAMDISK_KEY: "ramdisk_id", CMDLINE_KEY: "os_command_line"}
    return {names[key]: value for key, value in system_metadata.items() if key in names and value}


def rebuilt(current: Mapping[str, str], image: Mapping[str, object]) -> dict[str, str]:
    """A server's system metadata once rebuilt from ``image``: the old image's boot
    entries gone, the new one's in."""
    kept = {key: value for key, value in current.items() if key not in KEYS}
    return {**kept, **system_metadata(image)}
