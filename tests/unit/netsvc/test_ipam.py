"""IPAM decides by the database: an address another transaction took is skipped, not reused."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saphira.db.engine import make_engine
from saphira.db.network import Database, sync
from saphira.netsvc import access, addresses, ipam, networks, ports, subnets
from tests.functional.network.races import Racer


@pytest.fixture
def racer(tmp_path: Path) -> Iterator[Racer]:
    engine = make_engine(f"sqlite:///{tmp_path / 'neutron.sqlite'}")
    sync(engine)
    yield Racer(Database(engine), tmp_path)
    engine.dispose()


def test_a_stale_free_list_costs_a_retry_not_a_duplicate(
    racer: Racer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with racer.db.writer() as session:
        network = networks.create(session, racer.caller(), racer.settings, {})
        attrs = {"network_id": network.id, "cidr": "10.0.0.0/29", "ip_version": 4}
        subnets.create(session, racer.caller(), racer.settings, attrs)
        first = ports.create(session, racer.caller(), racer.settings, {"network_id": network.id})
        taken = first.fixed_ips[0].ip_address
    real_free = addresses.free  # what ipam calls as ``free``
    stale = iter([[taken]])  # what a transaction that read before the other's commit would see
    monkeypatch.setattr(ipam, "free", lambda *a: next(stale, None) or real_free(*a))
    with racer.db.writer() as session:
        second = ports.create(session, racer.caller(), racer.settings, {"network_id": network.id})
        address = second.fixed_ips[0].ip_address
    assert address != taken
    with racer.db.reader() as session:
        stored = [p.fixed_ips[0].ip_address for p in session.scalars(access.ports(racer.caller()))]
    assert sorted(stored) == sorted([taken, address])
