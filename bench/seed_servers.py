"""Rows the benchmark writes straight into the databases: copies of a server, an L2 agent.

Building 9,000 servers through the API would take most of an hour here (and
more vCPUs than the host has), and only the list is measured on them, so the
benchmark makes a few through the API and copies one of them: its cell row
and network info cache, its instance mapping and request spec in the API
database, each copy with a uuid, name and creation time of its own. The
copies are what a build leaves in the tables a list reads; they have no
placement allocations and no action records, and the fake driver does not
know them (so the benchmark turns the power-state sync off).

A build on a network needs its port bound, which needs an alive L2 agent on
the host mapping the network's physical network to a bridge. The fake host
has none (a real one would wire Open vSwitch), so ``l2_agent`` records one
whose heartbeat lies a day ahead: binding succeeds, nothing is wired, and the
fake driver does not wait for a plug event.
"""

from __future__ import annotations

import datetime as dt
import uuid
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from saphira.db.api.models import CellMapping, InstanceMapping, RequestSpec
from saphira.db.cell.models import Instance, InstanceInfoCache
from saphira.db.engine import make_engine
from saphira.db.network.models_ext import Agent
from saphira.objects.network import OVS_AGENT

BATCH = 1000


def _table(model: Any) -> sa.Table:
    return model.metadata.tables[model.__tablename__]  # type: ignore[no-any-return]


def _row(conn: Connection, table: sa.Table, column: str, value: str) -> dict[str, Any]:
    row = conn.execute(sa.select(table).where(table.c[column] == value)).mappings().one()
    return {key: item for key, item in row.items() if key != "id"}


def _copies(template: dict[str, Any], column: str, ids: list[str], **extra: Any) -> list[Any]:
    return [{**template, column: new, **{k: f(new) for k, f in extra.items()}} for new in ids]


def seed(state_dir: Path, template_uuid: str, count: int) -> None:
    """``count`` copies of the server ``template_uuid`` in its cell and the API database."""
    api = make_engine(f"sqlite:///{state_dir / 'nova_api.sqlite'}")
    mappings, specs = _table(InstanceMapping), _table(RequestSpec)
    with api.begin() as conn:
        mapping = _row(conn, mappings, "instance_uuid", template_uuid)
        spec = _row(conn, specs, "instance_uuid", template_uuid)
        url = conn.execute(
            sa.select(CellMapping.database_connection).where(CellMapping.id == mapping["cell_id"])
        ).scalar_one()
    cell = make_engine(url)
    instances, caches = _table(Instance), _table(InstanceInfoCache)
    with cell.begin() as conn:
        server = _row(conn, instances, "uuid", template_uuid)
        cache = _row(conn, caches, "instance_uuid", template_uuid)
    start = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    for first in range(0, count, BATCH):
        ids = [str(uuid.uuid4()) for _ in range(min(BATCH, count - first))]
        stamp = {i: start + dt.timedelta(microseconds=first + n) for n, i in enumerate(ids)}
        with cell.begin() as conn:
            conn.execute(instances.insert(), _copies(
                server, "uuid", ids, display_name=lambda i: f"seed-{i[:8]}",
                hostname=lambda i: f"seed-{i[:8]}", created_at=stamp.__getitem__,
            ))  # fmt: skip
            conn.execute(caches.insert(), _copies(cache, "instance_uuid", ids))
        with api.begin() as conn:
            conn.execute(mappings.insert(), _copies(mapping, "instance_uuid", ids))
            conn.execute(specs.insert(), _copies(
                spec, "instance_uuid", ids,
                spec=lambda i: spec["spec"].replace(template_uuid, i),
            ))  # fmt: skip
    api.dispose()
    cell.dispose()


def l2_agent(state_dir: Path, host: str, physnet: str = "physnet1") -> None:
    """An Open vSwitch agent on ``host`` that reports ``physnet`` on a bridge, alive a day."""
    engine = make_engine(f"sqlite:///{state_dir / 'neutron.sqlite'}")
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    ahead = now + dt.timedelta(days=1)
    agent = {"id": str(uuid.uuid4()), "agent_type": OVS_AGENT, "host": host,
             "binary": "neutron-openvswitch-agent", "topic": "N/A", "admin_state_up": True,
             "created_at": now, "started_at": now, "heartbeat_timestamp": ahead,
             "configurations": {"bridge_mappings": {physnet: "br-bench"}}}  # fmt: skip
    with engine.begin() as conn:
        conn.execute(_table(Agent).insert(), [agent])
    engine.dispose()
