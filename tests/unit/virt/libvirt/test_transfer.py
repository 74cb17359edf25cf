"""The disk transfer between two agents over loopback: what arrives is what was
sent, and a wrong token, a foreign name or a bad checksum leaves nothing."""

from __future__ import annotations

import dataclasses
import json
import socket
from pathlib import Path

import pytest

from saphira.virt.errors import VirtError
from saphira.virt.libvirt import transfer
from saphira.virt.libvirt.transfer import Receiver


def _disks(tmp_path: Path) -> list[Path]:
    source = tmp_path / "source"
    source.mkdir()
    (source / "disk").write_bytes(b"\x5a" * (3 * transfer.CHUNK + 17))
    (source / "disk.config").write_bytes(b"config drive")
    return [source / "disk", source / "disk.config"]


def test_the_files_arrive_whole(tmp_path: Path) -> None:
    files = _disks(tmp_path)
    receiver = Receiver(tmp_path / "dest" / "guest", "127.0.0.1", "host-b", timeout=30)
    transfer.send(receiver.target, files, "host-a", timeout=30)
    receiver.wait(30)
    for path in files:
        assert (tmp_path / "dest" / "guest" / path.name).read_bytes() == path.read_bytes()


def test_a_wrong_token_is_refused_and_the_source_still_gets_through(tmp_path: Path) -> None:
    receiver = Receiver(tmp_path / "guest", "127.0.0.1", "host-b", timeout=30)
    wrong, disks = dataclasses.replace(receiver.target, token="0" * 64), _disks(tmp_path)
    with pytest.raises(VirtError, match="wrong token"):
        transfer.send(wrong, disks, "host-a", timeout=30)
    assert not (tmp_path / "guest").exists()
    transfer.send(receiver.target, disks, "host-a", timeout=30)
    receiver.wait(30)
    assert (tmp_path / "guest" / "disk.config").read_bytes() == b"config drive"


def test_a_silent_client_cannot_take_the_sources_place(tmp_path: Path) -> None:
    receiver = Receiver(tmp_path / "guest", "127.0.0.1", "host-b", timeout=30, hello_timeout=0.3)
    target = receiver.target
    with socket.create_connection((target.address, target.port), 5):
        transfer.send(target, _disks(tmp_path), "host-a", timeout=30)
    receiver.wait(30)
    assert (tmp_path / "guest" / "disk.config").read_bytes() == b"config drive"


def _raw(receiver: Receiver, lines: list[bytes]) -> str:
    target = receiver.target
    with socket.create_connection((target.address, target.port), 30) as conn:
        conn.sendall(target.token.encode() + b"\n")
        reader = conn.makefile("rb")
        assert reader.readline() == b"GO\n"
        conn.sendall(b"".join(lines))
        conn.shutdown(socket.SHUT_WR)
        return reader.readline().decode()


_BAD_SUM = b"".join(
    (json.dumps({"name": "disk", "size": 4}).encode(), b"\nabcd",
     json.dumps({"sha256": "0" * 64}).encode(), b"\n")
)  # fmt: skip


@pytest.mark.parametrize(
    ("lines", "why"),
    [
        ([json.dumps({"name": "../../etc/passwd", "size": 1}).encode() + b"\nx"], "refused"),
        ([_BAD_SUM], "checksum mismatch"),
        ([json.dumps({"name": "disk", "size": 100}).encode() + b"\nshort"], "closed"),
    ],
    ids=["foreign-name", "bad-checksum", "cut-short"],
)
def test_refused_content_leaves_nothing(tmp_path: Path, lines: list[bytes], why: str) -> None:
    receiver = Receiver(tmp_path / "guest", "127.0.0.1", "host-b", timeout=30)
    assert _raw(receiver, lines).startswith("ERR ")
    with pytest.raises(VirtError, match=why):
        receiver.wait(30)
    assert not (tmp_path / "guest").exists()


def test_a_receiver_nobody_calls_gives_up(tmp_path: Path) -> None:
    receiver = Receiver(tmp_path / "guest", "127.0.0.1", "host-b", timeout=0.2)
    with pytest.raises(VirtError, match="no source presented the token"):
        receiver.wait(30)
    with pytest.raises(OSError):
        socket.create_connection((receiver.target.address, receiver.target.port), 5).close()
