"""Security groups and their rules through openstacksdk, as typed values for the pages.

A group of another project is "not found", even for an administrator whose
token could read it: the project views show the project's own groups only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from openstack import connection

from saphira.dashboard.errors import PageError
from saphira.dashboard.secrules import RuleSpec

Conn = connection.Connection
NOT_HERE = "Not found in this project."
DEFAULT = "default"


@dataclass(frozen=True)
class RuleRow:
    id: str
    spec: RuleSpec
    remote_group_name: str  # "" when the remote is a CIDR

    @property
    def remote(self) -> str:
        return self.spec.remote_cidr or f"group {self.remote_group_name}"


@dataclass(frozen=True)
class GroupRow:
    id: str
    name: str
    description: str
    rules: tuple[RuleRow, ...]

    @property
    def is_default(self) -> bool:
        return self.name == DEFAULT

    @property
    def exposures(self) -> tuple[str, ...]:
        return tuple(r.spec.exposure for r in self.rules if r.spec.exposure)


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def rule_row(raw: Mapping[str, Any], names: Mapping[str, str]) -> RuleRow:
    """A rule from a group's ``security_group_rules`` entry (Neutron's field names)."""
    group = raw.get("remote_group_id") or None
    spec = RuleSpec(
        direction=str(raw.get("direction") or ""),
        ethertype=str(raw.get("ethertype") or "IPv4"),
        protocol=str(raw["protocol"]) if raw.get("protocol") else None,
        port_min=_int(raw.get("port_range_min")),
        port_max=_int(raw.get("port_range_max")),
        remote_prefix=raw.get("remote_ip_prefix") or None,
        remote_group_id=str(group) if group else None,
    )
    name = names.get(str(group), str(group)[:13]) if group else ""
    return RuleRow(str(raw.get("id") or ""), spec, name)


def _order(rule: RuleRow) -> tuple[str, str, str, int]:
    s = rule.spec
    return (s.direction, s.ethertype, s.protocol or "", s.port_min or 0)


def _row(group: Any, names: Mapping[str, str]) -> GroupRow:
    rules = sorted((rule_row(r, names) for r in group.security_group_rules or ()), key=_order)
    return GroupRow(str(group.id), str(group.name or ""), str(group.description or ""),
                    tuple(rules))  # fmt: skip


def groups(conn: Conn, project_id: str) -> list[GroupRow]:
    found = list(conn.network.security_groups(project_id=project_id))
    names = {str(g.id): str(g.name or g.id) for g in found}
    return sorted((_row(g, names) for g in found), key=lambda g: (not g.is_default, g.name))


def group(conn: Conn, project_id: str, group_id: str) -> GroupRow:
    """One group of the project with its rules: one listing of the project's groups,
    which also names the rules' remote groups and makes another project's a 404."""
    found = next((g for g in groups(conn, project_id) if g.id == group_id), None)
    if found is None:
        raise PageError(404, NOT_HERE)
    return found


def create_group(conn: Conn, name: str, description: str) -> str:
    return str(conn.network.create_security_group(name=name, description=description).id)


def delete_group(conn: Conn, group_id: str) -> None:
    """(The views find the group among the project's first.)"""
    conn.network.delete_security_group(group_id, ignore_missing=False)


def add_rule(conn: Conn, group_id: str, spec: RuleSpec) -> str:
    made = conn.network.create_security_group_rule(
        security_group_id=group_id, direction=spec.direction, ether_type=spec.ethertype,
        protocol=spec.protocol, port_range_min=spec.port_min, port_range_max=spec.port_max,
        remote_ip_prefix=spec.remote_prefix, remote_group_id=spec.remote_group_id,
    )  # fmt: skip
    return str(made.id)


def delete_rule(conn: Conn, rule_id: str) -> None:
    """(The views find the rule in a group of the project's first.)"""
    conn.network.delete_security_group_rule(rule_id, ignore_missing=False)
