"""What the bytes of an image really are, read from its first bytes and its last.

A declared ``disk_format`` is a claim; a hypervisor that trusts it can be made
to open a host file through a qcow2 backing file or external data file, or
through a VMDK descriptor naming other extents. So the store keeps the head
(HEAD_SIZE bytes) and tail (TAIL_SIZE bytes) of every upload and this module
says what they are and whether they are safe. qemu-img then confirms.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

HEAD_SIZE = 64 * 1024
TAIL_SIZE = 512

QCOW2_MAGIC = b"QFI\xfb"
QCOW2_DATA_FILE_BIT = 1 << 2  # incompatible feature "external data file"
VMDK_MAGIC = b"KDMV"
VMDK_SAFE_TYPES = ("monolithicSparse", "streamOptimized")
VHDX_MAGIC = b"vhdxfile"
VHD_MAGIC = b"conectix"
VDI_MAGIC = 0xBEDA107F
ISO_MAGIC = b"CD001"
ISO_OFFSETS = (0x8001, 0x8801, 0x9001)

RAW_LIKE = frozenset({"raw", "aki", "ari", "ami"})
QEMU_NAMES = {"vhd": "vpc", "iso": "raw", "aki": "raw", "ari": "raw", "ami": "raw"}


class UnsafeImage(ValueError):
    """The data is not what it claims, or is a format feature we refuse."""


@dataclass(frozen=True)
class Inspection:
    format: str  # raw, qcow2, vmdk, vhd, vhdx, vdi or iso
    head: bytes
    tail: bytes


def detect(head: bytes, tail: bytes) -> str:
    """The format the bytes are; "raw" when no known signature is found."""
    if head.startswith(QCOW2_MAGIC):
        return "qcow2"
    if head.startswith(VMDK_MAGIC):
        return "vmdk"
    if head.startswith(VHDX_MAGIC):
        return "vhdx"
    if head.startswith(VHD_MAGIC) or tail[-512:].startswith(VHD_MAGIC):
        return "vhd"
    if len(head) >= 68 and struct.unpack_from("<I", head, 64)[0] == VDI_MAGIC:
        return "vdi"
    if any(head[o : o + 5] == ISO_MAGIC for o in ISO_OFFSETS if len(head) >= o + 5):
        return "iso"
    return "raw"


def _check_qcow2(head: bytes) -> None:
    if len(head) < 104:
        raise UnsafeImage("qcow2 header is truncated")
    version, backing_offset, backing_size = struct.unpack_from(">IQI", head, 4)
    if backing_offset or backing_size:
        raise UnsafeImage("qcow2 images with a backing file are not allowed")
    if version >= 3:
        (incompatible,) = struct.unpack_from(">Q", head, 72)
        if incompatible & QCOW2_DATA_FILE_BIT:
            raise UnsafeImage("qcow2 images with an external data file are not allowed")


def _check_vmdk(head: bytes) -> None:
    """Only single-file VMDKs: other create types name extent files on the host."""
    if len(head) < 44:
        raise UnsafeImage("vmdk header is truncated")
    desc_sector, desc_sectors = struct.unpack_from("<QQ", head, 28)
    start, end = desc_sector * 512, (desc_sector + desc_sectors) * 512
    if not desc_sector or end > len(head):
        return  # streamOptimized images may carry no embedded descriptor
    descriptor = head[start:end].split(b"\0", 1)[0].decode("latin-1")
    found = re.search(r'createType\s*=\s*"([^"]+)"', descriptor)
    if found and found.group(1) not in VMDK_SAFE_TYPES:
        raise UnsafeImage(f"vmdk create type {found.group(1)!r} is not allowed")


def inspect(head: bytes, tail: bytes, declared: str) -> Inspection:
    """Check the data against its declared format; UnsafeImage if it does not match."""
    found = detect(head, tail)
    if declared in RAW_LIKE:
        if found not in ("raw", "iso"):
            raise UnsafeImage(f"image data is {found}, not {declared}")
    elif found != declared:
        raise UnsafeImage(f"image data is {found}, not {declared}")
    if found == "qcow2":
        _check_qcow2(head)
    elif found == "vmdk":
        _check_vmdk(head)
    return Inspection(found, head, tail)


def qemu_name(disk_format: str) -> str:
    """The qemu-img -f name of a Glance disk format."""
    return QEMU_NAMES.get(disk_format, disk_format)
