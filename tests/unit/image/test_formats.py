"""Format inspection on real headers made by qemu-img, plus hand-made ISO and raw."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from saphira.image import formats, qemu


def _make(tmp_path: Path, fmt: str, *extra: str) -> Path:
    path = tmp_path / f"disk.{fmt}"
    subprocess.run(["qemu-img", "create", "-q", "-f", fmt, *extra, str(path), "8M"], check=True)
    return path


def _ends(path: Path) -> tuple[bytes, bytes]:
    data = path.read_bytes()
    return data[: formats.HEAD_SIZE], data[-formats.TAIL_SIZE :]


@pytest.mark.parametrize(
    ("qemu_fmt", "declared"),
    [("qcow2", "qcow2"), ("vmdk", "vmdk"), ("vpc", "vhd"), ("vhdx", "vhdx"), ("vdi", "vdi")],
)
def test_each_format_is_recognised(tmp_path: Path, qemu_fmt: str, declared: str) -> None:
    head, tail = _ends(_make(tmp_path, qemu_fmt))
    assert formats.detect(head, tail) == declared
    assert formats.inspect(head, tail, declared).format == declared
    with pytest.raises(formats.UnsafeImage):
        formats.inspect(head, tail, "raw")


def test_raw_declared_qcow2_is_refused() -> None:
    with pytest.raises(formats.UnsafeImage, match="raw, not qcow2"):
        formats.inspect(b"\x01" * 4096, b"\x01" * 512, "qcow2")


def test_iso_is_found_at_its_offset() -> None:
    head = bytearray(0x9000)
    head[0x8001:0x8006] = b"CD001"
    assert formats.detect(bytes(head), b"") == "iso"
    assert formats.inspect(bytes(head), b"", "raw").format == "iso"  # a raw copy of an ISO


def test_backing_file_is_refused(tmp_path: Path) -> None:
    base = tmp_path / "base.raw"
    base.write_bytes(b"\0" * 512)
    path = _make(tmp_path, "qcow2", "-b", str(base), "-F", "raw")
    head, tail = _ends(path)
    with pytest.raises(formats.UnsafeImage, match="backing file"):
        formats.inspect(head, tail, "qcow2")
    with pytest.raises(formats.UnsafeImage, match="backing file"):
        qemu.info(str(path), "qcow2")


def test_external_data_file_is_refused(tmp_path: Path) -> None:
    data_file = tmp_path / "data.raw"
    path = _make(tmp_path, "qcow2", "-o", f"data_file={data_file}")
    head, tail = _ends(path)
    with pytest.raises(formats.UnsafeImage, match="data file"):
        formats.inspect(head, tail, "qcow2")


def test_qemu_reads_virtual_size(tmp_path: Path) -> None:
    assert qemu.info(str(_make(tmp_path, "qcow2")), "qcow2").virtual_size == 8 * 1024 * 1024


def test_qemu_refuses_data_that_is_not_the_format(tmp_path: Path) -> None:
    path = tmp_path / "junk"
    path.write_bytes(b"junk" * 1000)
    with pytest.raises(formats.UnsafeImage):
        qemu.info(str(path), "qcow2")


def test_qemu_img_runs_under_memory_and_cpu_limits() -> None:
    """The limits as the kernel applies them to the process qemu-img becomes."""
    command = qemu._command("cat")
    limits = subprocess.run([*command, "/proc/self/limits"], capture_output=True, text=True)
    rows = {line[:26].strip(): line[26:].split() for line in limits.stdout.splitlines()}
    assert rows["Max address space"][:2] == [str(qemu.MEMORY_LIMIT)] * 2
    assert rows["Max cpu time"][:2] == [str(qemu.CPU_LIMIT)] * 2
