"""Fixtures of the broker-restart tests: a database server (each backend in
turn) and a private RabbitMQ node the test may stop and start."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.broker import PrivateBroker, available, private_broker
from tests.integration.up.test_up_on_servers import databases

__all__ = ["databases", "rabbit_node"]


@pytest.fixture
def rabbit_node(tmp_path: Path) -> Iterator[PrivateBroker]:
    if not available():
        pytest.fail("rabbitmq-server (and erl) not installed (tools/dev setup installs them)")
    with private_broker(tmp_path / "rabbit") as broker:
        yield broker
