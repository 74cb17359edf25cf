"""IPAM under concurrency on SQLite: twenty ports at once on a /28 never share an address."""

from __future__ import annotations

import ipaddress
from pathlib import Path

from saphira.db.engine import make_engine
from saphira.db.network import Database, sync
from tests.functional.network.races import THREADS, Racer, default_group_race, port_race

POOL = 13  # a /28: 16 addresses minus network, broadcast and gateway


def check_port_race(racer: Racer) -> None:
    results, stored = port_race(racer)
    given = [r for r in results if r != "IpAddressGenerationFailure"]
    assert len(given) == POOL, results
    assert len(set(given)) == POOL
    assert sorted(stored) == sorted(given)
    assert results.count("IpAddressGenerationFailure") == THREADS - POOL
    pool = ipaddress.ip_network("10.9.0.0/28")
    assert all(ipaddress.ip_address(a) in pool for a in given)
    assert "10.9.0.1" not in given


def test_twenty_ports_on_a_slash_28(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'neutron.sqlite'}")
    try:
        sync(engine)
        check_port_race(Racer(Database(engine), tmp_path))
    finally:
        engine.dispose()


def test_first_uses_make_one_default_group(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'neutron.sqlite'}")
    try:
        sync(engine)
        assert len(default_group_race(Racer(Database(engine), tmp_path))) == 1
    finally:
        engine.dispose()
