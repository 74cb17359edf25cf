"""The DHCP agent's files: written only on change, reachable by dnsmasq's unprivileged user."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from saphira.network.dhcp import agent, files
from saphira.network.dhcp.errors import DhcpError
from saphira.network.dhcp.interface import interface_driver
from saphira.objects.network import DhcpHost, DhcpNetwork, Segment


def test_write_if_changed_writes_once_world_readable(tmp_path: Path) -> None:
    path = tmp_path / "host"
    assert files.write_if_changed(path, "a\n")
    assert not files.write_if_changed(path, "a\n")
    assert files.write_if_changed(path, "b\n")
    assert path.read_text() == "b\n"
    assert path.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["host"]


def test_a_private_ancestor_is_named() -> None:
    with tempfile.TemporaryDirectory(prefix="sxdh") as top:
        private = Path(top)  # made 0700, under /tmp which anyone may traverse
        (private / "state").mkdir()
        with pytest.raises(DhcpError, match=f"{private} is not traversable"):
            files.check_reachable(private / "state")
        private.chmod(0o711)
        files.check_reachable(private / "state")


@pytest.mark.parametrize("network_id", ["", "..", "../etc", "a/b", ".hidden"])
def test_a_network_id_never_leaves_the_dhcp_directory(network_id: str, tmp_path: Path) -> None:
    with pytest.raises(DhcpError, match="cannot name a directory"):
        files.NetworkFiles.under(tmp_path, network_id)


def test_served_networks_are_the_directories(tmp_path: Path) -> None:
    assert files.served_networks(tmp_path / "missing") == []
    files.ensure_dir(tmp_path / "n2")
    files.ensure_dir(tmp_path / "n1")
    (tmp_path / "stray-file").write_text("")
    assert files.served_networks(tmp_path) == ["n1", "n2"]
    assert (tmp_path / "n1").stat().st_mode & 0o777 == 0o711


def test_interface_drivers_by_name() -> None:
    assert type(interface_driver("ovs")).__name__ == "OvsInterface"
    assert type(interface_driver("linuxbridge")).__name__ == "BridgeInterface"
    with pytest.raises(DhcpError, match="unknown interface driver 'macvtap'"):
        interface_driver("macvtap")


def _net(segment: Segment) -> DhcpNetwork:
    return DhcpNetwork("n", segment, DhcpHost("p", "fa:16:3e:00:00:01"))


def test_mapped_bridges_tag_vlans_on_the_physnet_bridge() -> None:
    wiring = agent.mapped_bridges({"physnet1": "br-physnet1"})
    assert wiring(_net(Segment("flat", "physnet1"))) == agent.Wire("br-physnet1", None)
    assert wiring(_net(Segment("vlan", "physnet1", 42))) == agent.Wire("br-physnet1", 42)
    with pytest.raises(DhcpError, match="physnet2"):
        wiring(_net(Segment("flat", "physnet2")))
