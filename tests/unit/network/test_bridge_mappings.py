"""bridge_mappings parsing, and which mechanism (and so which mappings) a host uses."""

from __future__ import annotations

import shutil

import pytest

from saphira import conf as saphira_conf
from saphira.network.l2.errors import L2Error
from saphira.network.l2.mappings import host_bridge_mappings, mechanism, parse_bridge_mappings


def test_a_string_or_a_list() -> None:
    expected = {"physnet1": "br-physnet1", "physnet2": "br-vlan"}
    assert parse_bridge_mappings("physnet1:br-physnet1, physnet2:br-vlan") == expected
    assert parse_bridge_mappings(["physnet1:br-physnet1", "physnet2 : br-vlan", ""]) == expected
    assert parse_bridge_mappings("") == {}


@pytest.mark.parametrize(
    ("value", "complaint"),
    [
        ("physnet1", "is not <physical network>:<bridge>"),
        ("physnet1:", "is not"),
        (":br-x", "is not"),
        ("a:b:c", "is not"),
        ("physnet1:br-a,physnet1:br-b", "physnet1 is mapped twice"),
        ("physnet1:br-a,physnet2:br-a", "br-a serves two physical networks"),
        ("physnet1:br-0123456789abcd", "longer than 15 characters"),
    ],
)
def test_bad_mappings_are_named(value: str, complaint: str) -> None:
    with pytest.raises(L2Error, match=complaint):
        parse_bridge_mappings(value)


@pytest.mark.parametrize(
    ("drivers", "ovs_installed", "expected"),
    [
        (["openvswitch", "linuxbridge"], True, "openvswitch"),
        (["openvswitch", "linuxbridge"], False, "linuxbridge"),
        (["linuxbridge", "openvswitch"], True, "linuxbridge"),
        (["openvswitch"], False, None),
    ],
)
def test_the_first_mechanism_the_host_has(
    monkeypatch: pytest.MonkeyPatch, drivers: list[str], ovs_installed: bool, expected: str | None
) -> None:
    conf = saphira_conf.load([])
    conf.set_override("mechanism_drivers", drivers, group="ml2")
    conf.set_override("bridge_mappings", ["physnet1:br-lb"], group="linux_bridge")
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/x" if ovs_installed else None)
    assert mechanism(conf) == expected
    if expected:
        wanted = {"physnet1": "br-lb" if expected == "linuxbridge" else "br-physnet1"}
        assert host_bridge_mappings(conf) == wanted
