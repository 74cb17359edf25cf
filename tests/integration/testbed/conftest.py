"""One bed per test module (up once, shared by its tests, down at the end): ``bed``
(nodes and networks) or ``controlled_bed`` (with the controller on PostgreSQL
and RabbitMQ)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from saphira.devtools.testbed.bed import Bed, Servers
from saphira.devtools.testbed.layout import Layout
from saphira.devtools.testbed.runner import SystemRunner
from tests.environment import require_tools, server_url


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
def controlled_bed() -> Iterator[Bed]:
    require_tools("socat", "rabbitmqctl")
    servers = Servers(server_url("SAPHIRA_TEST_POSTGRESQL"), server_url("SAPHIRA_TEST_RABBIT"))
    made = new_bed()
    try:
        made.up(servers=servers)
        yield made
    finally:
        assert made.down() == []
