"""The DHCP agent's report of what each dnsmasq leased, read from its lease file."""

from __future__ import annotations

from pathlib import Path

from saphira.network.dhcp import leases

NOW = 1_800_000_000


def test_live_leases_per_network_and_a_served_network_without_any(tmp_path: Path) -> None:
    (tmp_path / "net-a").mkdir()
    (tmp_path / "net-a" / "leases").write_text(
        f"{NOW + 600} FA:16:3E:00:00:01 10.0.0.5 host-a 01:fa:16:3e:00:00:01\n"
        f"{NOW - 1} fa:16:3e:00:00:02 10.0.0.6 * *\n"  # expired
        "0 fa:16:3e:00:00:03 10.0.0.7 * *\n"  # never expires
        "duid 00:01:00:01:2c:00:00:00\n"  # dnsmasq's IPv6 server id line
    )
    (tmp_path / "net-b").mkdir()  # dnsmasq started, nothing leased yet: no file
    assert leases.leased(tmp_path, now=NOW) == {
        "net-a": ["fa:16:3e:00:00:01", "fa:16:3e:00:00:03"],
        "net-b": [],
    }


def test_no_served_network(tmp_path: Path) -> None:
    assert leases.leased(tmp_path / "missing") == {}
