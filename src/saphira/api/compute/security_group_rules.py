"""A rule as Nova's os-security-group-rules takes it, checked as Nova checks it,
and the network service's rule it becomes (nova.network.security_group_api).

Nova rules are ingress only: from a remote group (a protocol alone opens all
its ports) or from a CIDR (then protocol and ports are required). Neutron
writes an ICMP type and code, or a port range, as port_range_min/max; -1 means
"any" and is left out.
"""

from __future__ import annotations

import ipaddress
import urllib.parse
from typing import Any

from saphira.exception import BadRequest

Rule = dict[str, Any]  # Nova's: group_id or cidr, protocol, from_port, to_port
_KEYS = ("group_id", "cidr", "from_port", "to_port", "protocol")


def parse_cidr(cidr: Any) -> str:
    """'0.0.0.0/0' when none is given; a prefix length is required."""
    if not cidr:
        return "0.0.0.0/0"
    text = urllib.parse.unquote(str(cidr))
    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise BadRequest(f"{text} is not a valid IP network.") from None
    if "/" not in text or text.endswith("/"):
        raise BadRequest(f"{text} is not a valid IP network.")
    return text


def ingress_rule(body: dict[str, Any]) -> Rule:
    """Nova's rule from the request body (``group_id`` already checked)."""
    group_id = body.get("group_id")
    protocol, low, high = body.get("ip_protocol"), body.get("from_port"), body.get("to_port")
    values: Rule = {}
    if group_id:
        values["group_id"] = group_id
        upper = str(protocol).upper() if protocol else ""
        if low is None and high is None:
            low, high = {"ICMP": (-1, -1), "TCP": (1, 65535), "UDP": (1, 65535)}.get(
                upper, (None, None)
            )
    else:
        values["cidr"] = _check_prefix(parse_cidr(body.get("cidr")))
    if protocol and low is not None and high is not None:
        values.update(_protocol_and_ports(str(protocol), low, high))
    elif not group_id:
        raise BadRequest("Not enough parameters to build a valid rule.")
    return values


def _check_prefix(cidr: str) -> str:
    network, _, prefix = cidr.partition("/")
    if network not in ("0.0.0.0", "::") and prefix == "0":
        raise BadRequest(f"Bad prefix for network in cidr {cidr}")
    return cidr


def _protocol_and_ports(protocol: str, low: Any, high: Any) -> Rule:
    upper = protocol.upper()
    try:
        low, high = int(low), int(high)
    except (TypeError, ValueError):
        what = ("Type and Code must be integers for ICMP protocol type" if upper == "ICMP"
                else "To and From ports must be integers")  # fmt: skip
        raise BadRequest(f"Invalid input received: {what}") from None
    if upper not in ("TCP", "UDP", "ICMP"):
        raise BadRequest(f"Invalid IP protocol {protocol}.")
    problem = None
    if upper in ("TCP", "UDP") and low > high:
        problem = "Former value cannot be greater than the later"
    elif upper in ("TCP", "UDP") and (low < 1 or high > 65535):
        problem = f"Valid {upper} ports should be between 1-65535"
    elif upper == "ICMP" and not (-1 <= low <= 255 and -1 <= high <= 255):
        problem = "For ICMP, the type:code must be valid"
    if problem is not None:
        raise BadRequest(f"Invalid port range {low}:{high}. {problem}")
    return {"protocol": protocol.lower(), "from_port": low, "to_port": high}


def exists(existing: list[Rule], new: Rule) -> bool:
    """Nova's duplicate check, against the group's rules in Nova's form."""
    return any(all(rule.get(key) == new.get(key) for key in _KEYS) for rule in existing)


def ports(rule: dict[str, Any]) -> tuple[Any, Any]:
    """A network service rule's range as Nova shows it: a protocol without one
    is open (1-65535 for TCP and UDP, -1 for the rest)."""
    protocol = rule.get("protocol")
    low, high = rule.get("port_range_min"), rule.get("port_range_max")
    if protocol and low is None and high is None:
        return (1, 65535) if str(protocol).upper() in ("TCP", "UDP") else (-1, -1)
    return low, high


def nova_form(rule: dict[str, Any]) -> Rule:
    """A network service's ingress rule as Nova compares it."""
    low, high = ports(rule)
    cidr = parse_cidr(rule.get("remote_ip_prefix"))
    return {"group_id": rule.get("remote_group_id"), "cidr": cidr, "from_port": low,
            "to_port": high, "protocol": rule.get("protocol")}  # fmt: skip


def neutron_rule(new: Rule, parent_id: str) -> dict[str, Any]:
    """Self-referencing rules are IPv4 only, as Nova makes them."""
    cidr = new.get("cidr")
    version = ipaddress.ip_network(cidr, strict=False).version if cidr else 4
    attrs: dict[str, Any] = {
        "direction": "ingress", "protocol": new.get("protocol"),
        "ethertype": "IPv6" if version == 6 else "IPv4", "remote_ip_prefix": cidr,
        "security_group_id": parent_id, "remote_group_id": new.get("group_id"),
    }  # fmt: skip
    for key, field in (("from_port", "port_range_min"), ("to_port", "port_range_max")):
        if new.get(key) is not None and new[key] != -1:
            attrs[field] = new[key]
    return attrs
