"""Security groups of the network service in Nova's shapes, and the groups
each server's ports carry (nova.network.security_group_api).

Nova shows only ingress rules, fills a protocol's open port range in (1-65535
for TCP and UDP, -1 otherwise), names a remote group by name and project, and
leaves out a rule whose remote group has gone. Servers get their groups from
their ports, one entry per port and group, as Nova lists them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from saphira.api.compute.security_group_rules import ports
from saphira.clients.network import NetworkClient

Group = dict[str, Any]
Ref = dict[str, str]  # {"name", "tenant_id"} of a group a rule points at
CHUNK = 150  # ids per query, as Nova (they go into the URL)


def rule_view(rule: dict[str, Any], remote: dict[str, Ref]) -> dict[str, Any] | None:
    protocol = rule.get("protocol")
    low, high = ports(rule)
    view: dict[str, Any] = {
        "id": rule["id"], "parent_group_id": rule["security_group_id"], "ip_protocol": protocol,
        "from_port": low, "to_port": high, "group": {}, "ip_range": {},
    }  # fmt: skip
    remote_id = rule.get("remote_group_id")
    if remote_id:
        if remote_id not in remote:
            return None
        view["group"] = remote[remote_id]
    else:
        view["ip_range"] = {"cidr": rule.get("remote_ip_prefix") or "0.0.0.0/0"}
    return view


def group_view(group: Group, remote: dict[str, Ref]) -> dict[str, Any]:
    ingress = [r for r in group.get("security_group_rules") or [] if r["direction"] == "ingress"]
    rules = [rule_view(rule, remote) for rule in ingress]
    return {
        "id": group["id"], "name": group["name"], "description": group.get("description") or "",
        "tenant_id": _project(group), "rules": [rule for rule in rules if rule is not None],
    }  # fmt: skip


def group_views(client: NetworkClient, groups: list[Group]) -> list[dict[str, Any]]:
    """Sorted by project and name, as Nova sorts them."""
    remote = remote_groups(client, groups)
    views = [group_view(group, remote) for group in groups]
    return sorted(views, key=lambda view: (view["tenant_id"], view["name"]))


def remote_groups(client: NetworkClient, groups: list[Group]) -> dict[str, Ref]:
    """Name and project of every group the rules of ``groups`` point at, asked
    for at once; a group the caller cannot see is missing."""
    known = {group["id"]: ref(group) for group in groups}
    rules = [rule for group in groups for rule in group.get("security_group_rules") or []]
    wanted = {rule["remote_group_id"] for rule in rules if rule.get("remote_group_id")} - set(known)
    for ids in _chunks(sorted(wanted)):
        known.update({group["id"]: ref(group) for group in client.list_security_groups(id=ids)})
    return known


def ref(group: Group) -> Ref:
    return {"name": group["name"], "tenant_id": _project(group)}


def server_groups(
    client: NetworkClient, server_ids: list[str], *, detailed: bool
) -> dict[str, list[Group]]:
    """Server -> the groups of its ports (all their fields, or only id and name)."""
    ports = []
    for ids in _chunks(server_ids):
        ports += client.list_ports(device_id=ids, fields=["device_id", "security_groups"])
    group_ids = sorted({group for port in ports for group in port.get("security_groups") or []})
    found: dict[str, Group] = {}
    for ids in _chunks(group_ids):
        fields = {} if detailed else {"fields": ["id", "name"]}
        found.update({g["id"]: g for g in client.list_security_groups(id=ids, **fields)})
    by_server: dict[str, list[Group]] = {}
    for port in ports:
        for group_id in port.get("security_groups") or []:
            if group_id in found:
                by_server.setdefault(port["device_id"], []).append(found[group_id])
    return by_server


def _project(group: Group) -> str:
    return str(group.get("tenant_id") or group.get("project_id") or "")


def _chunks(ids: list[str]) -> Iterator[list[str]]:
    for start in range(0, len(ids), CHUNK):
        yield ids[start : start + CHUNK]
