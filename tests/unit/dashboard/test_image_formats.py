"""The upload form's disk format detection: each signature where Glance's inspector
looks for it, and raw when none is there."""

from __future__ import annotations

import struct

import pytest

from saphira.dashboard.image_formats import HEAD_SIZE, detect


def _at(offset: int, data: bytes, size: int = HEAD_SIZE) -> bytes:
    head = bytearray(size)
    head[offset : offset + len(data)] = data
    return bytes(head)


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b"QFI\xfb\x00\x00\x00\x03" + bytes(504), "qcow2"),
        (b"KDMV\x01\x00\x00\x00" + bytes(504), "vmdk"),
        (b"vhdxfile" + bytes(504), "vhdx"),
        (b"conectix" + bytes(504), "vhd"),
        (_at(0x40, struct.pack("<I", 0xBEDA107F)), "vdi"),
        (_at(0x8001, b"CD001"), "iso"),
        (_at(0x8801, b"CD001"), "iso"),
        (_at(0x9001, b"CD001"), "iso"),
        (bytes(HEAD_SIZE), "raw"),
        (b"QFI", "raw"),  # too short for the magic
        (_at(0x8002, b"CD001"), "raw"),  # not where a volume descriptor is
        (b"", "raw"),
    ],
)
def test_the_first_bytes_say_the_format(head: bytes, expected: str) -> None:
    assert detect(head) == expected


def test_a_fixed_vhd_is_known_by_its_footer() -> None:
    footer = b"conectix" + bytes(504)
    assert detect(bytes(HEAD_SIZE), footer) == "vhd"
    assert detect(bytes(HEAD_SIZE), b"x" + footer[:-1]) == "raw"  # the footer is the last 512
