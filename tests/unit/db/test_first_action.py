"""The conductor's first action of a new instance: written without looking anything up."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.cell import actions, instances, models
from tests.unit.db.instance_helpers import make


def _first(engine: sa.Engine, result: str, details: str | None = None) -> tuple[str, list[str]]:
    made, seen = make(), []

    def record(*args: Any) -> None:
        seen.append(str(args[2]).lstrip().split()[0].upper())

    with Session(engine) as session, session.begin():
        instances.insert(session, made)
        sa.event.listen(engine, "before_cursor_execute", record)
        actions.first_action(session, made.uuid, "req-1", "create", "conductor_schedule",
                             result, project_id="p1", user_id="u1", details=details)  # fmt: skip
        sa.event.remove(engine, "before_cursor_execute", record)
    return made.uuid, seen


def test_the_first_action_and_event_are_written_without_a_select(engine: sa.Engine) -> None:
    uuid, seen = _first(engine, "Success")
    assert "SELECT" not in seen and seen.count("INSERT") == 2, seen
    with Session(engine) as session:
        action = session.scalars(sa.select(models.InstanceAction)).one()
        event = session.scalars(sa.select(models.InstanceActionEvent)).one()
    assert (action.instance_uuid, action.request_id, action.action) == (uuid, "req-1", "create")
    assert action.finish_time is not None and action.message is None
    assert (event.action_id, event.event, event.result) == (action.id, "conductor_schedule",
                                                            "Success")  # fmt: skip
    assert event.finish_time is not None


def test_a_failed_first_event_marks_the_action_as_an_error(engine: sa.Engine) -> None:
    _first(engine, "Error", details="No valid host was found.")
    with Session(engine) as session:
        action = session.scalars(sa.select(models.InstanceAction)).one()
        event = session.scalars(sa.select(models.InstanceActionEvent)).one()
    assert action.message == "Error"
    assert (event.result, event.details) == ("Error", "No valid host was found.")


def test_events_of_two_instances_are_looked_up_by_the_same_statements(engine: sa.Engine) -> None:
    """An event's start and finish find the action and the open event with statements
    built once; each still closes its own instance's event."""
    uuids = [_first(engine, "Success")[0], _first(engine, "Success")[0]]
    seen: list[object] = []
    with Session(engine) as session, session.begin():
        sa.event.listen(session, "do_orm_execute", lambda state: seen.append(state.statement))
        for uuid in uuids:
            assert actions.event_start(session, uuid, "req-1", "compute_build", "h1")
            assert actions.event_finish(session, uuid, "req-1", "compute_build", "Success")
    assert len(seen) == 6 and all(a is b for a, b in zip(seen[:3], seen[3:], strict=True))
    with Session(engine) as session:
        events = session.scalars(
            sa.select(models.InstanceActionEvent).where(
                models.InstanceActionEvent.event == "compute_build"
            )
        ).all()
    assert sorted(e.result or "" for e in events) == ["Success", "Success"]
