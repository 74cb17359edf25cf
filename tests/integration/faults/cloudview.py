"""What a fault test reads of a process deployment through its public APIs:
the servers, their faults, placement's consumers, the services' states."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.functional.clients import sdk
from tests.integration.deploy.deployment import Deployment

PLACEMENT = {"OpenStack-API-Version": "placement 1.28"}


@dataclass(frozen=True)
class Seen:
    id: str
    name: str
    status: str
    task_state: str | None
    fault: str

    @property
    def settled(self) -> bool:
        """ACTIVE, or ERROR with a fault, and no task in flight."""
        ended = self.status == "ACTIVE" or (self.status == "ERROR" and bool(self.fault))
        return ended and self.task_state is None


class CloudView:
    def __init__(self, deploy: Deployment) -> None:
        self.deploy = deploy
        self._conn: Any = None

    @property
    def conn(self) -> Any:
        """openstacksdk as admin; a new session after a failed call (the API may have died)."""
        if self._conn is None:
            self._conn = sdk(self.deploy.state / "clouds.yaml", "admin")
        return self._conn

    def forget(self) -> None:
        self._conn = None

    def servers(self) -> list[Seen]:
        found = self.conn.compute.servers(details=True)
        return [
            Seen(s.id, s.name, s.status, s.task_state, str((s.fault or {}).get("message", "")))
            for s in found
        ]

    def consumers(self) -> set[str]:
        """Every placement consumer holding an allocation on any provider."""
        placement = self.conn.placement
        providers = placement.get("/resource_providers", headers=PLACEMENT).json()
        held: set[str] = set()
        for provider in providers["resource_providers"]:
            url = f"/resource_providers/{provider['uuid']}/allocations"
            held |= set(placement.get(url, headers=PLACEMENT).json()["allocations"])
        return held

    def services_down(self) -> list[str]:
        return [f"{s.binary}@{s.host}" for s in self.conn.compute.services() if s.state != "up"]
