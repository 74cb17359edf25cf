"""Host states from every cell database, cached and refreshed incrementally.

A decision must not read 1,000 rows per request: the states live in memory
and, once ``[scheduler] host_state_ttl`` has passed, only the services and
compute nodes changed since the last read (by updated_at/created_at, with a
slack for writers' clock skew) are read again. Host mappings are re-read on
each refresh, so a host discovered meanwhile becomes schedulable.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from oslo_config import cfg

from saphira.db.cell.models import ComputeNode, Service
from saphira.db.cells import COMPUTE_BINARY
from saphira.db.directory import CellDirectory
from saphira.db.transactions import Database
from saphira.domain.sizing import DISK_GB, MEMORY_MB, VCPU
from saphira.scheduler.host_state import HostState

SLACK = dt.timedelta(seconds=5)
Now = Callable[[], dt.datetime]


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def _arch(cpu_info: str) -> str:
    try:
        info = json.loads(cpu_info or "{}")
    except ValueError:
        return "x86_64"
    return str(info.get("arch") or "x86_64") if isinstance(info, dict) else "x86_64"


class _CellReader:
    """One cell's nodes and compute services, kept current by delta reads."""

    def __init__(self, cell_uuid: str, database: Database) -> None:
        self.cell_uuid = cell_uuid
        self.database = database
        self.nodes: dict[str, Any] = {}
        self.services: dict[str, Any] = {}
        self._since: dt.datetime | None = None

    def refresh(self) -> None:
        with self.database.reader() as conn:
            newest = self._read(conn, Service, self.services, "host")
            newest = max(
                filter(None, [newest, self._read(conn, ComputeNode, self.nodes, "uuid")]),
                default=None,
            )
        if newest is not None:
            self._since = newest - SLACK

    def _read(self, conn: Any, model: Any, into: dict[str, Any], key: str) -> dt.datetime | None:
        changed = sa.func.coalesce(model.updated_at, model.created_at)
        stmt = sa.select(model.__table__, changed.label("changed"))
        if model is Service:
            stmt = stmt.where(Service.binary == COMPUTE_BINARY)
        if self._since is not None:
            stmt = stmt.where(changed >= self._since)
        newest: dt.datetime | None = None
        for row in conn.execute(stmt):
            if row.deleted:
                into.pop(getattr(row, key), None)
            else:
                into[getattr(row, key)] = row
            if row.changed is not None and (newest is None or row.changed > newest):
                newest = row.changed
        return newest


class HostManager:
    def __init__(
        self,
        conf: cfg.ConfigOpts,
        *,
        now: Now = utcnow,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.conf = conf
        self._now, self._clock = now, clock
        self.directory = CellDirectory.shared(conf)  # the process's, as the API's
        self._cells: dict[str, _CellReader] = {}
        self._mapped: dict[str, str] = {}  # host -> cell uuid
        self._lock = threading.Lock()  # guards the published states
        self._reload_lock = threading.Lock()  # one reader of the databases at a time
        self._refreshed = float("-inf")
        self._states: list[HostState] = []
        self._loaded = False
        self._refresher: threading.Thread | None = None

    def invalidate(self) -> None:
        """Read everything changed on the next call (e.g. after a host discovery)."""
        with self._lock:
            self._refreshed = float("-inf")

    def hosts(self) -> list[HostState]:
        """Every compute node of every cell (cell0 excluded), mapped or not.

        With a positive TTL, states older than the TTL but read within the last
        two TTLs are refreshed by a background thread while decisions go on
        with them, so no decision of a busy scheduler waits for the databases;
        older ones (a scheduler idle since its start read no host a node that
        joined meanwhile) are read again first, as is everything on the first
        call and on every call with a zero TTL: no decision uses states more
        than two TTLs old.
        """
        ttl = float(self.conf.scheduler.host_state_ttl)
        with self._lock:
            age = self._clock() - self._refreshed
            if age < ttl:
                return self._states
            background = ttl > 0 and self._loaded and age < 2 * ttl
            if background and (self._refresher is None or not self._refresher.is_alive()):
                self._refresher = threading.Thread(
                    target=self._reload, name="scheduler-host-states", daemon=True
                )
                self._refresher.start()
            if background:
                return self._states
        self._reload()
        return self._states

    def _reload(self) -> None:
        """Read the changes and swap in new states; readers are touched by one thread only."""
        with self._reload_lock:
            self._refresh()
            now = self._now()
            states = [
                self._state(reader, row, now)
                for reader in self._cells.values()
                for row in reader.nodes.values()
            ]
        with self._lock:
            self._states, self._loaded, self._refreshed = states, True, self._clock()

    def _refresh(self) -> None:
        cells = self.directory.cells()
        self._mapped = self.directory.host_cells()
        for cell in cells:
            if cell.uuid not in self._cells:
                self._cells[cell.uuid] = _CellReader(cell.uuid, self.directory.database(cell.url))
        for gone in set(self._cells) - {cell.uuid for cell in cells}:
            del self._cells[gone]
        for reader in self._cells.values():
            reader.refresh()

    def _state(self, reader: _CellReader, node: Any, now: dt.datetime) -> HostState:
        service = reader.services.get(node.host)
        seen = (
            None
            if service is None
            else (service.last_seen_up or service.updated_at or service.created_at)
        )
        down_after = dt.timedelta(seconds=int(self.conf.service_down_time))
        return HostState(
            host=node.host,
            node=node.hypervisor_hostname,
            uuid=node.uuid,
            cell_uuid=reader.cell_uuid,
            mapped=self._mapped.get(node.host) == reader.cell_uuid,
            availability_zone=str(self.conf.default_availability_zone),
            service_disabled=bool(service is not None and service.disabled),
            disabled_reason=None if service is None else service.disabled_reason,
            forced_down=bool(service is not None and service.forced_down),
            last_seen_up=seen,
            service_up=seen is not None and now - seen <= down_after,
            has_service=service is not None,
            hypervisor_type=node.hypervisor_type or "",
            hypervisor_version=int(node.hypervisor_version or 0),
            arch=_arch(node.cpu_info),
            total={VCPU: node.vcpus, MEMORY_MB: node.memory_mb, DISK_GB: node.local_gb},
        )

    def close(self) -> None:
        with self._reload_lock:
            self._cells.clear()
        self.directory.dispose()


__all__ = ["HostManager", "HostState"]
