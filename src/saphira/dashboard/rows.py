"""What a page shows of a server: one typed row, built from openstacksdk's Server."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from openstack.compute.v2.server import Server

from saphira.dashboard.actions import Offer, offered
from saphira.dashboard.progress import Step, step_of
from saphira.domain.states import PowerState


@dataclass(frozen=True)
class Address:
    network: str
    ip: str
    kind: str  # "fixed" or "floating"


@dataclass(frozen=True)
class ServerRow:
    id: str
    name: str
    image_id: str
    image_name: str
    flavor: str
    addresses: tuple[Address, ...]
    status: str
    vm_state: str
    task_state: str | None
    power_state: str
    fault: str
    updated: str
    offers: tuple[Offer, ...]

    @property
    def deleted(self) -> bool:
        return self.status == "DELETED"

    @property
    def busy(self) -> bool:
        return self.task_state is not None or self.status == "BUILD"

    @property
    def step(self) -> Step | None:
        """Where its long action is (its task_state among the action's steps)."""
        return step_of(self.task_state)


def power_label(value: object) -> str:
    try:
        return PowerState(int(str(value))).label
    except ValueError:
        return "unknown"


def addresses(raw: Mapping[str, Any] | None) -> tuple[Address, ...]:
    return tuple(
        Address(str(network), str(entry.get("addr", "")), str(entry.get("OS-EXT-IPS:type", "")))
        for network, entries in sorted((raw or {}).items())
        for entry in entries or ()
    )


def _image_id(server: Server) -> str:
    image = server.image
    return str(image.id) if image is not None and image.id else ""


def _flavor(server: Server) -> str:
    flavor = server.flavor
    if flavor is None:
        return ""
    return str(flavor.original_name or flavor.name or flavor.id or "")


def _fault(server: Server) -> str:
    fault = server.fault
    if not isinstance(fault, Mapping):
        return ""
    return " ".join(str(fault.get("message", "")).split())


def row(server: Server, image_names: Mapping[str, str]) -> ServerRow:
    image_id = _image_id(server)
    task_state = server.task_state or None
    return ServerRow(
        id=str(server.id),
        name=str(server.name or ""),
        image_id=image_id,
        image_name=image_names.get(image_id, image_id or "(none: booted from a volume)"),
        flavor=_flavor(server),
        addresses=addresses(server.addresses),
        status=str(server.status or ""),
        vm_state=str(server.vm_state or ""),
        task_state=task_state,
        power_state=power_label(server.power_state),
        fault=_fault(server),
        updated=str(server.updated_at or ""),
        offers=offered(
            server.vm_state, task_state,
            launched=bool(server.launched_at), locked=bool(server.is_locked),
        ),
    )  # fmt: skip
