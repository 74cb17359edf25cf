"""noVNC figures on `saphira up` with the fake driver: a console URL's cost
(POST remote-consoles: the host's answer over RPC and the token written) and
URL -> the guest's RFB ServerInit through the proxy's websocket, one at a time
and with several clients at once. The browser's first frame (Chromium) is a
later round's figure.

Loopback only; every wait is bounded. Prints figures, never asserts them.

    .venv/bin/python bench/console.py [--urls N] [--concurrent C] [--serial]

--serial: the same for the serial console, URL -> the fake guest's login prompt
through the serial proxy.
"""

from __future__ import annotations

import argparse
import base64
import os
import shutil
import socket
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import requests
from common import Cloud, free_offset
from compute import Api, create, percentile, prepare, until_active

UP_FLAGS = ["--compute-driver", "fake.FakeDriver", "--no-test-image", "--no-provider-network"]
TIMEOUT = 30.0


SERIAL = {"protocol": "serial", "type": "serial"}  # --serial: the serial console instead
NOVNC = {"protocol": "vnc", "type": "novnc"}


def console_url(api: Api, server: str, kind: dict[str, str] = NOVNC) -> str:
    body = {"remote_console": kind}
    return str(
        api.call("POST", f"/servers/{server}/remote-consoles", body)["remote_console"]["url"]
    )


class _Stream:
    """The relayed byte stream of a websocket (server frames are never masked)."""

    def __init__(self, sock: socket.socket, buffered: bytes) -> None:
        self.sock, self.raw, self.data = sock, bytearray(buffered), bytearray()

    def _raw(self, count: int) -> bytes:
        while len(self.raw) < count:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("the proxy closed the connection")
            self.raw += chunk
        taken = bytes(self.raw[:count])
        del self.raw[:count]
        return taken

    def recv(self, count: int) -> bytes:
        while len(self.data) < count:
            length = self._raw(2)[1] & 0x7F
            if length == 126:
                length = int.from_bytes(self._raw(2), "big")
            self.data += self._raw(length)
        taken = bytes(self.data[:count])
        del self.data[:count]
        return taken

    def send(self, data: bytes) -> None:
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(bytes([0x82, 0x80 | len(data)]) + mask + masked)


def _upgrade(sock: socket.socket, host: str, port: int, path: str) -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: binary\r\n\r\n"
                  ).encode())  # fmt: skip
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            break
        head += chunk
    if not head.startswith(b"HTTP/1.1 101"):
        raise RuntimeError(f"upgrade refused: {head[:40]!r}")
    return head.split(b"\r\n\r\n", 1)[1]


def to_server_init(url: str) -> float:
    """Seconds from opening the URL's websocket to the guest's ServerInit."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    path = "/" + parse_qs(parts.query)["path"][0]
    began = time.perf_counter()
    with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
        stream = _Stream(sock, _upgrade(sock, host, port, path))
        stream.send(stream.recv(12))  # RFB 003.008: the same version back
        stream.recv(stream.recv(1)[0])  # the security types
        stream.send(bytes([1]))  # None
        stream.recv(4)  # SecurityResult
        stream.send(bytes([1]))  # ClientInit: shared
        head = stream.recv(24)
        stream.recv(int.from_bytes(head[20:24], "big"))  # the desktop's name
    return time.perf_counter() - began


def to_prompt(url: str) -> float:
    """Seconds from opening a serial URL's websocket to the guest's login prompt."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    began = time.perf_counter()
    with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
        stream, seen = _Stream(sock, _upgrade(sock, host, port, f"/?{parts.query}")), b""
        while not seen.endswith(b"login: "):
            seen += stream.recv(1)
    return time.perf_counter() - began


def report(name: str, seconds: list[float]) -> None:
    print(f"  {name}: n={len(seconds)} p50 {statistics.median(seconds) * 1000:.1f} ms, "
          f"p99 {percentile(seconds, 0.99) * 1000:.1f} ms")  # fmt: skip


def run(cloud: Cloud, args: argparse.Namespace) -> None:
    ready = cloud.start()
    api = Api(cloud)
    flavor, image = prepare(api)
    servers = create(api, flavor, image, args.concurrent)
    until_active(api, set(servers))
    kind, reach, end = (SERIAL, to_prompt, "login prompt") if args.serial else (
        NOVNC, to_server_init, "ServerInit")  # fmt: skip
    print(f"saphira {kind['type']} console benchmark (fake driver); ready after {ready:.2f} s")
    console_url(api, servers[0], kind)  # warm-up: the guest's console server starts on first use
    urls, made = [], []
    for _ in range(args.urls):
        began = time.perf_counter()
        urls.append(console_url(api, servers[0], kind))
        made.append(time.perf_counter() - began)
    report("POST remote-consoles (token + host RPC)", made)
    report(f"URL -> {end} through the proxy, one at a time", [reach(u) for u in urls])
    fresh = [console_url(api, server, kind) for server in servers]
    with ThreadPoolExecutor(max_workers=args.concurrent) as pool:
        together = list(pool.map(reach, fresh))
    report(f"URL -> {end}, {args.concurrent} guests at once", together)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--urls", type=int, default=50, help="sequential URLs (default 50)")
    parser.add_argument("--concurrent", type=int, default=20, help="guests at once (default 20)")
    parser.add_argument(
        "--serial",
        action="store_true",
        help="the serial console ([serial_console] enabled) instead of noVNC",
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="saphira-bench-console-"))
    flags = list(UP_FLAGS)
    if args.serial:
        (work / "serial.conf").write_text("[serial_console]\nenabled = true\n")
        flags += ["--config-file", str(work / "serial.conf")]
    cloud = Cloud([sys.executable, "-m", "saphira.cmd.up"], work / "state", free_offset(),
                  work / "saphira.log", extra_args=flags)  # fmt: skip
    try:
        run(cloud, args)
    except (RuntimeError, OSError, requests.RequestException) as error:
        cloud.stop()
        print(f"console benchmark stopped: {error}\n  saphira log kept: {cloud.log_path}")
        return 1
    cloud.stop()
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
