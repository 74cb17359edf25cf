"""The admin pages' compute and network calls: flavors, compute services, network agents.

openstacksdk with the admin's own token, as ``cloud.py`` for the project pages;
the APIs' policies still decide (a member's token is refused by them as well
as by the dashboard's gate). Results are typed values, never raw dicts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from openstack import utils
from openstack.compute.v2.flavor import Flavor
from openstack.compute.v2.service import Service
from openstack.network.v2.agent import Agent

from saphira.dashboard.cloud import Conn
from saphira.dashboard.errors import PageError


@dataclass(frozen=True)
class FlavorRow:
    id: str
    name: str
    vcpus: int
    ram: int  # MiB
    disk: int  # GiB
    ephemeral: int  # GiB
    swap: int  # MiB
    public: bool


@dataclass(frozen=True)
class FlavorRequest:
    name: str
    vcpus: int
    ram: int
    disk: int
    ephemeral: int
    swap: int
    public: bool


@dataclass(frozen=True)
class ServiceRow:
    id: str
    binary: str
    host: str
    zone: str
    status: str  # "enabled" or "disabled"
    state: str  # "up" or "down"
    updated: str
    disabled_reason: str
    forced_down: bool | None  # None: the cloud serves no forced_down (before 2.11)

    @property
    def enabled(self) -> bool:
        return self.status == "enabled"

    @property
    def changeable(self) -> bool:
        """Nova updates only its compute services (2.53: a 400 for the others)."""
        return self.binary.endswith("-compute")


@dataclass(frozen=True)
class BridgeMapping:
    physnet: str
    bridge: str

    def __str__(self) -> str:
        return f"{self.physnet}:{self.bridge}"


@dataclass(frozen=True)
class AgentRow:
    id: str
    agent_type: str
    binary: str
    host: str
    zone: str
    alive: bool
    admin_up: bool
    bridge_mappings: tuple[BridgeMapping, ...]
    heartbeat: str
    started: str
    description: str
    configurations: tuple[tuple[str, str], ...]  # every key, its value in words


def _int(value: object) -> int:
    try:
        return int(str(value or 0))
    except ValueError:
        return 0


def flavor_row(flavor: Flavor) -> FlavorRow:
    return FlavorRow(
        str(flavor.id), str(flavor.name or flavor.id), _int(flavor.vcpus), _int(flavor.ram),
        _int(flavor.disk), _int(flavor.ephemeral), _int(flavor.swap),
        flavor.is_public is not False,
    )  # fmt: skip


def flavors(conn: Conn) -> list[FlavorRow]:
    """Every flavor, public and private (Nova's ``is_public=none``, for an admin)."""
    found = conn.compute.flavors(details=True, is_public="none")
    return sorted((flavor_row(f) for f in found), key=lambda f: (f.ram, f.vcpus, f.name))


def flavor(conn: Conn, flavor_id: str) -> FlavorRow:
    return flavor_row(conn.compute.get_flavor(flavor_id))


def create_flavor(conn: Conn, request: FlavorRequest) -> str:
    made = conn.compute.create_flavor(
        name=request.name, vcpus=request.vcpus, ram=request.ram, disk=request.disk,
        ephemeral=request.ephemeral, swap=request.swap, is_public=request.public,
    )  # fmt: skip
    return str(made.id)


def delete_flavor(conn: Conn, flavor_id: str) -> None:
    conn.compute.delete_flavor(flavor_id, ignore_missing=False)


def flavor_projects(conn: Conn, flavor_id: str) -> list[str]:
    """The ids of the projects a private flavor is shared with."""
    return sorted(str(a.get("tenant_id", "")) for a in conn.compute.get_flavor_access(flavor_id))


def flavor_access(conn: Conn, flavor_id: str, project_id: str, *, grant: bool) -> None:
    if grant:
        conn.compute.flavor_add_tenant_access(flavor_id, project_id)
    else:
        conn.compute.flavor_remove_tenant_access(flavor_id, project_id)


def service_row(service: Service) -> ServiceRow:
    forced = service.is_forced_down
    return ServiceRow(
        str(service.id), str(service.binary or ""), str(service.host or ""),
        str(service.availability_zone or ""), str(service.status or ""),
        str(service.state or ""), str(service.updated_at or ""),
        str(service.disabled_reason or ""), None if forced is None else bool(forced),
    )  # fmt: skip


def services(conn: Conn) -> list[ServiceRow]:
    rows = (service_row(s) for s in conn.compute.services())
    return sorted(rows, key=lambda s: (s.host, s.binary))


def service_action(conn: Conn, service_id: str, action: str, reason: str = "") -> None:
    """``enable``, ``disable`` (with ``reason``), ``force-down`` or ``unforce``."""
    compute = conn.compute
    if not utils.supports_microversion(compute, "2.53"):
        raise PageError(409, "This cloud's compute API is too old (before 2.53) to change a "
                        "service from the dashboard.")  # fmt: skip
    if action == "enable":
        compute.update_service(service_id, status="enabled")
    elif action == "disable":
        compute.update_service(service_id, status="disabled", disabled_reason=reason or None)
    elif action in ("force-down", "unforce"):
        compute.update_service(service_id, forced_down=action == "force-down")
    else:
        raise ValueError(action)


def mappings(configurations: Mapping[str, Any] | None) -> tuple[BridgeMapping, ...]:
    """The agent's bridge mappings (``physnet1:br-physnet1``), as Neutron's L2 agents
    report them: a dict of physical network to bridge (or interface)."""
    raw = (configurations or {}).get("bridge_mappings") or (configurations or {}).get(
        "interface_mappings"
    )
    if not isinstance(raw, Mapping):
        return ()
    return tuple(BridgeMapping(str(k), str(v)) for k, v in sorted(raw.items()))


def _words(value: object) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {_words(v)}" for k, v in sorted(value.items()))
    if isinstance(value, list | tuple):
        return ", ".join(_words(v) for v in value)
    return str(value)


def agent_row(agent: Agent) -> AgentRow:
    config = agent.configuration if isinstance(agent.configuration, Mapping) else {}
    return AgentRow(
        str(agent.id), str(agent.agent_type or ""), str(agent.binary or ""),
        str(agent.host or ""), str(agent.availability_zone or ""), bool(agent.is_alive),
        bool(agent.is_admin_state_up), mappings(config), str(agent.last_heartbeat_at or ""),
        str(agent.started_at or ""), str(agent.description or ""),
        tuple((str(k), _words(v)) for k, v in sorted(config.items())),
    )  # fmt: skip


def agents(conn: Conn) -> list[AgentRow]:
    rows = (agent_row(a) for a in conn.network.agents())
    return sorted(rows, key=lambda a: (a.host, a.agent_type))


def agent(conn: Conn, agent_id: str) -> AgentRow:
    return agent_row(conn.network.get_agent(agent_id))
