"""The OpenFlow pipeline of a provider bridge: tables, registers, cookies, shared flows.

Guests' ports sit directly on the provider bridge (there is no integration
bridge), so one flow table both forwards and filters. Packets enter table 0:

====  ==========  ===========================================================
  0   CLASSIFY    a guest port: reg5 = its ofport, reg6 = its network (see
                  ``network_id``); filtered ports go on to SPOOF, the
                  others to DISPATCH. Other ports (uplinks, the bridge's own)
                  go to TRUNK, another agent's access port has its tag loaded.
                  A port the agent has not seen yet matches nothing: dropped
                  until the next reconcile (a new guest is never unfiltered).
  1   TRUNK       reg6 from the 802.1Q tag (none: the flat network).
 10   SPOOF       from a filtered port only its MACs and addresses (fixed
                  IPs, allowed address pairs, link-local), ARP and neighbour
                  discovery for them, DHCP client traffic; DHCP and router
                  advertisements *from* a guest are dropped.
 20   EGRESS_CT   conntrack, zone = reg6.
 21   EGRESS      established/related out; new connections as the port's
                  egress rules allow, committed.
 60   DISPATCH    to the MAC of a filtered port on the same network: that
                  port's ingress (reg7 = its ofport); anything else NORMAL.
 70   INGRESS_CT  DHCP replies, neighbour discovery, ARP straight through;
                  IP to conntrack, zone = reg6.
 71   INGRESS     established/related in; new connections as the port's
                  ingress rules allow, committed.
 80   DELIVER     out of reg7's port, 802.1Q tag popped.
====  ==========  ===========================================================

NORMAL handles everything not addressed to a filtered port (broadcast,
ARP requests, unfiltered ports, the uplink), with the VLAN tags OVS keeps on
each port. One conntrack zone per network (reg6) is shared by the egress of
one port and the ingress of the next, as Neutron's OpenFlow firewall does.
Zones must differ between bridges too: every bridge of a datapath shares
its connection tracker, and two physical networks may carry the same
addresses. So reg6 is the bridge's index in ``bridge_mappings`` (4 bits,
stable as long as new mappings are appended) above the VLAN id (12 bits,
0 for flat).

Every flow carries a cookie: ``MARK`` in the top 16 bits (ours), then 48
bits from the port id, so one port's flows are found, compared and replaced
as a set; ``BASE_COOKIE`` marks the shared flows below.
"""

from __future__ import annotations

import hashlib

CLASSIFY, TRUNK, SPOOF, EGRESS_CT, EGRESS, DISPATCH, INGRESS_CT, INGRESS, DELIVER = (
    0, 1, 10, 20, 21, 60, 70, 71, 80,
)  # fmt: skip
SOURCE, NETWORK, TARGET = "NXM_NX_REG5[]", "NXM_NX_REG6[]", "NXM_NX_REG7[]"
ZONE = "zone=NXM_NX_REG6[0..15]"
MARK = 0x5A50 << 48
MARK_MASK = 0xFFFF << 48
BASE_COOKIE = MARK
DEAD_VLAN = 4095  # reserved by 802.1Q, nothing else is in it: Neutron parks dead ports there
TAGGED = "vlan_tci=0x1000/0x1000"
LOCAL = 65534  # the bridge's own port, as ovs-vsctl numbers it (OpenFlow 1.0's OFPP_LOCAL)
MAX_BRIDGES = 16  # bridge indexes fit reg6[12..15]


def network_id(bridge_index: int, vlan: int) -> int:
    """reg6 and the conntrack zone of a network: unique per bridge and VLAN (0: flat)."""
    return bridge_index << 12 | vlan


def flow(cookie: int, table: int, priority: int, match: str, actions: str) -> str:
    """One flow as ovs-ofctl reads it (``add-flows``, ``diff-flows``)."""
    head = f"cookie={cookie:#x},table={table},priority={priority}"
    return f"{head},{match},actions={actions}" if match else f"{head},actions={actions}"


def port_cookie(port_id: str) -> int:
    """Stable across agent restarts: derived from the port id alone."""
    low = int.from_bytes(hashlib.sha256(port_id.encode()).digest()[:6], "big")
    return MARK | (low or 1)  # never BASE_COOKIE


def foreign_cookie(interface: str) -> int:
    """For a port the network service did not describe (found by its OVS name)."""
    return port_cookie(f"ovs-interface:{interface}")


def is_ours(cookie: int) -> bool:
    return cookie & MARK_MASK == MARK


def resubmit(table: int) -> str:
    return f"resubmit(,{table})"


def in_port(ofport: int) -> str:
    return "in_port=LOCAL" if ofport == LOCAL else f"in_port={ofport}"


def dead_flows(cookie: int, ofport: int) -> list[str]:
    """Nothing from the port goes anywhere (nothing reaches it either: it sits on DEAD_VLAN)."""
    return [flow(cookie, CLASSIFY, 100, in_port(ofport), "drop")]


def access_port_flows(cookie: int, ofport: int, network: int) -> list[str]:
    """An unfiltered port: its traffic is classified by network, then forwarded."""
    actions = f"load:{network}->{NETWORK},{resubmit(DISPATCH)}"
    return [flow(cookie, CLASSIFY, 100, in_port(ofport), actions)]


def trunk_flows(cookie: int, ofport: int) -> list[str]:
    """An uplink (or the bridge's own port): the frame's 802.1Q tag says which network."""
    return [flow(cookie, CLASSIFY, 100, in_port(ofport), resubmit(TRUNK))]


def _verdicts(table: int, accept: str) -> list[str]:
    return [
        flow(BASE_COOKIE, table, 100, "ct_state=+inv+trk", "drop"),
        flow(BASE_COOKIE, table, 90, "ct_state=+est+trk", accept),
        flow(BASE_COOKIE, table, 85, "ct_state=+rel+trk", accept),
        flow(BASE_COOKIE, table, 0, "", "drop"),
    ]


def _conntrack(table: int, then: int) -> list[str]:
    return [
        flow(BASE_COOKIE, table, 90, "ip", f"ct(table={then},{ZONE})"),
        flow(BASE_COOKIE, table, 90, "ipv6", f"ct(table={then},{ZONE})"),
    ]


def base_flows(bridge_index: int = 0) -> list[str]:
    """The flows every port of the bridge shares, under BASE_COOKIE."""
    deliver, drop = resubmit(DELIVER), "drop"
    vlan = "move:NXM_OF_VLAN_TCI[0..11]->NXM_NX_REG6[0..11]"
    tagged = f"{vlan},load:{bridge_index}->NXM_NX_REG6[12..15],{resubmit(DISPATCH)}"
    untagged = f"load:{network_id(bridge_index, 0)}->{NETWORK},{resubmit(DISPATCH)}"
    server_side = ["udp,tp_src=67,tp_dst=68", "udp6,tp_src=547,tp_dst=546"]
    neighbour_in = [f"icmp6,icmp_type={kind}" for kind in (130, 134, 135, 136)]
    return [
        flow(BASE_COOKIE, CLASSIFY, 0, "", drop),
        flow(BASE_COOKIE, TRUNK, 1, TAGGED, tagged),
        flow(BASE_COOKIE, TRUNK, 0, "", untagged),
        *(flow(BASE_COOKIE, SPOOF, 95, match, drop) for match in server_side),
        flow(BASE_COOKIE, SPOOF, 95, "icmp6,icmp_type=134", drop),  # router advertisement
        flow(BASE_COOKIE, SPOOF, 92, "icmp6,icmp_type=136", drop),  # NA for others' addresses
        flow(BASE_COOKIE, SPOOF, 92, "icmp6,icmp_type=137", drop),  # redirect
        flow(BASE_COOKIE, SPOOF, 0, "", drop),
        *_conntrack(EGRESS_CT, EGRESS),
        flow(BASE_COOKIE, EGRESS_CT, 0, "", drop),
        *_verdicts(EGRESS, resubmit(DISPATCH)),
        flow(BASE_COOKIE, DISPATCH, 0, "", "NORMAL"),
        *(flow(BASE_COOKIE, INGRESS_CT, 95, match, deliver) for match in server_side),
        *(flow(BASE_COOKIE, INGRESS_CT, 95, match, deliver) for match in neighbour_in),
        *_conntrack(INGRESS_CT, INGRESS),
        flow(BASE_COOKIE, INGRESS_CT, 50, "arp", deliver),
        flow(BASE_COOKIE, INGRESS_CT, 0, "", drop),
        *_verdicts(INGRESS, deliver),
        flow(BASE_COOKIE, DELIVER, 1, TAGGED, "pop_vlan,output:NXM_NX_REG7[0..15]"),
        flow(BASE_COOKIE, DELIVER, 0, "", "output:NXM_NX_REG7[0..15]"),
    ]
