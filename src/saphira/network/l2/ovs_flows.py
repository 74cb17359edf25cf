"""One port's flows on its provider bridge (pure: a port and its ofport in, flow text out).

See ``ovs_pipeline`` for the tables. A filtered port gets: its classify
flow; anti-spoofing (what it may send from which MAC); dispatch flows that
lead traffic for its MACs into its ingress tables; one flow per security rule
(times remote addresses, times port-range pieces). A port without port
security, or owned by the network itself (``network:dhcp``, ``network:router_*``:
Neutron trusts those), only gets its network classified. An administratively
down port drops everything and sits on the dead VLAN.
"""

from __future__ import annotations

from saphira.network.l2 import ovs_match
from saphira.network.l2.errors import L2Error
from saphira.network.l2.ovs_pipeline import (
    CLASSIFY,
    DEAD_VLAN,
    DELIVER,
    DISPATCH,
    EGRESS,
    EGRESS_CT,
    INGRESS,
    INGRESS_CT,
    NETWORK,
    SOURCE,
    SPOOF,
    TARGET,
    ZONE,
    access_port_flows,
    dead_flows,
    flow,
    in_port,
    network_id,
    port_cookie,
    resubmit,
)
from saphira.objects.network import PortDetails, SecurityRule, Segment

RULE_PRIORITY = 70
NEIGHBOUR_OUT = (133, 135, 143)  # router solicitation, neighbour solicitation, MLDv2 report


def network_key(segment: Segment) -> int:
    """What tells the port's network apart on the bridge: its VLAN id, 0 for flat."""
    if segment.network_type == "flat":
        return 0
    if segment.network_type == "vlan":
        vlan = segment.segmentation_id
        if vlan is None or not 1 <= vlan <= 4094:
            raise L2Error(detail=f"VLAN segment on {segment.physical_network} has id {vlan}")
        return vlan
    raise L2Error(detail=f"{segment.network_type} segments cannot be wired to a provider bridge")


def port_tag(port: PortDetails) -> int | None:
    """The access VLAN OVS should give the port (None: untagged, on the flat network)."""
    if not port.admin_state_up:
        return DEAD_VLAN
    key = network_key(port.segment)
    return key or None


def filtered(port: PortDetails) -> bool:
    return port.port_security_enabled and not port.device_owner.startswith("network:")


def flows_for(port: PortDetails, ofport: int, bridge_index: int = 0) -> list[str]:
    """Every flow of ``port``, all under its cookie.

    ``ofport`` is its OpenFlow port, ``bridge_index`` the position of its
    bridge in ``bridge_mappings`` (which keeps conntrack zones apart).
    """
    cookie = port_cookie(port.port_id)
    if not port.admin_state_up:
        return dead_flows(cookie, ofport)
    network = network_id(bridge_index, network_key(port.segment))
    if not filtered(port):
        return access_port_flows(cookie, ofport, network)
    classify = f"load:{ofport}->{SOURCE},load:{network}->{NETWORK},{resubmit(SPOOF)}"
    flows = [flow(cookie, CLASSIFY, 100, in_port(ofport), classify)]
    flows += _spoofing(cookie, ofport, port)
    target = f"load:{ofport}->{TARGET},{resubmit(INGRESS_CT)}"
    for mac in _macs(port):
        flows.append(flow(cookie, DISPATCH, 90, f"reg6={network},dl_dst={mac}", target))
    for rule in port.security_rules:
        flows += _rule_flows(cookie, ofport, rule)
    return list(dict.fromkeys(flows))


def _macs(port: PortDetails) -> list[str]:
    pairs = [pair.mac_address.lower() for pair in port.allowed_address_pairs if pair.mac_address]
    return list(dict.fromkeys([port.mac_address.lower(), *pairs]))


def _owned(port: PortDetails, version: int) -> list[tuple[str, str]]:
    """(MAC, address or prefix) the port may send from, for one IP version."""
    mac = port.mac_address.lower()
    owned = [(mac, fixed.ip_address) for fixed in port.fixed_ips]
    owned += [
        ((pair.mac_address or mac).lower(), pair.ip_address) for pair in port.allowed_address_pairs
    ]
    if version == 6:
        owned += [(each, ovs_match.link_local(each)) for each in _macs(port)]
    found = ((each, ovs_match.family(value, version)) for each, value in owned)
    return list(dict.fromkeys((each, value) for each, value in found if value is not None))


def _spoofing(cookie: int, ofport: int, port: PortDetails) -> list[str]:
    reg, dispatch, conntrack = f"reg5={ofport}", resubmit(DISPATCH), resubmit(EGRESS_CT)
    flows: list[str] = []
    for mac in _macs(port):
        me = f"{reg},dl_src={mac}"
        flows.append(flow(cookie, SPOOF, 95, f"udp,{me},tp_src=68,tp_dst=67", dispatch))
        flows.append(flow(cookie, SPOOF, 95, f"udp6,{me},tp_src=546,tp_dst=547", dispatch))
        flows.append(flow(cookie, SPOOF, 90, f"arp,{me},arp_sha={mac},arp_spa=0.0.0.0", dispatch))
        flows += [
            flow(cookie, SPOOF, 93, f"icmp6,{me},ipv6_src=::,icmp_type={kind}", dispatch)
            for kind in NEIGHBOUR_OUT
        ]  # duplicate address detection and the first solicitations come from ::
    for mac, ip in _owned(port, 4):
        me = f"{reg},dl_src={mac}"
        flows.append(flow(cookie, SPOOF, 90, f"arp,{me},arp_sha={mac},arp_spa={ip}", dispatch))
        flows.append(flow(cookie, SPOOF, 90, f"ip,{me},nw_src={ip}", conntrack))
    for mac, ip in _owned(port, 6):
        me = f"{reg},dl_src={mac}"
        flows.append(flow(cookie, SPOOF, 90, f"ipv6,{me},ipv6_src={ip}", conntrack))
        flows.append(flow(cookie, SPOOF, 93, f"icmp6,{me},icmp_type=136,nd_target={ip}", dispatch))
        flows += [
            flow(cookie, SPOOF, 93, f"icmp6,{me},ipv6_src={ip},icmp_type={kind}", dispatch)
            for kind in NEIGHBOUR_OUT
        ]
    return flows


def _rule_flows(cookie: int, ofport: int, rule: SecurityRule) -> list[str]:
    """A new connection the rule admits is committed; its replies then pass as established."""
    if rule.direction == "ingress":
        table, reg, then = INGRESS, f"reg7={ofport}", resubmit(DELIVER)
    else:
        table, reg, then = EGRESS, f"reg5={ofport}", resubmit(DISPATCH)
    actions = f"ct(commit,{ZONE}),{then}"
    return [
        flow(cookie, table, RULE_PRIORITY, f"{match},{reg},ct_state=+new+trk", actions)
        for match in ovs_match.rule_matches(rule)
    ]
