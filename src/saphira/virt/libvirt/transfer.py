"""A guest's disks from one compute agent to another: no shared storage, no SSH.

Nova copies a resized guest's directory with ``ssh``/``rsync`` (or relies on
shared instance storage); Saphira's agents share neither an account nor a
filesystem, so the destination receives the files itself, once:

* the destination (``prep_resize``) opens a ``Receiver`` on its management
  address (``[DEFAULT] my_ip``), on an ephemeral port, with a 256-bit random
  token; the address, port and token travel to the source inside the
  migration (``MigrationTarget``) over the bus, never anywhere else;
* the source, its guest powered off, connects and sends the token; once the
  receiver answered ``GO`` it sends each file as a JSON header line (name,
  size), the bytes, and a trailer line with the SHA-256 of what it read; then
  an end line, and it reads the verdict;
* the receiver serves one transfer only: the first connection that presents
  the token (checked in constant time) closes the listener; one without it is
  answered ``ERR`` and dropped. It accepts only the guest's disk names (``disk``,
  ``disk.eph0``, ``disk.config``: nothing else, no paths), writes each file into
  the guest's new directory, checks its checksum, and answers ``OK`` or
  ``ERR <reason>``; ``finish_migration`` waits for that result.

A receiver nobody connects to closes itself after ``TIMEOUT`` seconds. The
disk is sent as the qcow2 overlay it is: the destination rebases it on its own
copy of the image (fetched into its image cache as for a boot), as Nova's
finish_migration does with the backing file.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import secrets
import shutil
import socket
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from saphira.virt.errors import VirtError
from saphira.virt.libvirt.paths import make_reachable_dir
from saphira.virt.types import MigrationTarget

LOG = logging.getLogger(__name__)
NAMES = ("disk", "disk.eph0", "disk.config")  # what moves, in this order
TIMEOUT = 300.0  # to connect, and between two reads of a running transfer
HELLO_TIMEOUT = 10.0  # for a connection to present the token
CHUNK = 1024 * 1024
_LINE = 4096


class TransferError(Exception):
    """The transfer broke off or its content was refused."""


def _line(reader: BinaryIO) -> dict[str, object]:
    raw = reader.readline(_LINE)
    if not raw.endswith(b"\n"):
        raise TransferError("the source closed the connection early")
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise TransferError("malformed header")
    return data


class Receiver:
    """The destination's one-time listener for one guest's files."""

    def __init__(self, directory: Path, address: str, host: str, timeout: float = TIMEOUT,
                 hello_timeout: float = HELLO_TIMEOUT) -> None:  # fmt: skip
        self.directory, self.host, self.timeout = directory, host, timeout
        self.hello_timeout = hello_timeout
        self._listener = socket.create_server((address, 0))
        port = int(self._listener.getsockname()[1])
        self.target = MigrationTarget(address, port, secrets.token_hex(32))
        self._error: str | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True, name=f"receive-{port}")
        self._thread.start()

    def wait(self, timeout: float | None = None) -> None:
        """Until the files are in and checked; VirtError naming why they are not."""
        if not self._done.wait(self.timeout if timeout is None else timeout):
            self.close()
            raise VirtError(host=self.host, reason="the source sent no disks in time")
        if self._error is not None:
            raise VirtError(host=self.host, reason=f"receiving the disks failed: {self._error}")

    def close(self) -> None:
        self._listener.close()

    def _serve(self) -> None:
        try:
            conn, reader = self._authenticated(time.monotonic() + self.timeout)
        except OSError:
            self._error = "no source presented the token in time"
            self._listener.close()  # before done: a waiter then finds the port shut
            self._done.set()
            return
        self._listener.close()
        with conn, reader:
            try:
                self._receive(conn, reader)
                conn.sendall(b"OK\n")
            except (OSError, ValueError, TransferError) as error:
                self._error = str(error) or type(error).__name__
                shutil.rmtree(self.directory, ignore_errors=True)  # nothing half-received
                LOG.warning("disks for %s refused: %s", self.directory.name, self._error)
                with contextlib.suppress(OSError):
                    conn.sendall(f"ERR {self._error}\n".encode())
        self._done.set()

    def _authenticated(self, deadline: float) -> tuple[socket.socket, BinaryIO]:
        """The first connection that presents the token (within ``hello_timeout`` of
        connecting); any other is answered ``ERR wrong token`` and closed, so a stray
        or silent client cannot take the source's place."""
        while (left := deadline - time.monotonic()) > 0:
            self._listener.settimeout(left)
            conn, _peer = self._listener.accept()
            conn.settimeout(min(self.hello_timeout, left))
            reader = conn.makefile("rb")
            try:
                token = reader.readline(_LINE).strip()
            except OSError:
                token = b""
            if hmac.compare_digest(token, self.target.token.encode()):
                conn.settimeout(self.timeout)
                return conn, reader
            LOG.warning("disk receiver for %s: a connection without its token", self.directory)
            with contextlib.suppress(OSError):
                conn.sendall(b"ERR wrong token\n")
            reader.close()
            conn.close()
        raise TimeoutError("no source presented the token")

    def _receive(self, conn: socket.socket, reader: BinaryIO) -> None:
        make_reachable_dir(self.directory)
        conn.sendall(b"GO\n")
        while True:
            header = _line(reader)
            if header.get("end") is True:
                return
            name, size = header.get("name"), header.get("size")
            if name not in NAMES or not isinstance(size, int) or size < 0:
                raise TransferError(f"refused file header {header}")
            digest = _copy(reader, self.directory / str(name), size)
            if not hmac.compare_digest(str(_line(reader).get("sha256")), digest):
                raise TransferError(f"{name}: checksum mismatch")


def _copy(reader: BinaryIO, path: Path, size: int) -> str:
    sha = hashlib.sha256()
    with path.open("wb") as out:
        left = size
        while left:
            chunk = reader.read(min(CHUNK, left))
            if not chunk:
                raise TransferError(f"{path.name}: the source closed the connection early")
            sha.update(chunk)
            out.write(chunk)
            left -= len(chunk)
    path.chmod(0o600)
    return sha.hexdigest()


def send(target: MigrationTarget, files: Iterable[Path], host: str,
         timeout: float = TIMEOUT) -> None:  # fmt: skip
    """Stream ``files`` to the destination's receiver; VirtError if it refused them."""
    try:
        with socket.create_connection((target.address, target.port), timeout) as conn:
            conn.sendall(target.token.encode() + b"\n")
            with conn.makefile("rb") as reader:
                answer = reader.readline(_LINE).decode(errors="replace").strip()
                if answer == "GO":
                    for path in files:
                        _send_file(conn, path)
                    conn.sendall(b'{"end": true}\n')
                    conn.shutdown(socket.SHUT_WR)
                    answer = reader.readline(_LINE).decode(errors="replace").strip()
    except OSError as error:
        raise VirtError(host=host, reason=f"sending the disks to {target.address}:"
                        f"{target.port} failed: {error}") from None  # fmt: skip
    if answer != "OK":
        raise VirtError(host=host, reason=f"the destination refused the disks: {answer}")


def _send_file(conn: socket.socket, path: Path) -> None:
    with path.open("rb") as data:
        size = path.stat().st_size
        conn.sendall(json.dumps({"name": path.name, "size": size}).encode() + b"\n")
        sha, left = hashlib.sha256(), size
        while left:
            chunk = data.read(min(CHUNK, left))
            if not chunk:
                raise OSError(f"{path} shrank while it was sent")
            sha.update(chunk)
            conn.sendall(chunk)
            left -= len(chunk)
    conn.sendall(json.dumps({"sha256": sha.hexdigest()}).encode() + b"\n")
