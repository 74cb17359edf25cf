"""Layer 7: an ingress rule of the port's security groups admits the port asked about."""

from __future__ import annotations

from collections.abc import Sequence

from saphira.verify.facts import Port, Rule
from saphira.verify.model import Check, Wanted

PROTOCOL_NUMBERS = {"tcp": "6", "udp": "17"}


def admits(rule: Rule, wanted: Wanted, ethertype: str) -> bool:
    if rule.direction != "ingress" or rule.ethertype != ethertype:
        return False
    if rule.protocol not in (None, "any", wanted.protocol, PROTOCOL_NUMBERS[wanted.protocol]):
        return False
    low = rule.port_min if rule.port_min is not None else 1
    high = rule.port_max if rule.port_max is not None else 65535
    return low <= wanted.port <= high


def check(port: Port, rules: Sequence[Rule], wanted: Wanted) -> Check:
    if not port.port_security:
        return Check(True, f"port {port.id} has port security disabled: nothing filtered")
    ethertype = "IPv4" if port.ipv4 else "IPv6"
    matching = [r for r in rules if admits(r, wanted, ethertype)]
    if not matching:
        groups = ", ".join(port.security_group_ids) or "none"
        return Check(False, f"no ingress {ethertype} rule admits {wanted} in the port's "
                     f"security groups ({groups}): {len(rules)} rules")  # fmt: skip
    return Check(True, f"{wanted} admitted from {matching[0].remote}")
