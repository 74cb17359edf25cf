"""Layer 6: dnsmasq leased an address to each port with a DHCP subnet.

The DHCP agents report the MACs their dnsmasq servers have leased, per network, in
their ``configurations`` (``leases``): that is what is read here."""

from __future__ import annotations

from collections.abc import Sequence

from saphira.verify.facts import Agent, Port
from saphira.verify.model import Check, each


def _port(port: Port, agents: Sequence[Agent]) -> Check:
    network = port.network
    if not network.dhcp_subnets:
        return Check(False, f"network {network.name} has no subnet with DHCP enabled: "
                     f"port {port.mac} gets no address unless configured by hand")  # fmt: skip
    serving = [a for a in agents if a.is_dhcp and network.id in a.leases]
    if not serving:
        return Check(False, f"no DHCP agent reports a dnsmasq for network {network.name}")
    if not any(port.mac.lower() in a.leases[network.id] for a in serving):
        return Check(False, f"dnsmasq for network {network.name} has leased nothing to "
                     f"{port.mac} ({', '.join(port.ips)})")  # fmt: skip
    return Check(True, f"{port.mac} leased {', '.join(port.ips)}")


def check(ports: Sequence[Port], agents: Sequence[Agent]) -> Check:
    return each(_port(port, agents) for port in ports)
