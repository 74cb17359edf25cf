"""Security group rules: Neutron's validation, and duplicates refused by the database.

A rule's fingerprint is its match in one normal form (protocol numbers as
names where Neutron knows them, a /0 prefix as no prefix), unique per group,
so the rule that would duplicate another is refused by the unique key even
when both are created at the same moment.
"""

from __future__ import annotations

import ipaddress
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.network.models_ext import SecurityGroup, SecurityGroupRule
from saphira.db.transactions import inserted
from saphira.netsvc import access, errors, quotas
from saphira.netsvc.caller import Caller, target
from saphira.netsvc.settings import Settings
from saphira.netsvc.stamps import created, new_id
from saphira.netsvc.validation import bad_attr

PROTOCOLS = {
    "ah": 51, "dccp": 33, "egp": 8, "esp": 50, "gre": 47, "hopopt": 0, "icmp": 1, "igmp": 2,
    "ip": 0, "ipip": 4, "ipv6-encap": 41, "ipv6-frag": 44, "ipv6-icmp": 58, "icmpv6": 58,
    "ipv6-nonxt": 59, "ipv6-opts": 60, "ipv6-route": 43, "ospf": 89, "pgm": 113, "rsvp": 46,
    "sctp": 132, "tcp": 6, "udp": 17, "udplite": 136, "vrrp": 112,
}  # fmt: skip
PORT_PROTOCOLS = {6, 17, 33, 132, 136}
ICMP_PROTOCOLS = {1, 58}
IPV6_ONLY = {43, 44, 58, 59, 60}
DIRECTIONS = ("ingress", "egress")


def _protocol(value: Any) -> tuple[str | None, int | None]:
    """The protocol as stored (a lower-case name or a number as text) and its number."""
    if value is None or str(value).lower() == "any":
        return None, None
    text = str(value).lower()
    if text in PROTOCOLS:
        return text, PROTOCOLS[text]
    if text.isdigit() and 0 <= int(text) <= 255:
        return str(int(text)), int(text)
    raise errors.SecurityGroupRuleInvalidProtocol(protocol=value, values=sorted(PROTOCOLS))


def _port(value: Any) -> int | None:
    if value is None:
        return None
    try:
        number = int(str(value))
    except ValueError:
        raise errors.SecurityGroupInvalidPortValue(port=value) from None
    if not 0 <= number <= 65535:
        raise errors.SecurityGroupInvalidPortValue(port=value)
    return number


def _check_ports(number: int | None, low: int | None, high: int | None) -> None:
    if low is None and high is None:
        return
    if number is None:
        raise errors.SecurityGroupProtocolRequiredWithPorts()
    if number in PORT_PROTOCOLS:
        if low == 0 or high == 0:
            raise errors.SecurityGroupInvalidPortValue(port=0)
        if low is None or high is None or low > high:
            raise errors.SecurityGroupInvalidPortRange()
    elif number in ICMP_PROTOCOLS:
        for field, attr, value in (
            ("type", "port_range_min", low),
            ("code", "port_range_max", high),
        ):
            if value is not None and value > 255:
                raise errors.SecurityGroupInvalidIcmpValue(field=field, attr=attr, value=value)
        if low is None:
            raise errors.SecurityGroupMissingIcmpType(value=high)
    else:
        raise errors.SecurityGroupInvalidProtocolForPortRange(protocol=number)


def _ethertype(value: Any) -> str:
    for known in ("IPv4", "IPv6"):
        if str(value).lower() == known.lower():
            return known
    raise bad_attr("ethertype", f"'{value}' is not in ['IPv4', 'IPv6']")


def _prefix(value: Any, ethertype: str) -> str | None:
    if not value:
        return None
    try:
        net = ipaddress.ip_network(str(value), strict=False)
    except ValueError:
        raise errors.InvalidCIDR(input=value) from None
    if f"IPv{net.version}" != ethertype:
        raise errors.SecurityGroupRuleParameterConflict(ethertype=ethertype, cidr=value)
    return str(value)


def _fingerprint(rule: SecurityGroupRule) -> str:
    protocol = rule.protocol
    if protocol is not None and protocol.isdigit():
        protocol = next((n for n, v in PROTOCOLS.items() if str(v) == protocol), protocol)
    prefix = ""
    if rule.remote_ip_prefix:
        net = ipaddress.ip_network(rule.remote_ip_prefix, strict=False)
        prefix = "" if net.prefixlen == 0 else str(net)
    parts = (rule.direction, rule.ethertype, protocol, rule.port_range_min, rule.port_range_max,
             prefix, rule.remote_group_id)  # fmt: skip
    return "|".join("" if part is None else str(part) for part in parts)


def build(group: SecurityGroup, attrs: dict[str, Any]) -> SecurityGroupRule:
    """A validated rule of ``group``; nothing is written."""
    direction = attrs.get("direction")
    if direction not in DIRECTIONS:
        raise bad_attr("direction", f"'{direction}' is not in {list(DIRECTIONS)}")
    ethertype = _ethertype(attrs.get("ethertype") or "IPv4")
    protocol, number = _protocol(attrs.get("protocol"))
    if number in IPV6_ONLY and ethertype == "IPv4":
        raise errors.SecurityGroupEthertypeConflictWithProtocol(
            ethertype=ethertype, protocol=protocol
        )
    low, high = _port(attrs.get("port_range_min")), _port(attrs.get("port_range_max"))
    _check_ports(number, low, high)
    if attrs.get("remote_ip_prefix") and attrs.get("remote_group_id"):
        raise errors.SecurityGroupRemoteGroupAndRemoteIpPrefix()
    rule = SecurityGroupRule(
        id=new_id(), project_id=group.project_id, security_group_id=group.id,
        remote_group_id=attrs.get("remote_group_id"), direction=direction, ethertype=ethertype,
        protocol=protocol, port_range_min=low, port_range_max=high,
        remote_ip_prefix=_prefix(attrs.get("remote_ip_prefix"), ethertype),
    )  # fmt: skip
    rule.fingerprint = _fingerprint(rule)
    created(rule, attrs.get("description") or "")
    return rule


def create(
    session: Session, caller: Caller, settings: Settings, attrs: dict[str, Any]
) -> SecurityGroupRule:
    group = access.security_group(session, caller, str(attrs.get("security_group_id")))
    caller.authorize("create_security_group_rule", target(group.project_id))
    remote = attrs.get("remote_group_id")
    if remote:
        access.security_group(session, caller, str(remote))
    rule = build(group, attrs)
    quotas.check(session, settings, group.project_id, "security_group_rule")
    if not inserted(session, rule):
        existing = session.scalar(
            sa.select(SecurityGroupRule.id).where(
                SecurityGroupRule.security_group_id == group.id,
                SecurityGroupRule.fingerprint == rule.fingerprint,
            )
        )
        raise errors.SecurityGroupRuleExists(id=existing)
    return rule


def delete(session: Session, caller: Caller, rule_id: str) -> None:
    rule = access.rule(session, caller, rule_id)
    caller.authorize("delete_security_group_rule", target(rule.project_id))
    session.delete(rule)
