"""Console types and where a guest's console listens (the compute host's answer)."""

from __future__ import annotations

import dataclasses
import enum

from saphira.objects.base import SaphiraObject


class ConsoleType(enum.StrEnum):
    """The API's console ``type``; each proxy serves one of them."""

    NOVNC = "novnc"
    SPICE_HTML5 = "spice-html5"
    SERIAL = "serial"

    @property
    def protocol(self) -> str:
        """The API's ``protocol`` for this type (remote-consoles, 2.6+)."""
        return _PROTOCOLS[self]


_PROTOCOLS = {ConsoleType.NOVNC: "vnc", ConsoleType.SPICE_HTML5: "spice",
              ConsoleType.SERIAL: "serial"}  # fmt: skip


@dataclasses.dataclass
class ConsoleEndpoint(SaphiraObject):
    """Where the proxy connects for a guest's console: the VNC (SPICE, serial) server."""

    VERSION = "1.0"

    host: str
    port: int
    internal_access_path: str | None = None
