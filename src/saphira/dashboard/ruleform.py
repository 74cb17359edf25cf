"""The Add Rule form read into a rule, or what is wrong with it in plain words.

As Horizon's form: a common rule (SSH, HTTP, ICMP...) or a custom protocol
with its port or range; the remote is a CIDR (0.0.0.0/0 unless changed, its
ether type follows the CIDR) or a security group (the ether type chosen).
The API still checks everything; this only catches what can be said at once.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping

from saphira.dashboard.secrules import BY_KEY, Preset, RuleSpec

DIRECTIONS = ("ingress", "egress")
ETHERTYPES = ("IPv4", "IPv6")


def parse(form: Mapping[str, str]) -> RuleSpec | str:
    """The rule the form asks for, or the first thing wrong with it."""
    preset = BY_KEY.get(form.get("preset", ""))
    if preset is None:
        return "Choose a rule."
    direction = form.get("direction", "ingress")
    if direction not in DIRECTIONS:
        return "Choose ingress or egress."
    ports = _ports(preset, form)
    if isinstance(ports, str):
        return ports
    protocol = _protocol(preset, form.get("protocol", ""))
    if protocol == "":
        return "Give the protocol: a name such as gre, or a number from 0 to 255."
    remote = _remote(form)
    if isinstance(remote, str):
        return remote
    ethertype, prefix, group = remote
    return RuleSpec(direction, ethertype, protocol, *ports, prefix, group)


def _protocol(preset: Preset, text: str) -> str | None:
    """The preset's protocol, or the one typed for "other" ("" when that is no protocol)."""
    if preset.fields != "protocol":
        return preset.protocol
    given = text.strip().lower()
    if given.isdigit():
        return given if int(given) <= 255 else ""
    return given if re.fullmatch(r"[a-z][a-z0-9-]*", given) else ""


def _ports(preset: Preset, form: Mapping[str, str]) -> tuple[int | None, int | None] | str:
    if preset.fields in ("", "protocol"):
        return preset.low, preset.high
    if preset.protocol == "icmp":
        return _icmp(form.get("icmp_type", "").strip(), form.get("icmp_code", "").strip())
    return port_range(form.get("ports", ""))


def port_range(text: str) -> tuple[int, int] | str:
    """ "22" or "8000-8080" (or "8000:8080") as (low, high), each 1 to 65535."""
    parts = text.strip().replace(":", "-").split("-")
    if len(parts) > 2 or not all(p.strip().isdigit() for p in parts):
        return "Give a port (22) or a range (8000-8080)."
    low, high = int(parts[0]), int(parts[-1])
    if not 1 <= low <= high <= 65535:
        return "Ports run from 1 to 65535, the first of a range no higher than the last."
    return low, high


def _icmp(kind: str, code: str) -> tuple[int | None, int | None] | str:
    if not kind:
        return "Leave the ICMP code empty when no type is given." if code else (None, None)
    if not kind.isdigit() or (code and not code.isdigit()):
        return "The ICMP type and code are numbers from 0 to 255."
    low, high = int(kind), int(code) if code else None
    if low > 255 or (high is not None and high > 255):
        return "The ICMP type and code are numbers from 0 to 255."
    return low, high


def _remote(form: Mapping[str, str]) -> tuple[str, str | None, str | None] | str:
    """(ether type, remote prefix, remote group) from the form."""
    if form.get("remote") == "group":
        group, ethertype = form.get("group", ""), form.get("ethertype", "IPv4")
        if not group:
            return "Choose the remote security group."
        if ethertype not in ETHERTYPES:
            return "Choose IPv4 or IPv6."
        return ethertype, None, group
    text = form.get("cidr", "").strip()
    try:
        net = ipaddress.ip_network(text, strict=False)
    except ValueError:
        return f"“{text}” is not a CIDR such as 192.0.2.0/24 or 0.0.0.0/0."
    return f"IPv{net.version}", str(net), None
