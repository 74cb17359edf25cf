"""What a compute agent writes into its cell database, and table snapshots.

Shared by the unit and integration tests of cells v2 so both drive discovery
the same way a real compute host would.
"""

from __future__ import annotations

import uuid

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.cell.models import ComputeNode, Service
from saphira.db.engine import make_engine


def register_compute(cell_url: str, host: str, binary: str = "nova-compute") -> str:
    """Insert a service and its compute node as an agent does; returns the node UUID."""
    engine = make_engine(cell_url)
    try:
        with Session(engine) as session, session.begin():
            service = Service(uuid=str(uuid.uuid4()), host=host, binary=binary, topic="compute")
            session.add(service)
            session.flush()
            node = ComputeNode(
                uuid=str(uuid.uuid4()),
                service_id=service.id,
                host=host,
                hypervisor_hostname=f"{host}.example.org",
                hypervisor_type="QEMU",
                vcpus=4,
                memory_mb=8192,
                local_gb=40,
            )
            session.add(node)
            session.flush()
            return node.uuid
    finally:
        engine.dispose()


def mapped_flags(cell_url: str) -> dict[str, int]:
    engine = make_engine(cell_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT host, mapped FROM compute_nodes"))
            return {row.host: row.mapped for row in rows}
    finally:
        engine.dispose()


def snapshot(url: str) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table, to show that a second run changed nothing."""
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            tables = sa.inspect(conn).get_table_names()
            return {
                name: sorted(
                    (tuple(row) for row in conn.execute(sa.text(f"SELECT * FROM {name}"))),
                    key=repr,
                )
                for name in sorted(tables)
            }
    finally:
        engine.dispose()
