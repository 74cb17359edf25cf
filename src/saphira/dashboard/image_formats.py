"""What an uploaded file is, from its first bytes (and its last 512, for a fixed VHD).

The signatures Glance's format inspector matches (``glance/common/format_inspector``,
now oslo.utils' ``imageutils.format_inspector``): qcow2's ``QFI\\xfb`` at 0, VMDK's
``KDMV`` at 0, VHDX's ``vhdxfile`` at 0, VHD's ``conectix`` footer copy at 0 (a
fixed VHD has it only as the last 512 bytes), VDI's ``0xbeda107f`` at 0x40, an
ISO 9660 volume descriptor's ``CD001`` at 0x8001 (or 0x8801, 0x9001); anything
else is raw, as the inspector's fallback. The image service checks the data
again: a detection here only fills in the disk format the person did not choose.
"""

from __future__ import annotations

import struct

HEAD_SIZE = 64 * 1024  # every signature sits in the first 0x9006 bytes
TAIL_SIZE = 512
FORMATS = ("raw", "qcow2", "vmdk", "vhd", "vhdx", "vdi", "iso")

_AT_START = ((b"QFI\xfb", "qcow2"), (b"KDMV", "vmdk"), (b"vhdxfile", "vhdx"), (b"conectix", "vhd"))
_VDI_MAGIC = 0xBEDA107F
_ISO_OFFSETS = (0x8001, 0x8801, 0x9001)


def detect(head: bytes, tail: bytes = b"") -> str:
    """The disk format of a file that starts with ``head`` and ends with ``tail``."""
    for magic, name in _AT_START:
        if head.startswith(magic):
            return name
    if len(head) >= 0x44 and struct.unpack_from("<I", head, 0x40)[0] == _VDI_MAGIC:
        return "vdi"
    if any(head[o : o + 5] == b"CD001" for o in _ISO_OFFSETS):
        return "iso"
    if len(tail) >= TAIL_SIZE and tail[-TAIL_SIZE:].startswith(b"conectix"):
        return "vhd"
    return "raw"
