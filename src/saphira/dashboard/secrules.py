"""Security group rules as the pages show them, the rule form's choices, and exposure.

A rule's remote is a CIDR, another group, or neither; as in Neutron (and as
Horizon shows it), neither means every address of the rule's ether type, so
a rule is open to the world when its prefix has length 0 or it has neither.
Such an ingress rule carries ``exposure``: one sentence saying what anyone
can reach. Egress rules let the instances reach out and expose nothing; the
default group's two egress rules are shown as open, without a warning, and
its two ingress rules admit only the group's own members.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

# Well-known ports, so a warning names the service it opens.
SERVICES = {22: "SSH", 53: "DNS", 80: "HTTP", 443: "HTTPS", 3306: "MySQL", 3389: "RDP"}
ANY = {"IPv4": "0.0.0.0/0", "IPv6": "::/0"}


@dataclass(frozen=True)
class RuleSpec:
    """What a rule allows; None for a field the rule leaves open."""

    direction: str  # "ingress" or "egress"
    ethertype: str  # "IPv4" or "IPv6"
    protocol: str | None
    port_min: int | None
    port_max: int | None
    remote_prefix: str | None
    remote_group_id: str | None

    @property
    def open_to_all(self) -> bool:
        if self.remote_group_id:
            return False
        if not self.remote_prefix:
            return True
        return ipaddress.ip_network(self.remote_prefix, strict=False).prefixlen == 0

    @property
    def remote_cidr(self) -> str:
        """The CIDR it admits ("" for a remote group); Neutron's null shown as 0.0.0.0/0."""
        if self.remote_group_id:
            return ""
        return self.remote_prefix or ANY.get(self.ethertype, "0.0.0.0/0")

    @property
    def ports(self) -> str:
        return ports_text(self.protocol, self.port_min, self.port_max)

    @property
    def exposure(self) -> str:
        """The warning for an ingress rule open to every address; "" otherwise."""
        if self.direction != "ingress" or not self.open_to_all:
            return ""
        what = reached(self.protocol, self.port_min, self.port_max)
        return (
            f"Open to the whole internet ({self.remote_cidr}): {what} of every instance "
            f"in this group can be reached from any {self.ethertype} address."
        )


def ports_text(protocol: str | None, low: int | None, high: int | None) -> str:
    """The rule's ports as a table cell: "22", "8000-8080", "any"; ICMP type/code."""
    if protocol in ("icmp", "ipv6-icmp", "1", "58"):
        if low is None:
            return "any type"
        return f"type {low}" + (f" code {high}" if high is not None else "")
    if low is None:
        return "any"
    return str(low) if high in (None, low) else f"{low}-{high}"


def reached(protocol: str | None, low: int | None, high: int | None) -> str:
    """What a rule lets through, in words: "SSH (TCP port 22)", "all traffic"."""
    if protocol is None:
        return "all traffic (every protocol and port)"
    name = protocol.upper()
    if protocol in ("icmp", "ipv6-icmp"):
        if low is None:
            return "ICMP (ping and other ICMP messages)"
        return f"ICMP {ports_text(protocol, low, high)}"
    if protocol not in ("tcp", "udp"):
        return f"protocol {protocol}"
    if low is None or (low, high) == (1, 65535):
        return f"every {name} port"
    if high in (None, low):
        service = SERVICES.get(low)
        return f"{service} ({name} port {low})" if service else f"{name} port {low}"
    return f"{name} ports {low}-{high}"


@dataclass(frozen=True)
class Preset:
    """One choice of the rule form: a protocol and its ports, or a custom one."""

    key: str
    label: str
    protocol: str | None
    low: int | None = None
    high: int | None = None
    custom: bool = False  # the form's port (or ICMP type/code) fields apply

    @property
    def fields(self) -> str:
        """Which of the form's optional fields this choice uses: "ports", "icmp" or ""."""
        if not self.custom:
            return ""
        if self.protocol is None:
            return "protocol"
        return "icmp" if self.protocol == "icmp" else "ports"

    @property
    def reach(self) -> str:
        """What the rule lets through, for the form's warning before it is sent."""
        if self.fields == "protocol":
            return "the protocol given"
        if self.fields == "icmp":
            return "the ICMP messages given"
        if self.custom:
            return f"the {str(self.protocol).upper()} ports given"
        return reached(self.protocol, self.low, self.high)


PRESETS: tuple[Preset, ...] = (
    Preset("ssh", "SSH (TCP 22)", "tcp", 22, 22),
    Preset("http", "HTTP (TCP 80)", "tcp", 80, 80),
    Preset("https", "HTTPS (TCP 443)", "tcp", 443, 443),
    Preset("icmp", "All ICMP (ping)", "icmp"),
    Preset("dns", "DNS (UDP 53)", "udp", 53, 53),
    Preset("rdp", "RDP (TCP 3389)", "tcp", 3389, 3389),
    Preset("mysql", "MySQL (TCP 3306)", "tcp", 3306, 3306),
    Preset("all_tcp", "All TCP ports", "tcp", 1, 65535),
    Preset("all_udp", "All UDP ports", "udp", 1, 65535),
    Preset("custom_tcp", "Custom TCP port or range", "tcp", custom=True),
    Preset("custom_udp", "Custom UDP port or range", "udp", custom=True),
    Preset("custom_icmp", "Custom ICMP type and code", "icmp", custom=True),
    Preset("other", "Other protocol (by name or IP protocol number)", None, custom=True),
    Preset("any", "Any protocol, any port", None),
)
BY_KEY = {preset.key: preset for preset in PRESETS}
