"""Fixtures of the fault tests: the process deployment's (a database, a RabbitMQ
virtual host of the test's own, a Deployment factory), and a deployment on a
RabbitMQ node and a PostgreSQL server of the test's own, for the test that kills
them."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from tests.integration.broker import PrivateBroker, broker_for_test
from tests.integration.deploy.conftest import deployment, deployments, rabbit_vhost
from tests.integration.deploy.deployment import Deployment
from tests.integration.private_pg import PrivatePostgres, private_postgresql
from tests.integration.up.test_up_on_servers import DATABASE_GROUPS, databases

__all__ = ["databases", "deployment", "private_deployment", "rabbit_vhost"]


@pytest.fixture
def private_deployment(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Callable[..., Deployment], PrivateBroker, PrivatePostgres]]:
    """``deployment``'s factory over a RabbitMQ node and a PostgreSQL server of the
    test's own, which it yields too; all stopped after."""
    with (
        broker_for_test(tmp_path_factory.mktemp("rabbit")) as broker,
        private_postgresql() as server,
        deployments(_databases(server.url), broker.url, "saphira-faults-") as make,
    ):
        yield make, broker, server


def _databases(base: str) -> dict[str, str]:
    """A database per group and the cell's _cell0, as ``databases`` makes them."""
    names = {group: f"saphira_{group}" for group in DATABASE_GROUPS}
    names["database"] = "saphira"
    engine = sa.create_engine(make_url(base).set(database="postgres"), isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        for name in [*names.values(), "saphira_cell0"]:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return {
        kind: make_url(base).set(database=name).render_as_string(hide_password=False)
        for kind, name in names.items()
    }
