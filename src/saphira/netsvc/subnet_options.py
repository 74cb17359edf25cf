"""A subnet's gateway, IPv6 modes, DNS servers and host routes, checked as Neutron does."""

from __future__ import annotations

import ipaddress
from typing import Any

from saphira.db.network.models import DnsNameserver, HostRoute
from saphira.netsvc import errors
from saphira.netsvc.addresses import Address, Net, parse_ip
from saphira.netsvc.validation import bad_attr

IPV6_MODES = ("slaac", "dhcpv6-stateful", "dhcpv6-stateless")
AUTO_ADDRESS_MODES = ("slaac", "dhcpv6-stateless")
MAX_DNS_NAMESERVERS = 5
MAX_HOST_ROUTES = 20


def gateway_of(net: Net, value: Any, unset: object) -> Address | None:
    """The asked gateway, or the first address when none was asked; None means no gateway."""
    if value is unset:
        return net.network_address + 1 if net.num_addresses > 2 else None
    if value is None:
        return None
    gateway = parse_ip(value, "gateway_ip")
    if gateway.version != net.version:
        raise errors.InvalidInput(
            error_message=f"gateway_ip '{gateway}' does not match the ip_version '{net.version}'"
        )
    edges = [net.network_address] + ([net.broadcast_address] if net.version == 4 else [])
    if gateway in net and gateway in edges:
        raise errors.InvalidInput(error_message="Gateway is not valid on subnet")
    return gateway


def check_modes(net: Net, attrs: dict[str, Any]) -> None:
    ra_mode, address_mode = attrs.get("ipv6_ra_mode"), attrs.get("ipv6_address_mode")
    for name, mode in (("ipv6_ra_mode", ra_mode), ("ipv6_address_mode", address_mode)):
        if mode is not None and mode not in IPV6_MODES:
            raise bad_attr(name, f"'{mode}' is not in {list(IPV6_MODES)}")
    if net.version == 4 and (ra_mode or address_mode):
        raise errors.InvalidInput(
            error_message="ipv6_ra_mode and ipv6_address_mode are only valid for IPv6 subnets"
        )
    if ra_mode and address_mode and ra_mode != address_mode:
        raise errors.InvalidInput(
            error_message=f"ipv6_ra_mode set to '{ra_mode}' with ipv6_address_mode set to "
            f"'{address_mode}' is not valid. If both attributes are set, they must be the same "
            "value"
        )
    if address_mode in AUTO_ADDRESS_MODES and net.prefixlen != 64:
        raise errors.InvalidInput(
            error_message=f"Invalid CIDR {net} for IPv6 address mode. OpenStack uses the EUI-64 "
            "address format, which requires the prefix to be /64"
        )


def dns_rows(net: Net, servers: list[Any]) -> list[DnsNameserver]:
    if len(servers) > MAX_DNS_NAMESERVERS:
        raise bad_attr(
            "dns_nameservers",
            f"The number of DNS nameservers exceeds the limit {MAX_DNS_NAMESERVERS}",
        )
    seen: list[str] = []
    for server in servers:
        text = str(parse_ip(server, "dns_nameservers"))
        if text in seen:
            raise bad_attr("dns_nameservers", f"Duplicate nameserver '{server}'")
        seen.append(text)
    return [DnsNameserver(position=i, address=text) for i, text in enumerate(seen)]


def route_rows(net: Net, routes: list[Any]) -> list[HostRoute]:
    if len(routes) > MAX_HOST_ROUTES:
        raise bad_attr(
            "host_routes", f"The number of host routes exceeds the limit {MAX_HOST_ROUTES}"
        )
    rows: list[HostRoute] = []
    for route in routes:
        if not isinstance(route, dict) or set(route) != {"destination", "nexthop"}:
            raise bad_attr("host_routes", f"Validation of dictionary's keys failed: {route}")
        try:
            destination = ipaddress.ip_network(str(route["destination"]), strict=False)
        except ValueError:
            raise bad_attr(
                "host_routes", f"'{route['destination']}' is not a valid IP subnet"
            ) from None
        nexthop = parse_ip(route["nexthop"], "host_routes")
        if destination.version != net.version or nexthop.version != net.version:
            raise errors.InvalidInput(
                error_message=f"Host route {route} does not match the ip_version '{net.version}'"
            )
        key = (str(destination), str(nexthop))
        if any((r.destination, r.nexthop) == key for r in rows):
            raise bad_attr("host_routes", f"Duplicate hostroute '{route}'")
        rows.append(HostRoute(position=len(rows), destination=key[0], nexthop=key[1]))
    return rows
