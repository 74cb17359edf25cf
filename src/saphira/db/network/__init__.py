"""The network database: Neutron's data (networks, subnets, ports, addresses,
security groups, agents, quotas) in its own Alembic history, so it can live on
its own server as Neutron's does."""

from __future__ import annotations

from oslo_config import cfg
from sqlalchemy.engine import Engine

from saphira.db import migration, urls
from saphira.db.transactions import Database


def database_url(conf: cfg.ConfigOpts) -> str:
    return urls.database_url(conf, "network_database")


def make_network_engine(conf: cfg.ConfigOpts) -> Engine:
    return urls.make_group_engine(conf, "network_database")


def sync(engine: Engine) -> None:
    """Bring the network schema to head; idempotent."""
    migration.upgrade("network", engine)


__all__ = ["Database", "database_url", "make_network_engine", "sync"]
