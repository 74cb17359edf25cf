"""One bed per test module (up once, shared by its tests, down at the end): ``bed``
(nodes and networks) or ``controlled_bed`` (with the controller on a PostgreSQL server
and a RabbitMQ node of its own, ``bed_database`` and ``bed_broker``, which a test may
kill or restart without touching the servers the other tests use)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from saphira.devtools.testbed.bed import Bed, Servers
from saphira.devtools.testbed.layout import Layout
from saphira.devtools.testbed.runner import SystemRunner
from tests.environment import require_tools
from tests.integration.broker import PrivateBroker, broker_for_test
from tests.integration.private_pg import PrivatePostgres, private_postgresql


def new_bed() -> Bed:
    """A bed of its own name (t + 5 hex digits), so it runs beside a developer's."""
    return Bed(Layout(f"t{uuid.uuid4().hex[:5]}"), SystemRunner(), say=lambda line: None)


@pytest.fixture(scope="module")
def bed() -> Iterator[Bed]:
    made = new_bed()
    try:
        made.up()
        yield made
    finally:
        assert made.down() == []


@pytest.fixture(scope="module")
def bed_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivateBroker]:
    with broker_for_test(tmp_path_factory.mktemp("bed-rabbit") / "rabbit") as broker:
        yield broker


@pytest.fixture(scope="module")
def bed_database() -> Iterator[PrivatePostgres]:
    with private_postgresql() as server:
        yield server


@pytest.fixture(scope="module")
def controlled_bed(bed_broker: PrivateBroker, bed_database: PrivatePostgres) -> Iterator[Bed]:
    require_tools("socat")
    servers = Servers(bed_database.url, bed_broker.url, bed_broker.ctl)
    made = new_bed()
    try:
        made.up(servers=servers)
        yield made
    finally:
        assert made.down() == []
