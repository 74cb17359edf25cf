"""The bed's names, addresses and state file, without touching the machine."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from saphira.devtools.testbed.bed import choose_octet
from saphira.devtools.testbed.errors import TestbedError
from saphira.devtools.testbed.layout import Addresses, Layout, check_name
from saphira.devtools.testbed.node import _libvirt_copy_ignores
from saphira.devtools.testbed.runner import Result
from saphira.devtools.testbed.state import BedState, Started
from tests.unit.testbed.fakes import FakeRunner

LINUX_IFNAMSIZ = 15


def test_every_link_name_fits_linux_and_beds_do_not_share_names(tmp_path: Path) -> None:
    one, two = Layout("abcdef", run_dir=tmp_path), Layout("abcde", run_dir=tmp_path)
    names = [one.mgmt_bridge, one.provider_bridge]
    names += [one.veth(node, kind) for node in one.nodes for kind in "mp"]
    assert max(len(name) for name in names) <= LINUX_IFNAMSIZ
    assert len(set(names)) == len(names)
    others = {two.mgmt_bridge, two.provider_bridge, two.veth("node1", "m")}
    assert not others & set(names)
    assert one.netns("node1") != two.netns("node1")
    assert one.mount_ns("node1") != one.mount_ns("node2")


@pytest.mark.parametrize("bad", ["", "Dev", "1bed", "toolong", "a-b", "a b"])
def test_a_bad_bed_name_is_refused(bad: str) -> None:
    with pytest.raises(TestbedError, match="bed name"):
        check_name(bad)


def test_addresses() -> None:
    found = Addresses(123)
    assert (found.cidr, found.controller, found.node(0), found.node(1)) == (
        "10.123.0.0/24", "10.123.0.1", "10.123.0.11", "10.123.0.12",
    )  # fmt: skip


def _addresses(*local: str) -> Result:
    return Result(0, json.dumps([{"addr_info": [{"local": a} for a in local]}]), "")


def test_the_octet_avoids_the_hosts_addresses_and_other_beds(tmp_path: Path) -> None:
    layout = Layout("dev", run_dir=tmp_path)
    free = choose_octet(layout, FakeRunner({("ip", "-j", "-4", "addr"): _addresses()}))
    assert choose_octet(layout, FakeRunner({("ip", "-j", "-4", "addr"): _addresses()})) == free
    taken = FakeRunner({("ip", "-j", "-4", "addr"): _addresses(f"10.{free}.0.5", "127.0.0.1")})
    second = choose_octet(layout, taken)
    assert second != free
    BedState("other", second + 1, []).save(tmp_path / "other.json")
    assert choose_octet(layout, taken) not in (free, second + 1)


def test_state_round_trips_and_finds_reused_pids(tmp_path: Path) -> None:
    path = tmp_path / "bed.json"
    state = BedState("dev", 150, ["node1"], "mariadb")
    mine = state.add("node1/self", os.getpid())
    state.save(path)
    loaded = BedState.load(path)
    assert loaded == state
    assert mine.alive()
    assert not Started("x", mine.pid, mine.start + 1).alive()  # the same pid, another process
    assert BedState.load(tmp_path / "absent.json") is None


def test_the_nodes_libvirt_copy_leaves_the_hosts_domains_behind() -> None:
    names = ["instance-1.xml", "networks", "autostart", "qemu.conf"]
    assert _libvirt_copy_ignores("/etc/libvirt/qemu", names) == {"instance-1.xml", "autostart"}
    top = ["storage", "secrets", "qemu", "libvirtd.conf"]
    assert _libvirt_copy_ignores("/etc/libvirt", top) == {"storage", "secrets"}
