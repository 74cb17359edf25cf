"""Service records and compute nodes in a cell database (written by the
conductor on the agents' behalf)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import uuid as uuidlib

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.cell import models
from saphira.objects import ComputeNode, Service

_NODE_COPY = (
    "host", "hypervisor_hostname", "hypervisor_type", "hypervisor_version", "host_ip",
    "vcpus", "memory_mb", "local_gb", "vcpus_used", "memory_mb_used", "local_gb_used",
    "cpu_info",
)  # fmt: skip


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def heartbeat(session: Session, host: str, binary: str, topic: str | None) -> Service:
    """Create the record on the first beat; then bump last_seen_up and report_count."""
    query = sa.select(models.Service).filter_by(host=host, binary=binary, deleted=0)
    row = session.scalars(query).first()
    if row is None:
        row = models.Service(
            uuid=str(uuidlib.uuid4()), host=host, binary=binary, topic=topic, report_count=0
        )
        session.add(row)
    row.report_count = (row.report_count or 0) + 1
    row.last_seen_up = _now()
    session.flush()
    return _service(row)


def down_hosts(session: Session, binary: str, down_time: int) -> list[str]:
    """Hosts whose last heartbeat is older than ``down_time`` seconds (or forced down)."""
    limit = _now() - dt.timedelta(seconds=down_time)
    t = models.Service
    query = sa.select(t.host).where(
        t.binary == binary,
        t.deleted == 0,
        sa.or_(t.forced_down.is_(True), t.last_seen_up < limit),
    )
    return sorted(set(session.scalars(query)))


def node_upsert(session: Session, node: ComputeNode) -> ComputeNode:
    """By (host, hypervisor_hostname); the service link is the host's compute service."""
    t = models.ComputeNode
    query = sa.select(t).filter_by(
        host=node.host, hypervisor_hostname=node.hypervisor_hostname, deleted=0
    )
    row = session.scalars(query).first()
    if row is None:
        row = models.ComputeNode(uuid=node.uuid or str(uuidlib.uuid4()))
        session.add(row)
    for name in _NODE_COPY:
        setattr(row, name, getattr(node, name))
    service = session.scalars(
        sa.select(models.Service.id).filter_by(host=node.host, binary="nova-compute", deleted=0)
    ).first()
    row.service_id = service
    row.updated_at = _now()
    session.flush()
    return dataclasses.replace(node, uuid=row.uuid, id=row.id, service_id=service)


def _service(row: models.Service) -> Service:
    return Service(
        uuid=row.uuid, host=row.host, binary=row.binary, topic=row.topic,
        disabled=bool(row.disabled), disabled_reason=row.disabled_reason,
        forced_down=bool(row.forced_down), last_seen_up=row.last_seen_up,
        report_count=row.report_count, version=row.version, id=row.id,
    )  # fmt: skip
