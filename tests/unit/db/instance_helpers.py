"""Builders and a two-thread race, shared by the SQLite and server tests."""

from __future__ import annotations

import threading
import uuid

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db import migration
from saphira.db.cell import instances
from saphira.domain import transitions as tr
from saphira.domain.states import TaskState, VmState
from saphira.domain.table import Action
from saphira.exception import InstanceInvalidState
from saphira.objects import Flavor, Instance

TINY = Flavor("1", "m1.tiny", 1, 512, 1)
SMALL = Flavor("2", "m1.small", 1, 2048, 20)


def make(name: str = "vm", project: str = "p1") -> Instance:
    """A new m1.tiny instance; ``dataclasses.replace`` it for other fields."""
    return Instance(str(uuid.uuid4()), project, "u1", flavor=TINY, display_name=name)


def migrated(engine: sa.Engine) -> sa.Engine:
    migration.upgrade("cell", engine)
    return engine


def active(session: Session, instance: Instance) -> Instance:
    instances.create(session, instance)
    for step in (TaskState.SCHEDULING, TaskState.BLOCK_DEVICE_MAPPING, TaskState.NETWORKING):
        instances.apply(session, instance.uuid, tr.advance(Action.BUILD, VmState.BUILDING, step))
    instances.apply(session, instance.uuid, tr.finish(Action.BUILD, VmState.BUILDING))
    return instances.get(session, instance.uuid)


def race(engine: sa.Engine, uuid_: str, action: Action, runners: int = 2) -> list[str]:
    """``runners`` threads try the same transition at once; returns each outcome."""
    barrier = threading.Barrier(runners)
    outcomes: list[str] = []
    lock = threading.Lock()

    def attempt() -> None:
        move = tr.begin(action, VmState.ACTIVE, None)
        barrier.wait()
        try:
            with Session(engine) as session, session.begin():
                instances.apply(session, uuid_, move, method=action.value)
            result = "won"
        except InstanceInvalidState as error:
            result = f"lost: {error.kwargs['attr']}={error.kwargs['state']}"
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=attempt) for _ in range(runners)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(outcomes)
