"""TCP ports for guests' serial consoles, from ``[serial_console] port_range``.

A port is free when no domain this libvirtd knows (ours or another cloud's
sharing it) has a serial port on it, no spawn of ours is between picking it
and defining its domain, and nothing else on the host listens there (a bind
test, as Nova's acquire_port does). The domain's XML is the lasting record:
once it is defined the reservation ends, and undefining frees the port.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator

from saphira.exception import ConfigError
from saphira.virt.errors import VirtError


def parse_range(text: str) -> range:
    """``first:last`` (both included) as a range; ConfigError if empty or invalid."""
    first, _, last = text.partition(":")
    try:
        low, high = int(first), int(last)
    except ValueError:
        raise ConfigError(f"[serial_console] port_range {text!r} is not first:last") from None
    if not 0 < low <= high < 65536:
        raise ConfigError(f"[serial_console] port_range {text!r} is not a port range")
    return range(low, high + 1)


def ports_in(domain_xml: str) -> set[int]:
    """The TCP ports a domain's serial and console devices listen on."""
    root = ET.fromstring(domain_xml)
    found = set()
    for source in root.iterfind("devices/*[@type='tcp']/source[@service]"):
        with contextlib.suppress(ValueError):
            found.add(int(source.get("service", "")))
    return found


def can_bind(host: str, port: int) -> bool:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


class SerialPorts:
    def __init__(
        self,
        host: str,
        ports: range,
        in_use: Callable[[], set[int]],
        free: Callable[[str, int], bool] = can_bind,
    ) -> None:
        self.host, self.ports = host, ports
        self._in_use, self._free = in_use, free
        self._held: set[int] = set()
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def reserve(self) -> Iterator[int]:
        """A free port, held from the others until the block (defining the domain) ends."""
        with self._lock:
            taken = self._in_use() | self._held
            port = next((p for p in self.ports if p not in taken and self._free(self.host, p)),
                        None)  # fmt: skip
            if port is None:
                first, last = self.ports[0], self.ports[-1]
                raise VirtError(host=self.host, reason=f"no free serial port in {first}:{last}")
            self._held.add(port)
        try:
            yield port
        finally:
            with self._lock:
                self._held.discard(port)
