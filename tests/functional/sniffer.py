"""Frames arriving at the host's end of a bridge, read with a packet socket.

Tests use it to see what a guest's port lets through to the host, which a
guest's own view (its probe's verdict) cannot prove: a probe that fails for
some other reason would look like a drop.
"""

from __future__ import annotations

import socket
import struct
import threading
from types import TracebackType

ETH_P_ALL = 0x0003
ETH_P_IP = 0x0800
ETH_P_ARP = 0x0806


def _mac(raw: bytes) -> str:
    return ":".join(f"{b:02x}" for b in raw)


class Sniffer:
    """Collects every frame the host receives on ``device`` while the block runs."""

    def __init__(self, device: str) -> None:
        self.device = device
        self.frames: list[bytes] = []
        self._sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        self._sock.bind((device, 0))
        self._sock.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)

    def __enter__(self) -> Sniffer:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join()
        self._sock.close()

    def _read(self) -> None:
        while not self._stop.is_set():
            try:
                frame, address = self._sock.recvfrom(65535)
            except TimeoutError:
                continue
            if address[2] != socket.PACKET_OUTGOING:
                self.frames.append(frame)

    def _of(self, ethertype: int) -> list[bytes]:
        return [f for f in self.frames if struct.unpack("!H", f[12:14])[0] == ethertype]

    def mac_sources(self) -> set[str]:
        return {_mac(f[6:12]) for f in self.frames}

    def ipv4_sources(self) -> set[str]:
        return {socket.inet_ntoa(f[26:30]) for f in self._of(ETH_P_IP)}

    def arp_senders(self) -> set[str]:
        """The sender protocol addresses of ARP frames (what a spoofer would claim)."""
        return {socket.inet_ntoa(f[28:32]) for f in self._of(ETH_P_ARP)}
