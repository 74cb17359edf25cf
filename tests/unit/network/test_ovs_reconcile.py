"""reconcile_once's decisions against a pretend Open vSwitch (the real one: integration)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from saphira.network.l2.errors import L2Error
from saphira.network.l2.ovs_flows import flows_for
from saphira.network.l2.ovs_pipeline import MARK, base_flows, foreign_cookie, port_cookie
from saphira.network.l2.ovs_reconcile import OvsReconciler, cookie_of
from saphira.objects.network import FixedIP, PortDetails, Segment
from saphira.privsep import ovs
from saphira.privsep.runner import PrivsepError

FOREIGN = "cookie=0x7,table=5,priority=1,actions=drop"  # another controller's flow


class FakeOvs:
    """Bridges with interfaces and flow text; diff and bundles as ovs-ofctl does them."""

    def __init__(self) -> None:
        self.bridges: dict[str, dict[str, object]] = {}
        self.ports: dict[str, list[ovs.Interface]] = {}
        self.flows: dict[str, list[str]] = {}
        self.calls: list[str] = []
        self.probes = 0
        self.broken: set[str] = set()

    def plug(
        self,
        bridge: str,
        name: str,
        ofport: int,
        iface_id: str | None = None,
        tag: int | None = None,
    ) -> None:
        ids = {"iface-id": iface_id} if iface_id else {}
        self.ports.setdefault(bridge, []).append(ovs.Interface(name, ofport, ids, tag))

    def bridge(self, name: str) -> dict[str, object] | None:
        return self.bridges.get(name)

    def add_bridge(self, name: str, datapath_type: str) -> None:
        self.calls.append(f"add_bridge {name} {datapath_type}")
        self.bridges[name] = {"datapath_type": datapath_type, "fail_mode": "secure"}
        self.flows.setdefault(name, [FOREIGN])

    def kernel_datapath_error(self) -> str | None:
        self.probes += 1
        return "ovs-dpctl show failed: 2026|00001|dpif_netlink|INFO|Generic Netlink family missing"

    def interfaces(self, bridge: str) -> list[ovs.Interface]:
        if bridge in self.broken:
            raise PrivsepError(command="ovs-vsctl", status=1, detail="database went away")
        return list(self.ports.get(bridge, []))

    def set_tags(self, tags: dict[str, int | None]) -> None:
        self.calls += [f"set_tag {port} {tag}" for port, tag in tags.items()]
        for bridge, ifaces in self.ports.items():
            self.ports[bridge] = [
                ovs.Interface(i.name, i.ofport, i.external_ids, tags[i.name])
                if i.name in tags
                else i
                for i in ifaces
            ]

    def diff_flows(self, bridge: str, flows: list[str]) -> list[str]:
        have, want = set(self.flows[bridge]), set(flows)
        return [f"-{line}" for line in have - want] + [f"+{line}" for line in want - have]

    def apply_flows(self, bridge: str, lines: list[str]) -> None:
        self.calls.append(f"apply_flows {bridge} {len(lines)}")
        for line in lines:
            verb, _, rest = line.partition(" ")
            if verb == "delete":
                matched = re.match(r"cookie=(0x[0-9a-f]+)/-1", rest)
                assert matched is not None, rest
                cookie = int(matched.group(1), 16)
                self.flows[bridge] = [f for f in self.flows[bridge] if cookie_of(f) != cookie]
            else:
                self.flows[bridge].append(rest)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOvs]:
    made = FakeOvs()
    for name in (
        "bridge",
        "add_bridge",
        "kernel_datapath_error",
        "interfaces",
        "set_tags",
        "diff_flows",
        "apply_flows",
    ):
        monkeypatch.setattr(ovs, name, getattr(made, name))
    yield made


def port(port_id: str, vlan: int | None = None, physnet: str = "physnet1") -> PortDetails:
    segment = Segment("vlan", physnet, vlan) if vlan else Segment("flat", physnet)
    return PortDetails(port_id, "net", "fa:16:3e:00:00:01", segment, [FixedIP("s", "10.0.0.5")])


def ours(fake: FakeOvs, bridge: str = "br-a") -> set[str]:
    return {flow for flow in fake.flows[bridge] if flow != FOREIGN}


def test_first_run_wires_second_run_does_nothing(fake: FakeOvs) -> None:
    fake.plug("br-a", "tap1", 5, "p1")
    fake.plug("br-a", "tap2", 6, "p2", tag=100)
    agent = OvsReconciler({"physnet1": "br-a"})
    desired = [port("p1", vlan=100), port("p2", vlan=100)]
    first = agent.reconcile_once(desired)
    assert (sorted(first.changed), first.unchanged, sorted(first.up)) == (
        ["p1", "p2"],
        [],
        ["p1", "p2"],
    )
    assert ours(fake) == set(base_flows() + flows_for(desired[0], 5) + flows_for(desired[1], 6))
    assert [c for c in fake.calls if c.startswith("set_tag")] == ["set_tag tap1 100"]
    assert agent.bridges["br-a"].datapath_type == "netdev"
    assert "Generic Netlink family missing" in agent.bridges["br-a"].reason
    fake.calls.clear()
    again = agent.reconcile_once(desired)
    assert (again.changed, sorted(again.unchanged), again.applied) == ([], ["p1", "p2"], [])
    assert fake.calls == [] and fake.probes == 1
    assert FOREIGN in fake.flows["br-a"]  # not ours: left alone


def test_one_changed_port_is_replaced_alone(fake: FakeOvs) -> None:
    fake.plug("br-a", "tap1", 5, "p1")
    fake.plug("br-a", "tap2", 6, "p2")
    agent = OvsReconciler({"physnet1": "br-a"})
    agent.reconcile_once([port("p1"), port("p2")])
    moved = port("p2")
    moved.fixed_ips = [FixedIP("s", "10.0.0.6")]
    report = agent.reconcile_once([port("p1"), moved])
    assert (report.changed, report.unchanged) == (["p2"], ["p1"])
    cookie = port_cookie("p2")
    assert report.applied[0] == f"delete cookie={cookie:#x}/-1"
    assert {cookie_of(line) for line in report.applied[1:]} == {cookie}


def test_gone_ports_are_removed_unknown_ones_isolated(fake: FakeOvs) -> None:
    fake.plug("br-a", "tap1", 5, "p1")
    fake.plug("br-a", "tap2", 6, "p2")
    agent = OvsReconciler({"physnet1": "br-a"})
    agent.reconcile_once([port("p1"), port("p2")])
    fake.ports["br-a"] = fake.ports["br-a"][1:]  # tap1 unplugged; p2 no longer bound here
    report = agent.reconcile_once([port("p1")])
    assert (report.missing, report.isolated) == (["p1"], ["p2"])
    assert sorted(report.removed) == sorted(f"{port_cookie(p):#x}" for p in ("p1", "p2"))
    assert ours(fake) == set(base_flows()) | {
        f"cookie={foreign_cookie('tap2'):#x},table=0,priority=100,in_port=6,actions=drop"
    }
    assert "set_tag tap2 4095" in fake.calls


def test_other_ports_are_trunks_or_classified_by_their_tag(fake: FakeOvs) -> None:
    fake.plug("br-a", "dhcp0", 9, tag=101)
    fake.plug("br-a", "uplink", 1)
    fake.plug("br-a", "br-a", 65534)
    fake.plug("br-a", "broken", -1, "p9")
    OvsReconciler({"physnet1": "br-a"}).reconcile_once([])
    assert ours(fake) == set(base_flows()) | {
        f"cookie={foreign_cookie('dhcp0'):#x},table=0,priority=100,in_port=9,"
        "actions=load:101->NXM_NX_REG6[],resubmit(,60)",
        f"cookie={foreign_cookie('uplink'):#x},table=0,priority=100,in_port=1,actions=resubmit(,1)",
        f"cookie={foreign_cookie('br-a'):#x},table=0,priority=100,in_port=LOCAL,"
        "actions=resubmit(,1)",
    }


def test_a_port_not_seen_yet_is_dropped_by_default() -> None:
    classify = [flow for flow in base_flows() if ",table=0," in flow]
    assert classify == [f"cookie={MARK:#x},table=0,priority=0,actions=drop"]


def test_ports_on_unknown_or_broken_bridges_fail_alone(fake: FakeOvs) -> None:
    fake.plug("br-a", "tap1", 5, "p1")
    fake.plug("br-a", "tap4", 8, "p4")
    fake.broken.add("br-b")
    agent = OvsReconciler({"physnet1": "br-a", "physnet2": "br-b"}, datapath_type="netdev")
    report = agent.reconcile_once(
        [
            port("p1"),
            port("p2", physnet="physnet2"),
            port("p3", physnet="physnet9"),
            port("p4", vlan=5000),
        ]
    )
    assert report.up == ["p1"]
    assert sorted(report.failed) == ["br-b", "p3", "p4"]
    assert "no bridge mapped for physical network physnet9" in report.failed["p3"]
    assert "database went away" in report.failed["br-b"]
    assert "VLAN segment on physnet1 has id 5000" in report.failed["p4"]
    assert (report.missing, report.isolated) == ([], ["p4"])  # not wired: not forwarding either
    assert fake.probes == 0  # a configured datapath type is not probed


def test_cookie_of_printed_flows() -> None:
    assert cookie_of("+table=21 priority=70,ip cookie=0x5a50000000000001 actions=drop") == MARK | 1
    assert cookie_of("-priority=0 actions=NORMAL") == 0


def test_a_second_tap_with_the_same_port_id_is_isolated_alone(fake: FakeOvs) -> None:
    fake.plug("br-a", "tap-old", 5, "p1")
    fake.plug("br-a", "tap-new", 6, "p1")
    report = OvsReconciler({"physnet1": "br-a"}).reconcile_once([port("p1")])
    assert (report.up, report.isolated) == (["p1"], ["p1"])
    assert set(flows_for(port("p1"), 6)) <= ours(fake)
    assert (
        f"cookie={foreign_cookie('tap-old'):#x},table=0,priority=100,in_port=5,actions=drop"
        in ours(fake)
    )


def test_each_bridge_has_its_own_networks(fake: FakeOvs) -> None:
    fake.plug("br-a", "tap1", 5, "p1")
    fake.plug("br-b", "tap2", 5, "p2")
    agent = OvsReconciler({"physnet1": "br-a", "physnet2": "br-b"})
    agent.reconcile_once([port("p1", vlan=100), port("p2", vlan=100, physnet="physnet2")])
    assert ours(fake, "br-b") == set(base_flows(1) + flows_for(port("p2", 100, "physnet2"), 5, 1))
    assert ours(fake, "br-a") == set(base_flows(0) + flows_for(port("p1", 100), 5, 0))


def test_at_most_sixteen_bridges() -> None:
    with pytest.raises(L2Error, match="at most 16 bridges"):
        OvsReconciler({f"physnet{i}": f"br-{i}" for i in range(17)})
