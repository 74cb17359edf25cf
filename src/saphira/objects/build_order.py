"""One server's build, as it travels from the compute API through the
conductor to the compute host (and back to the conductor on a reschedule).

The API makes one ``BuildOrder`` per server it queued; the conductor adds the
scheduler's answer (``host_list``: the claimed host first, then the
alternates) and each failed attempt (``attempts``). What the user asked for
lives here and only here: the image as the API saw it, the requested
networks and the admin password.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from saphira.objects.base import SaphiraObject
from saphira.objects.request_spec import RequestSpec
from saphira.objects.selection import Selection

# Glance's own fields; every other plain value of the image document is a property.
_IMAGE_FIELDS = frozenset(
    {"id", "name", "disk_format", "container_format", "min_disk", "min_ram", "size"}
)


@dataclasses.dataclass
class BuildImage(SaphiraObject):
    """The image the server boots from, as the caller saw it when the API checked it."""

    VERSION = "1.0"

    id: str = ""
    name: str = ""
    disk_format: str = ""
    container_format: str = ""
    min_disk: int = 0
    min_ram: int = 0
    size: int = 0
    properties: dict[str, str] = dataclasses.field(default_factory=dict)

    @classmethod
    def of(cls, image: dict[str, Any]) -> BuildImage:
        """From Glance v2's image document; list and object values are left out."""
        props = {k: str(v) for k, v in image.items()
                 if k not in _IMAGE_FIELDS and isinstance(v, str | int | float | bool)}  # fmt: skip
        return cls(
            id=str(image.get("id") or ""), name=str(image.get("name") or ""),
            disk_format=str(image.get("disk_format") or ""),
            container_format=str(image.get("container_format") or ""),
            min_disk=int(image.get("min_disk") or 0), min_ram=int(image.get("min_ram") or 0),
            size=int(image.get("size") or 0), properties=props,
        )  # fmt: skip


class NetworkMode(enum.StrEnum):
    """The ``networks`` of POST /servers: "auto" (also when absent), "none", or a list."""

    AUTO = "auto"
    NONE = "none"
    LISTED = "listed"


@dataclasses.dataclass
class NetworkRequest(SaphiraObject):
    """One entry of a listed ``networks``: a network (and an address), or the user's port."""

    VERSION = "1.0"

    network_id: str | None = None
    port_id: str | None = None
    fixed_ip: str | None = None
    tag: str | None = None

    @classmethod
    def of(cls, entry: dict[str, Any]) -> NetworkRequest:
        """From the API body's entry ({"uuid", "fixed_ip", "port", "tag"})."""
        return cls(entry.get("uuid"), entry.get("port"), entry.get("fixed_ip"), entry.get("tag"))

    def as_body(self) -> dict[str, str]:
        """The entry in the API body's words (what the network allocation reads)."""
        pairs = (("uuid", self.network_id), ("port", self.port_id),
                 ("fixed_ip", self.fixed_ip), ("tag", self.tag))  # fmt: skip
        return {key: value for key, value in pairs if value is not None}


@dataclasses.dataclass
class BuildAttempt(SaphiraObject):
    """A host that was tried and why the build did not stay there."""

    VERSION = "1.0"

    host: str
    node: str
    reason: str
    traceback: str = ""  # for the action event; never shown to members


@dataclasses.dataclass
class BuildOrder(SaphiraObject):
    VERSION = "1.0"

    request_spec: RequestSpec
    image: BuildImage = dataclasses.field(default_factory=BuildImage)
    network_mode: NetworkMode = NetworkMode.AUTO
    networks: list[NetworkRequest] = dataclasses.field(default_factory=list)
    admin_password: str | None = None
    # The scheduler's answer: the host being tried first, then the alternates left.
    host_list: list[Selection] = dataclasses.field(default_factory=list)
    attempts: list[BuildAttempt] = dataclasses.field(default_factory=list)

    def requested_networks(self) -> str | list[dict[str, str]]:
        """ "auto", "none", or the listed entries as the API body said them."""
        if self.network_mode is NetworkMode.LISTED:
            return [entry.as_body() for entry in self.networks]
        return str(self.network_mode)
