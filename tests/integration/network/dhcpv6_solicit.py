"""A minimal DHCPv6 client (busybox here has no udhcpc6): one Solicit, the Advertise's address.

Run inside a guest namespace: ``python dhcpv6_solicit.py IFACE MAC``; prints the
offered address, or nothing when no server answers within a few seconds.
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
import struct
import sys
import time

SOLICIT, ADVERTISE = 1, 2
CLIENTID, IA_NA, IAADDR, ELAPSED = 1, 3, 5, 8


def option(code: int, data: bytes) -> bytes:
    return struct.pack("!HH", code, len(data)) + data


def solicit(mac: str, xid: bytes) -> bytes:
    duid_ll = struct.pack("!HH", 3, 1) + bytes.fromhex(mac.replace(":", ""))
    ia_na = option(IA_NA, struct.pack("!III", 1, 0, 0))
    return bytes([SOLICIT]) + xid + option(CLIENTID, duid_ll) + ia_na + option(ELAPSED, b"\0\0")


def options(data: bytes) -> dict[int, bytes]:
    found = {}
    while len(data) >= 4:
        code, length = struct.unpack("!HH", data[:4])
        found[code], data = data[4 : 4 + length], data[4 + length :]
    return found


def offered(reply: bytes, xid: bytes) -> str | None:
    if reply[0] != ADVERTISE or reply[1:4] != xid:
        return None
    ia_na = options(reply[4:]).get(IA_NA)
    address = options(ia_na[12:]).get(IAADDR) if ia_na else None
    return str(ipaddress.IPv6Address(address[:16])) if address else None


def main(interface: str, mac: str) -> None:
    xid = secrets.token_bytes(3)
    with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, interface.encode())
        sock.bind(("::", 546))
        sock.settimeout(1.0)
        server = ("ff02::1:2", 547, 0, socket.if_nametoindex(interface))
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline:
            try:  # fails while the link-local address is still tentative
                sock.sendto(solicit(mac, xid), server)
                address = offered(sock.recv(1500), xid)
            except OSError:
                time.sleep(0.5)
                continue
            if address:
                print(address)
                return


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
