"""A port's MAC, security groups, address pairs, and the attribute rules they need.

Attributes a member may not set on someone else's network (a chosen address
or MAC, port security, address pairs, a ``network:*`` owner) and the
admin-only binding attributes each have their own rule, checked only when
the request sets them, as Neutron checks them.
"""

from __future__ import annotations

import ipaddress
import random
import re
from typing import Any

from sqlalchemy.orm import Session

from saphira.db.network.models import AllowedAddressPair, Port, PortSecurityGroup
from saphira.db.network.models_ext import SecurityGroup
from saphira.netsvc import errors, secgroups
from saphira.netsvc.caller import Caller
from saphira.netsvc.validation import bad_attr

MAC = re.compile(r"^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$")
MAX_ADDRESS_PAIRS = 10


def random_mac(base_mac: str) -> str:
    prefix = base_mac.lower().split(":")[:3]
    return ":".join(prefix + [f"{random.getrandbits(8):02x}" for _ in range(3)])


def checked_mac(value: Any, attr: str = "mac_address") -> str:
    text = str(value).lower().replace("-", ":")
    if not MAC.match(text) or text == "00:00:00:00:00:00" or int(text[:2], 16) & 1:
        raise bad_attr(attr, f"'{value}' is not a valid MAC address")
    return text


def _explicit(attrs: dict[str, Any]) -> list[str]:
    """The sub-rules this request needs, by Neutron's names."""
    needs: list[str] = [k for k in ("mac_address", "port_security_enabled") if k in attrs]
    if any(isinstance(i, dict) and "ip_address" in i for i in attrs.get("fixed_ips") or []):
        needs.append("fixed_ips:ip_address")
    if attrs.get("allowed_address_pairs"):
        needs.append("allowed_address_pairs")
    if str(attrs.get("device_owner") or "").startswith("network:"):
        needs.append("device_owner")
    needs += [key for key in ("binding:host_id", "binding:profile") if attrs.get(key)]
    return needs


def authorize(caller: Caller, action: str, attrs: dict[str, Any], where: dict[str, Any]) -> None:
    for sub in _explicit(attrs):
        caller.authorize(f"{action}:{sub}", where)


def group_ids(
    session: Session,
    caller: Caller,
    project: str,
    asked: list[str] | None,
    security: bool,
    device_owner: str,
) -> list[str]:
    """The port's groups: those asked (each must be the project's), else the default group."""
    if asked is None:
        if not security or device_owner.startswith("network:"):
            return []
        return [secgroups.ensure_default(session, project)]
    if asked and not security:
        raise errors.PortSecurityAndIPRequiredForSecurityGroups()
    for group_id in asked:
        group = session.get(SecurityGroup, group_id)
        if group is None or (group.project_id != project and not caller.is_admin):
            raise errors.SecurityGroupNotFound(id=group_id)
    return list(dict.fromkeys(asked))


def group_rows(ids: list[str]) -> list[PortSecurityGroup]:
    return [PortSecurityGroup(security_group_id=gid, position=i) for i, gid in enumerate(ids)]


def pair_rows(port: Port, pairs: list[Any]) -> list[AllowedAddressPair]:
    if len(pairs) > MAX_ADDRESS_PAIRS:
        raise bad_attr(
            "allowed_address_pairs",
            f"The number of allowed address pair exceeds the maximum {MAX_ADDRESS_PAIRS}",
        )
    rows: list[AllowedAddressPair] = []
    for pair in pairs:
        if not isinstance(pair, dict) or "ip_address" not in pair:
            raise bad_attr("allowed_address_pairs", "AllowedAddressPair must contain ip_address")
        try:
            ip = str(ipaddress.ip_network(str(pair["ip_address"]), strict=False))
        except ValueError:
            raise bad_attr(
                "allowed_address_pairs", f"'{pair['ip_address']}' is not a valid IP address"
            ) from None
        ip = ip.split("/")[0] if ip.endswith(("/32", "/128")) else ip
        mac = checked_mac(pair.get("mac_address") or port.mac_address, "allowed_address_pairs")
        if any((r.mac_address, r.ip_address) == (mac, ip) for r in rows):
            raise bad_attr(
                "allowed_address_pairs",
                f"Request contains duplicate address pair: mac_address {mac} ip_address {ip}",
            )
        rows.append(AllowedAddressPair(position=len(rows), mac_address=mac, ip_address=ip))
    return rows
