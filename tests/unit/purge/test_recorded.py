"""What purge reads from a state directory: the bridges made, host.json, the DHCP directories."""

from __future__ import annotations

from pathlib import Path

from saphira import conf as saphira_conf
from saphira.service.purge import recorded


def test_bridges_made_are_recorded_once_each(tmp_path: Path) -> None:
    assert recorded.created_bridges(str(tmp_path)) == []
    for name in ("br-a", "br-b", "br-a"):
        recorded.record_bridge(str(tmp_path), name)
    assert recorded.created_bridges(str(tmp_path)) == ["br-a", "br-b"]


def test_host_json_wins_over_what_purge_is_given(tmp_path: Path) -> None:
    started = saphira_conf.load(overrides={"DEFAULT": {
        "state_path": str(tmp_path), "instances_path": "/srv/guests"},
        "ml2": {"mechanism_drivers": ["linuxbridge"]},
        "linux_bridge": {"bridge_mappings": ["physnet1:br-ex", "physnet2:br-op"]}})  # fmt: skip
    recorded.write_record(started)
    bare = saphira_conf.load(overrides={"DEFAULT": {"state_path": str(tmp_path)}})
    record = recorded.host_record(str(tmp_path), bare)
    assert record == recorded.HostRecord("/srv/guests", ("br-ex", "br-op"), "qemu:///system")


def test_without_host_json_the_configuration_says_where(tmp_path: Path) -> None:
    conf = saphira_conf.load(overrides={"DEFAULT": {"state_path": str(tmp_path)}})
    record = recorded.host_record(str(tmp_path), conf)
    assert record.instances_path == str(tmp_path / "instances")


def test_networks_from_the_dhcp_directories_when_no_database_was_made(tmp_path: Path) -> None:
    (tmp_path / "dhcp" / "net-1").mkdir(parents=True)
    conf = saphira_conf.load(overrides={"DEFAULT": {"state_path": str(tmp_path)}})
    found = recorded.read(str(tmp_path), conf, recorded.host_record(str(tmp_path), conf))
    assert (found.network_ids, found.port_ids) == (frozenset({"net-1"}), frozenset())
    assert not list(tmp_path.glob("*.sqlite"))  # looking made no database
