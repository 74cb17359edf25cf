"""``saphira verify cloud``: every compute service, hypervisor and network agent, up or
down, with the fix for each one down."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from saphira.verify.facts import Agent, ComputeService, Hypervisor
from saphira.verify.fixes import DOWN_FIXES


@dataclass(frozen=True)
class Health:
    kind: str  # service | hypervisor | agent
    name: str
    host: str
    up: bool
    seen: str

    @property
    def fix(self) -> str | None:
        return None if self.up else DOWN_FIXES[self.kind]


def service(found: ComputeService) -> Health:
    up = found.state == "up" and found.status == "enabled"
    return Health("service", found.binary, found.host, up, f"{found.state}, {found.status}")


def hypervisor(found: Hypervisor) -> Health:
    up = found.state == "up" and found.status == "enabled"
    return Health("hypervisor", found.hostname, found.host, up, f"{found.state}, {found.status}")


def agent(found: Agent) -> Health:
    up = found.alive and found.admin_state_up
    seen = ("alive" if found.alive else "dead") + ("" if found.admin_state_up else ", admin down")
    if found.bridge_mappings:
        seen += f", maps {dict(found.bridge_mappings)}"
    return Health("agent", found.agent_type, found.host, up, seen)


def survey(
    services: Sequence[ComputeService], hypervisors: Sequence[Hypervisor], agents: Sequence[Agent]
) -> list[Health]:
    return [*map(service, services), *map(hypervisor, hypervisors), *map(agent, agents)]
