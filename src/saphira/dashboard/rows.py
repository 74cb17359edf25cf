"""What a page shows of a server: one typed row, read from the compute API's JSON.

The rows are read from the server's body as the API sends it (``cloud.servers``
asks at ``cloud.SERVER_VERSION``), not through openstacksdk's ``Server``
resource: building that resource costs about 2 ms of CPU a server, and its
attribute reads about 1 ms more, which made a 1,000-server Instances page
spend 3 s in the dashboard; the JSON is the same facts at a tenth of that.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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


def image_of(body: Mapping[str, Any]) -> str:
    image = body.get("image")  # "" for a server booted from a volume
    return str(image.get("id") or "") if isinstance(image, Mapping) else ""


def _flavor(body: Mapping[str, Any]) -> str:
    flavor = body.get("flavor")
    if not isinstance(flavor, Mapping):
        return ""
    return str(flavor.get("original_name") or flavor.get("name") or flavor.get("id") or "")


def _fault(body: Mapping[str, Any]) -> str:
    fault = body.get("fault")
    if not isinstance(fault, Mapping):
        return ""
    return " ".join(str(fault.get("message", "")).split())


def row(body: Mapping[str, Any], image_names: Mapping[str, str]) -> ServerRow:
    """The row of one server's JSON body (``{"server": body}``, or a list's item)."""
    image_id = image_of(body)
    vm_state = body.get("OS-EXT-STS:vm_state")
    task_state = body.get("OS-EXT-STS:task_state") or None
    return ServerRow(
        id=str(body["id"]),
        name=str(body.get("name") or ""),
        image_id=image_id,
        image_name=image_names.get(image_id, image_id or "(none: booted from a volume)"),
        flavor=_flavor(body),
        addresses=addresses(body.get("addresses")),
        status=str(body.get("status") or ""),
        vm_state=str(vm_state or ""),
        task_state=task_state,
        power_state=power_label(body.get("OS-EXT-STS:power_state")),
        fault=_fault(body),
        updated=str(body.get("updated") or ""),
        offers=offered(
            vm_state, task_state,
            launched=bool(body.get("OS-SRV-USG:launched_at")), locked=bool(body.get("locked")),
        ),
    )  # fmt: skip
