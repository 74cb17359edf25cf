"""Concurrent creates straight against the network logic, on any database.

Shared by the SQLite test here and the PostgreSQL/MariaDB tests in
tests/integration/db: the same race must come out the same everywhere.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import sqlalchemy as sa

import saphira.conf
from saphira.context import RequestContext
from saphira.db.network.models import IPAllocation
from saphira.db.network.models_ext import DefaultSecurityGroup
from saphira.db.transactions import Database
from saphira.exception import SaphiraError
from saphira.netsvc import networks, ports, secgroups, subnets
from saphira.netsvc.caller import Caller
from saphira.netsvc.settings import Settings
from saphira.policy import Enforcer

THREADS = 20
ROLES = ("admin", "member", "reader")


class Racer:
    def __init__(self, db: Database, state_path: Path) -> None:
        self.db = db
        conf = saphira.conf.load(overrides={"DEFAULT": {"state_path": str(state_path)}})
        self.enforcer = Enforcer(conf)
        self.settings = Settings()

    def caller(self, project: str = "p-race") -> Caller:
        ctx = RequestContext(user_id="u-race", project_id=project, roles=ROLES)
        return Caller(ctx, self.enforcer)

    def at_once(self, work: Callable[[int], Any], threads: int = THREADS) -> list[Any]:
        """Run ``work`` in ``threads`` threads released together; results or error names."""
        barrier = threading.Barrier(threads)

        def one(index: int) -> Any:
            barrier.wait()
            try:
                return work(index)
            except SaphiraError as error:
                return type(error).__name__

        with ThreadPoolExecutor(threads) as pool:
            return list(pool.map(one, range(threads)))


def port_race(racer: Racer, cidr: str = "10.9.0.0/28") -> tuple[list[Any], list[str]]:
    """20 ports at once on one small subnet: each thread's result, and every stored address."""
    with racer.db.writer() as session:
        network = networks.create(session, racer.caller(), racer.settings, {"name": "race"})
        subnet = subnets.create(
            session, racer.caller(), racer.settings,
            {"network_id": network.id, "cidr": cidr, "ip_version": 4},
        )  # fmt: skip
        net_id, subnet_id = network.id, subnet.id

    def create(_index: int) -> str:
        with racer.db.writer() as session:
            port = ports.create(session, racer.caller(), racer.settings, {"network_id": net_id})
            return port.fixed_ips[0].ip_address

    results = racer.at_once(create)
    with racer.db.reader() as session:
        stored = list(
            session.scalars(
                sa.select(IPAllocation.ip_address).where(IPAllocation.subnet_id == subnet_id)
            )
        )
    return results, stored


def default_group_race(racer: Racer, project: str = "p-first-use") -> set[str]:
    """Many first uses of a project at once: the default group ids they were given."""

    def ensure(_index: int) -> str:
        with racer.db.writer() as session:
            return secgroups.ensure_default(session, project)

    given = set(racer.at_once(ensure, threads=10))
    with racer.db.reader() as session:
        rows = session.scalars(
            sa.select(DefaultSecurityGroup).where(DefaultSecurityGroup.project_id == project)
        ).all()
    assert len(rows) == 1
    return given | {rows[0].security_group_id}
