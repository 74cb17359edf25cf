"""What dnsmasq is told about one network: hosts file, options file, command line.

Pure functions of a ``DhcpNetwork`` (Neutron's dnsmasq driver formats), so the
agent can compare what it would write with what is there and act only on a
difference. Output is sorted, never in input order, for the same reason.
"""

from __future__ import annotations

import ipaddress
import re

from saphira.network.dhcp.files import NetworkFiles
from saphira.objects.network import DhcpHost, DhcpNetwork, DhcpSubnet

LEASE_SECONDS = 86400
METADATA_CIDR = "169.254.169.254/32"
DEFAULT_ROUTE = "0.0.0.0/0"
MAX_LEASES = 2**24
_HOSTNAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")


def namespace_name(network_id: str) -> str:
    return f"qdhcp-{network_id}"


def device_name(port_id: str) -> str:
    """The DHCP port's device, named as Nova names a guest's tap (the L2 agent finds both alike)."""
    return f"tap{port_id[:11]}"


def subnet_tag(subnet: DhcpSubnet) -> str:
    return f"subnet-{subnet.subnet_id}"


def dhcp_subnets(network: DhcpNetwork) -> list[DhcpSubnet]:
    return sorted((s for s in network.subnets if s.enable_dhcp), key=lambda s: s.subnet_id)


def port_addresses(network: DhcpNetwork) -> list[str]:
    """The DHCP port's addresses as ``ip/prefixlen`` of their subnets (what the device carries)."""
    cidrs = {s.subnet_id: s.cidr for s in network.subnets}
    return sorted(
        f"{fixed.ip_address}/{ipaddress.ip_network(cidrs[fixed.subnet_id]).prefixlen}"
        for fixed in network.dhcp_port.fixed_ips
        if fixed.subnet_id in cidrs
    )


def hosts_file(network: DhcpNetwork) -> str:
    """``--dhcp-hostsfile``: ``mac,hostname,ip`` per fixed IP (``[ip]`` for IPv6)."""
    served = {s.subnet_id for s in dhcp_subnets(network)}
    lines = sorted(
        _host_line(host, fixed.ip_address)
        for host in network.hosts
        for fixed in host.fixed_ips
        if fixed.subnet_id in served
    )
    return "".join(f"{line}\n" for line in lines)


def released_leases(old_hosts: str, new_hosts: str) -> list[tuple[str, str]]:
    """(mac, IPv4) of host lines the new hosts file drops: their leases must go."""
    kept = set(new_hosts.splitlines())
    gone = []
    for line in old_hosts.splitlines():
        mac, _name, ip = line.split(",", 2)
        if line not in kept and not ip.startswith("["):
            gone.append((mac, ip))
    return gone


def _host_line(host: DhcpHost, ip: str) -> str:
    address = ipaddress.ip_address(ip)
    name = host.hostname if _HOSTNAME.match(host.hostname) else _derived_name(address)
    shown = f"[{address}]" if address.version == 6 else str(address)
    return f"{host.mac_address.lower()},{name},{shown}"


def _derived_name(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    return "host-" + str(address).replace(".", "-").replace(":", "-")


def opts_file(network: DhcpNetwork) -> str:
    """``--dhcp-optsfile``: per subnet tag, DNS servers, option 121 (and 249) and router."""
    lines: list[str] = []
    for subnet in dhcp_subnets(network):
        tag = f"tag:{subnet_tag(subnet)}"
        if subnet.ip_version == 6:
            if subnet.dns_nameservers:
                servers = ",".join(f"[{server}]" for server in subnet.dns_nameservers)
                lines.append(f"{tag},option6:dns-server,{servers}")
            continue
        if subnet.dns_nameservers:
            lines.append(f"{tag},option:dns-server,{','.join(subnet.dns_nameservers)}")
        routes = ",".join(f"{dest},{hop}" for dest, hop in classless_routes(network, subnet))
        if routes:
            lines.append(f"{tag},option:classless-static-route,{routes}")
            lines.append(f"{tag},249,{routes}")  # the same routes for Windows clients
        # An empty router option keeps dnsmasq from offering itself as the gateway.
        lines.append(
            f"{tag},option:router" + (f",{subnet.gateway_ip}" if subnet.gateway_ip else "")
        )
    return "".join(f"{line}\n" for line in lines)


def classless_routes(network: DhcpNetwork, subnet: DhcpSubnet) -> list[tuple[str, str]]:
    """Option 121 for an IPv4 subnet: metadata, on-link siblings, host routes, default.

    A client that gets option 121 ignores the router option (RFC 3442), so the
    default route must be in it too.
    """
    own = subnet.host_routes
    destinations = {route.destination for route in own}
    routes: list[tuple[str, str]] = []
    metadata_hop = _port_ip(network, subnet)
    if metadata_hop and METADATA_CIDR not in destinations:
        routes.append((METADATA_CIDR, metadata_hop))
    for sibling in dhcp_subnets(network):
        if sibling.ip_version == 4 and sibling.subnet_id != subnet.subnet_id:
            routes.append((sibling.cidr, "0.0.0.0"))
    routes.extend((route.destination, route.nexthop) for route in own)
    if subnet.gateway_ip and DEFAULT_ROUTE not in destinations:
        routes.append((DEFAULT_ROUTE, subnet.gateway_ip))
    return routes


def _port_ip(network: DhcpNetwork, subnet: DhcpSubnet) -> str | None:
    found = (f.ip_address for f in network.dhcp_port.fixed_ips if f.subnet_id == subnet.subnet_id)
    return next(found, None)


def dnsmasq_argv(network: DhcpNetwork, files: NetworkFiles, lease_seconds: int) -> list[str]:
    """The whole command line; a running dnsmasq with another one must be restarted.

    The MTU is forced here rather than put in the options file: options from
    that file reach only clients that ask for them, and busybox udhcpc does not.
    """
    subnets = dhcp_subnets(network)
    size = sum(ipaddress.ip_network(s.cidr).num_addresses for s in subnets)
    return [
        "dnsmasq",
        "--no-hosts",
        "--no-resolv",
        "--conf-file=/dev/null",
        f"--pid-file={files.pid}",
        f"--dhcp-hostsfile={files.hosts}",
        f"--dhcp-optsfile={files.opts}",
        f"--dhcp-leasefile={files.leases}",
        f"--log-facility={files.log}",
        "--bind-interfaces",
        f"--interface={device_name(network.dhcp_port.port_id)}",
        "--except-interface=lo",
        f"--dhcp-option-force=option:mtu,{network.segment.mtu}",
        f"--dhcp-lease-max={min(size, MAX_LEASES)}",
        *(f"--dhcp-range={_range(subnet, lease_seconds)}" for subnet in subnets),
    ]


def _range(subnet: DhcpSubnet, lease_seconds: int) -> str:
    """A static range: dnsmasq answers only the MACs in the hosts file."""
    net = ipaddress.ip_network(subnet.cidr)
    mask = str(net.netmask) if net.version == 4 else str(net.prefixlen)
    return f"set:{subnet_tag(subnet)},{net.network_address},static,{mask},{lease_seconds}s"
