"""Planning the Linux bridges for the desired ports (pure), and running a plan."""

from __future__ import annotations

import pytest

from saphira.network.l2 import linuxbridge
from saphira.network.l2.linuxbridge_plan import Step, plan, vlan_bridge, vlan_device
from saphira.objects.network import PortDetails, Segment
from saphira.privsep.links import Link
from saphira.privsep.runner import PrivsepError

MAPPINGS = {"physnet1": "br1"}
A_ID, B_ID = "aaaaaaaa-1111-4000-8000-000000000001", "bbbbbbbb-2222-4000-8000-000000000002"
A_TAP, B_TAP = "tapaaaaaaaa-11", "tapbbbbbbbb-22"
NET = "0123456789abcdef"
BRQ, VLAN_DEV = "brq0123456789a", "br1.100"


def link(
    name: str,
    kind: str | None = "tun",
    *,
    master: str | None = None,
    up: bool = True,
    mtu: int = 1500,
) -> Link:
    return Link(name, "", mtu, up, master, kind)


def host(*found: Link) -> dict[str, Link]:
    return {item.name: item for item in (link("br1", "bridge"), *found)}


def port(port_id: str = A_ID, segment: Segment | None = None, **fields: object) -> PortDetails:
    made = PortDetails(port_id, NET, "fa:16:3e:00:00:01", segment or Segment("flat", "physnet1"))
    for name, value in fields.items():
        setattr(made, name, value)
    return made


def actions(steps: list[Step]) -> list[tuple[object, ...]]:
    return [(step.action, *step.args) for step in steps]


def test_a_tap_libvirt_plugged_needs_nothing() -> None:
    done = plan([port()], host(link(A_TAP, master="br1")), {}, MAPPINGS)
    assert done.steps == [] and done.present == {A_ID: A_TAP}
    assert done.bridges == {"br1"} and done.users == {"br1": [A_ID]}


def test_the_bridge_is_made_and_a_loose_tap_plugged_up_with_the_mtu() -> None:
    loose = link(A_TAP, up=False, mtu=9000)
    segment = Segment("flat", "physnet1", mtu=1450)
    done = plan([port(segment=segment)], {A_TAP: loose}, {}, MAPPINGS)
    assert actions(done.steps) == [
        ("create_bridge", "br1"),
        ("set_up", "br1"),
        ("set_master", A_TAP, "br1"),
        ("set_mtu", A_TAP, 1450),
        ("set_up", A_TAP),
    ]
    assert {step.needs for step in done.steps[2:]} == {"br1"}


def test_missing_taps_unmapped_networks_and_foreign_bridges() -> None:
    elsewhere = port(B_ID, Segment("flat", "physnet2"))
    done = plan([port(), elsewhere], host(), {}, MAPPINGS)
    assert done.missing == [A_ID] and done.steps == []
    assert "physnet2" in done.failed[B_ID]
    ovs = plan([port()], {"br1": link("br1", "openvswitch")}, {}, MAPPINGS)
    assert "not a Linux bridge" in ovs.failed[A_ID]
    gre = plan([port(segment=Segment("gre", "physnet1", 5))], host(), {}, MAPPINGS)
    assert "gre" in gre.failed[A_ID]


def test_a_vlan_network_gets_a_vlan_device_then_its_bridge() -> None:
    segment = Segment("vlan", "physnet1", 100)
    done = plan([port(segment=segment), port(B_ID, segment)], host(), {}, MAPPINGS)
    assert actions(done.steps) == [
        ("create_vlan", VLAN_DEV, "br1", 100),
        ("create_bridge", BRQ),
        ("set_up", BRQ),
        ("set_master", VLAN_DEV, BRQ),
        ("set_up", VLAN_DEV),
    ]
    assert {step.owner for step in done.steps} == {BRQ}
    assert done.bridges == {"br1", BRQ} and done.users == {BRQ: [A_ID, B_ID]}
    assert done.missing == [A_ID, B_ID]


def test_a_vlan_device_on_the_wrong_vlan_is_remade() -> None:
    segment = Segment("vlan", "physnet1", 100)
    found = host(link(VLAN_DEV, "vlan", master=BRQ), link(BRQ, "bridge"))
    assert plan([port(segment=segment)], found, {VLAN_DEV: ("br1", 100)}, MAPPINGS).steps == []
    wrong = plan([port(segment=segment)], found, {VLAN_DEV: ("br1", 200)}, MAPPINGS)
    assert actions(wrong.steps)[:2] == [("delete", VLAN_DEV), ("create_vlan", VLAN_DEV, "br1", 100)]


def test_vlan_names_fit_in_fifteen_characters() -> None:
    assert vlan_device("br1", 4094) == "br1.4094"
    long = vlan_device("br-physnet-long", 4094)
    assert len(long) == 15 and long.endswith(".4094")
    assert vlan_bridge(NET) == BRQ


def test_unexplained_taps_are_isolated_and_unused_vlan_bridges_removed() -> None:
    found = host(
        link("tapstray0000-0", master="br1"),
        link("tapother00000-", master="br-other"),  # another agent's bridge: not ours to judge
        link(VLAN_DEV, "vlan", master=BRQ),
        link(BRQ, "bridge"),
        link("br9.100", "vlan", master="brqforeign0000"),
        link("brqforeign0000", "bridge"),
    )
    vlans = {VLAN_DEV: ("br1", 100), "br9.100": ("br9", 100)}
    done = plan([], found, vlans, MAPPINGS)
    assert done.isolated == ["tapstray0000-0"]
    assert actions(done.steps) == [("delete", VLAN_DEV), ("delete", BRQ)]
    found[A_TAP] = link(A_TAP, master=BRQ)
    kept = plan([], found, vlans, MAPPINGS)
    assert kept.steps == [] and kept.isolated == [A_TAP, "tapstray0000-0"]


def test_a_failed_step_skips_its_owner_and_fails_its_ports(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    segment = Segment("vlan", "physnet1", 100)
    done = plan([port(segment=segment)], host(link(A_TAP, master="br1")), {}, MAPPINGS)
    ran: list[str] = []

    def refuse(*args: object) -> None:
        raise PrivsepError(command="ip link add", status=2, detail="Unknown device type")

    monkeypatch.setattr(linuxbridge, "ACTIONS", {"create_vlan": refuse})
    report = linuxbridge.Report()
    monkeypatch.setitem(linuxbridge.ACTIONS, "set_master", lambda *a: ran.append("set_master"))
    touched = linuxbridge.LinuxBridgeReconciler(MAPPINGS)._plumb(done, report)
    assert ran == [] and touched == set()  # neither the bridge nor the tap's move ran
    assert "Unknown device type" in report.failed[A_ID]
