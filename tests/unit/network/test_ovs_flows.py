"""flows_for: one port's flows, as text ovs-ofctl reads."""

from __future__ import annotations

import pytest

from saphira.network.l2.errors import L2Error
from saphira.network.l2.ovs_flows import flows_for, network_key, port_tag
from saphira.network.l2.ovs_pipeline import (
    BASE_COOKIE,
    base_flows,
    foreign_cookie,
    is_ours,
    port_cookie,
)
from saphira.objects.network import AddressPair, FixedIP, PortDetails, SecurityRule, Segment

MAC = "fa:16:3e:00:00:01"
FLAT = Segment("flat", "physnet1")
VLAN = Segment("vlan", "physnet1", 100)


def port(**fields: object) -> PortDetails:
    made = PortDetails("port-1", "net-1", MAC.upper(), FLAT, fixed_ips=[FixedIP("s", "10.0.0.5")])
    for name, value in fields.items():
        setattr(made, name, value)
    return made


def matching(flows: list[str], *parts: str) -> list[str]:
    return [flow for flow in flows if all(part in flow for part in parts)]


def test_every_flow_carries_the_port_cookie_once() -> None:
    flows = flows_for(port(security_rules=[SecurityRule("egress")]), 7)
    cookie = f"cookie={port_cookie('port-1'):#x},"
    assert flows and all(flow.startswith(cookie) for flow in flows)
    assert len(set(flows)) == len(flows)


def test_cookies_are_ours_stable_and_distinct() -> None:
    assert port_cookie("port-1") == port_cookie("port-1") != port_cookie("port-2")
    assert is_ours(port_cookie("port-1")) and is_ours(BASE_COOKIE)
    assert port_cookie("port-1") != BASE_COOKIE != foreign_cookie("port-1")
    assert not is_ours(0)


def test_classify_sets_source_and_network_then_anti_spoofing() -> None:
    flows = flows_for(port(segment=VLAN), 7)
    assert matching(flows, "table=0,", "in_port=7") == [
        f"cookie={port_cookie('port-1'):#x},table=0,priority=100,in_port=7,"
        "actions=load:7->NXM_NX_REG5[],load:100->NXM_NX_REG6[],resubmit(,10)"
    ]


def test_only_its_mac_and_ips_may_send() -> None:
    flows = flows_for(port(), 7)
    sent = matching(flows, "table=10,", "ip,", "nw_src=")
    assert sent == [matching(flows, "table=10,", f"ip,reg5=7,dl_src={MAC},nw_src=10.0.0.5")[0]]
    assert sent[0].endswith("actions=resubmit(,20)")  # on to conntrack and the egress rules
    arp = matching(flows, "table=10,", "arp,")
    assert sorted(flow.split("arp_spa=")[1].split(",")[0] for flow in arp) == [
        "0.0.0.0",
        "10.0.0.5",
    ]
    assert all(f"dl_src={MAC},arp_sha={MAC}" in flow for flow in arp)


def test_address_pairs_add_their_mac_and_prefix() -> None:
    pairs = [AddressPair("10.0.9.0/24", "fa:16:3e:00:00:99"), AddressPair("10.0.8.8", "")]
    flows = flows_for(port(allowed_address_pairs=pairs), 7)
    assert matching(flows, "ip,", "dl_src=fa:16:3e:00:00:99,nw_src=10.0.9.0/24")
    assert matching(flows, "ip,", f"dl_src={MAC},nw_src=10.0.8.8")
    assert matching(flows, "arp,", "arp_sha=fa:16:3e:00:00:99,arp_spa=10.0.9.0/24")
    dispatch = matching(flows, "table=60,")
    assert [flow.split("dl_dst=")[1].split(",")[0] for flow in dispatch] == [
        MAC,
        "fa:16:3e:00:00:99",
    ]


def test_ipv6_link_local_and_neighbour_advertisements_for_its_own_only() -> None:
    flows = flows_for(port(fixed_ips=[FixedIP("s6", "2001:db8::5")]), 7)
    sources = {flow.split("ipv6_src=")[1].split(",")[0] for flow in matching(flows, "ipv6,")}
    assert sources == {"2001:db8::5", "fe80::f816:3eff:fe00:1"}
    targets = {flow.split("nd_target=")[1].split(",")[0] for flow in matching(flows, "nd_target=")}
    assert targets == sources
    base_drops = matching(base_flows(), "table=10,", "icmp_type=136", "actions=drop")
    assert base_drops  # every other advertisement is dropped


def test_dhcp_client_out_is_allowed_dhcp_server_out_is_not() -> None:
    flows = flows_for(port(), 7)
    assert matching(flows, "udp,", f"dl_src={MAC}", "tp_src=68,tp_dst=67", "resubmit(,60)")
    assert matching(base_flows(), "table=10,", "udp,tp_src=67,tp_dst=68", "actions=drop")
    assert matching(base_flows(), "table=70,", "udp,tp_src=67,tp_dst=68", "resubmit(,80)")


def test_dispatch_leads_its_mac_on_its_network_to_its_ingress() -> None:
    flows = flows_for(port(segment=VLAN), 7)
    assert matching(flows, "table=60,") == [
        f"cookie={port_cookie('port-1'):#x},table=60,priority=90,reg6=100,dl_dst={MAC},"
        "actions=load:7->NXM_NX_REG7[],resubmit(,70)"
    ]


def test_rules_admit_new_connections_and_commit_them() -> None:
    rules = [
        SecurityRule("ingress", "IPv4", "tcp", 22, 22, remote_ip_prefix="10.0.0.0/24"),
        SecurityRule("egress", "IPv4", "udp", 53, 53),
    ]
    flows = flows_for(port(security_rules=rules), 7)
    ingress, egress = matching(flows, "table=71,"), matching(flows, "table=21,")
    assert ingress == [
        f"cookie={port_cookie('port-1'):#x},table=71,priority=70,"
        "tcp,nw_src=10.0.0.0/24,tp_dst=22,reg7=7,ct_state=+new+trk,"
        "actions=ct(commit,zone=NXM_NX_REG6[0..15]),resubmit(,80)"
    ]
    assert len(egress) == 1 and "udp,tp_dst=53,reg5=7,ct_state=+new+trk" in egress[0]
    assert egress[0].endswith("resubmit(,60)")


def test_without_rules_nothing_new_is_admitted() -> None:
    flows = flows_for(port(), 7)
    assert matching(flows, "table=21,") == matching(flows, "table=71,") == []
    verdicts = matching(base_flows(), ",table=71,priority")
    assert [f.split("priority=")[1] for f in verdicts] == [
        "100,ct_state=+inv+trk,actions=drop",
        "90,ct_state=+est+trk,actions=resubmit(,80)",
        "85,ct_state=+rel+trk,actions=resubmit(,80)",
        "0,actions=drop",
    ]


@pytest.mark.parametrize(
    "fields",
    [{"port_security_enabled": False}, {"device_owner": "network:dhcp"}],
)
def test_unfiltered_ports_only_get_their_network(fields: dict[str, object]) -> None:
    flows = flows_for(port(segment=VLAN, security_rules=[SecurityRule("egress")], **fields), 7)
    assert flows == [
        f"cookie={port_cookie('port-1'):#x},table=0,priority=100,in_port=7,"
        "actions=load:100->NXM_NX_REG6[],resubmit(,60)"
    ]


def test_an_admin_down_port_drops_everything_on_the_dead_vlan() -> None:
    down = port(admin_state_up=False, segment=VLAN)
    assert flows_for(down, 7) == [
        f"cookie={port_cookie('port-1'):#x},table=0,priority=100,in_port=7,actions=drop"
    ]
    assert port_tag(down) == 4095


def test_segments() -> None:
    assert (network_key(FLAT), port_tag(port())) == (0, None)
    assert (network_key(VLAN), port_tag(port(segment=VLAN))) == (100, 100)
    for bad in (
        Segment("vlan", "physnet1", None),
        Segment("vlan", "physnet1", 4095),
        Segment("vxlan", "physnet1", 5),
    ):
        with pytest.raises(L2Error):
            network_key(bad)


def test_the_bridge_index_keeps_networks_and_zones_apart() -> None:
    flows = flows_for(port(segment=VLAN), 7, bridge_index=2)
    network = 2 << 12 | 100
    assert matching(flows, "table=0,")[0].endswith(
        f"load:7->NXM_NX_REG5[],load:{network}->NXM_NX_REG6[],resubmit(,10)"
    )
    assert matching(flows, "table=60,", f"reg6={network},")
    trunk = matching(base_flows(2), ",table=1,")
    assert [flow.split("actions=")[1] for flow in trunk] == [
        "move:NXM_OF_VLAN_TCI[0..11]->NXM_NX_REG6[0..11],load:2->NXM_NX_REG6[12..15],resubmit(,60)",
        f"load:{2 << 12}->NXM_NX_REG6[],resubmit(,60)",
    ]
