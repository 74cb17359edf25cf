"""The purge plan: what of the host is the cloud's, decided from its markers alone."""

from __future__ import annotations

from saphira.network.l2.ovs_pipeline import BASE_COOKIE, foreign_cookie, port_cookie
from saphira.service.purge.model import (
    Device,
    Domain,
    HostView,
    Kind,
    NftTable,
    OvsFlows,
    OvsPort,
    Process,
    Recorded,
    Removal,
)
from saphira.service.purge.plan import plan

STATE = "/srv/cloud-a"
NET = "11111111-2222-3333-4444-555555555555"
OTHER_NET = "99999999-2222-3333-4444-555555555555"
PORT = "aaaaaaaaaaaa-bbbb"  # its tap: tapaaaaaaaaaaa
OTHER_PORT = "cccccccccccc-dddd"

CLOUD = Recorded(
    state_dir=STATE,
    network_ids=frozenset({NET}),
    port_ids=frozenset({PORT}),
    mapped_bridges=frozenset({"br-made", "br-operator"}),
    created_bridges=frozenset({"br-made"}),
    instances_path=f"{STATE}/instances",
)


def names(removals: list[Removal], kind: Kind) -> list[str]:
    return [r.name for r in removals if r.kind is kind]


def dnsmasq(pid: int, state: str, net: str) -> Process:
    return Process(pid, ("dnsmasq", "--no-hosts", f"--pid-file={state}/dhcp/{net}/pid"))


def test_dnsmasq_and_proxy_of_the_state_dir_only() -> None:
    proxy = ("/usr/bin/python3", "-I", "-m", "saphira.network.metadata.ns_proxy",
             f"--pid-file={STATE}/dhcp/{NET}/metadata-proxy.pid")  # fmt: skip
    host = HostView(processes=(
        dnsmasq(10, STATE, NET), Process(11, proxy),
        dnsmasq(12, "/srv/cloud-b", OTHER_NET),
        dnsmasq(13, f"{STATE}-2", NET),  # a state dir that only starts like ours
        Process(14, ("dnsmasq", "--pid-file=/run/other/pid")),
    ))  # fmt: skip
    removals = plan(CLOUD, host)
    assert names(removals, Kind.PROCESS) == ["10", "11"]
    assert "saphira.network.metadata.ns_proxy" in removals[1].why


def test_namespaces_of_its_networks_only() -> None:
    host = HostView(namespaces=frozenset({f"qdhcp-{NET}", f"qdhcp-{OTHER_NET}", "mine"}))
    assert names(plan(CLOUD, host), Kind.NAMESPACE) == [f"qdhcp-{NET}"]


def test_taps_and_ovs_ports_of_its_ports_only() -> None:
    host = HostView(
        devices=(Device("tapaaaaaaaaaaa", "tun", "br-operator"),
                 Device("tapcccccccccccc", "tun", "br-operator"),
                 Device("eth0", None, None)),
        ovs_bridges=frozenset({"br-operator"}),
        ovs_ports=(OvsPort("tapaaaaaaaaaaa", "br-operator", PORT),
                   OvsPort("renamed", "br-operator", PORT),
                   OvsPort("tapcccccccccccc", "br-operator", OTHER_PORT),
                   OvsPort("uplink", "br-operator", "")),
    )  # fmt: skip
    removals = plan(CLOUD, host)
    assert names(removals, Kind.OVS_PORT) == ["renamed", "tapaaaaaaaaaaa"]
    assert names(removals, Kind.DEVICE) == ["tapaaaaaaaaaaa"]


def test_vlan_uplinks_of_its_vlan_bridges_only() -> None:
    host = HostView(devices=(Device("br-operator.7", "vlan", f"brq{NET[:11]}"),
                             Device("br-operator.8", "vlan", f"brq{OTHER_NET[:11]}"),
                             Device("eth0.7", "vlan", None)))  # fmt: skip
    assert names(plan(CLOUD, host), Kind.DEVICE) == ["br-operator.7"]


def test_only_bridges_it_made_or_its_vlan_bridges_go() -> None:
    host = HostView(
        devices=(Device("br-made", "bridge", None), Device("br-operator", "bridge", None),
                 Device(f"brq{NET[:11]}", "bridge", None),
                 Device(f"brq{OTHER_NET[:11]}", "bridge", None)),
        ovs_bridges=frozenset({"br-made", "br-operator"}),
    )  # fmt: skip
    removals = plan(CLOUD, host)
    assert names(removals, Kind.OVS_BRIDGE) == ["br-made"]
    assert names(removals, Kind.BRIDGE) == ["br-made", f"brq{NET[:11]}"]


def test_the_shared_nftables_table_goes_only_when_it_filters_nothing_else() -> None:
    only_ours = NftTable("bridge", "saphira", frozenset({"tapaaaaaaaaaaa"}))
    shared = NftTable("inet", "saphira", frozenset({"tapaaaaaaaaaaa", "tapcccccccccccc"}))
    empty = NftTable("inet", "saphira", frozenset())
    host = HostView(nft_tables=(only_ours, shared, empty))
    assert names(plan(CLOUD, host), Kind.NFT_TABLE) == ["bridge/saphira"]


def test_guests_by_their_files_under_the_instances_path() -> None:
    host = HostView(
        domains=(Domain("instance-1", "u1", ("/usr/share/ovmf", f"{STATE}/instances/u1/disk")),
                 Domain("instance-2", "u2", (f"{STATE}/instances-b/u2/disk",)),
                 Domain("bystander", "u3", ())),
        instance_dirs=(f"{STATE}/instances/u1",),
        dhcp_dirs=(f"{STATE}/dhcp/{NET}",),
    )  # fmt: skip
    removals = plan(CLOUD, host)
    assert names(removals, Kind.DOMAIN) == ["instance-1"]
    assert names(removals, Kind.DIRECTORY) == [f"{STATE}/dhcp/{NET}", f"{STATE}/instances/u1"]


def test_guests_first_directories_last_and_each_line_says_why() -> None:
    host = HostView(
        namespaces=frozenset({f"qdhcp-{NET}"}),
        processes=(dnsmasq(10, STATE, NET),),
        devices=(Device("br-made", "bridge", None),),
        domains=(Domain("instance-1", "u1", (f"{STATE}/instances/u1/disk",)),),
        dhcp_dirs=(f"{STATE}/dhcp/{NET}",),
    )
    removals = plan(CLOUD, host)
    assert [r.kind for r in removals] == [
        Kind.DOMAIN, Kind.PROCESS, Kind.NAMESPACE, Kind.BRIDGE, Kind.DIRECTORY]  # fmt: skip
    assert removals[0].line(done=True) == (
        f"removed domain instance-1 (files under {STATE}/instances)"
    )
    assert removals[0].line(done=False).startswith("would remove domain instance-1")


def test_a_host_without_the_cloud_has_nothing_to_remove() -> None:
    bystanders = HostView(
        namespaces=frozenset({f"qdhcp-{OTHER_NET}"}),
        processes=(dnsmasq(12, "/srv/cloud-b", OTHER_NET),),
        devices=(Device("br-operator", "bridge", None), Device("tapcccccccccccc", "tun", None)),
        domains=(Domain("other", "u9", ("/srv/cloud-b/instances/u9/disk",)),),
    )
    assert plan(CLOUD, bystanders) == []
    assert plan(Recorded(state_dir=STATE), bystanders) == []
    everyones = HostView(processes=(Process(15, ("dnsmasq", "--pid-file=dhcp/x/pid")),))
    assert plan(Recorded(state_dir=""), everyones) == []  # no state directory: no process


def _flows(bridge: str, *cookies: int, ports: tuple[str, ...] = ()) -> OvsFlows:
    return OvsFlows(bridge, frozenset(cookies), frozenset(ports))


def test_flows_of_its_ports_leave_a_bridge_another_cloud_still_uses() -> None:
    mine, theirs = port_cookie(PORT), port_cookie(OTHER_PORT)
    operator = 0x1234  # a flow the operator added: no Saphira mark
    host = HostView(ovs_flows=(
        _flows("br-operator", BASE_COOKIE, mine, theirs, operator),
        _flows("br-made", BASE_COOKIE, mine),  # the bridge goes whole
    ))  # fmt: skip
    assert names(plan(CLOUD, host), Kind.FLOWS) == [f"br-operator cookie={mine:#x}/-1"]


def test_the_pipeline_goes_too_when_only_the_clouds_ports_used_it() -> None:
    uplink = foreign_cookie("eth1")  # the cloud's agent's flows for a port it did not wire
    host = HostView(ovs_flows=(
        _flows("br-operator", BASE_COOKIE, port_cookie(PORT), uplink, 0x1234, ports=("eth1",)),
        _flows("br-idle", BASE_COOKIE),  # another cloud's pipeline with no port: not ours
    ))  # fmt: skip
    assert names(plan(CLOUD, host), Kind.FLOWS) == [
        "br-operator cookie=0x5a50000000000000/0xffff000000000000"
    ]


def test_addresses_it_added_leave_a_bridge_it_found() -> None:
    cloud = Recorded(state_dir=STATE, created_bridges=frozenset({"br-made"}),
                     added_addresses=frozenset({("br-operator", "10.1.0.1/24"),
                                                ("br-made", "10.2.0.1/24")}))  # fmt: skip
    host = HostView(addresses=(("br-operator", "10.1.0.1/24"), ("br-operator", "192.0.2.1/24"),
                               ("br-made", "10.2.0.1/24")))  # fmt: skip
    assert names(plan(cloud, host), Kind.ADDRESS) == ["br-operator 10.1.0.1/24"]
