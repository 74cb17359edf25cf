"""Server actions: the table's check, the compare-and-swap, and the record.

``run`` is the one path every action takes: the transition table decides
whether the instance may do it now (409 naming the current state, Nova's
words), the compare-and-swap in the cell makes that decision stick against
concurrent requests, and an instance action records the request id. Telling
the compute host is the caller's next step.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy.orm import Session

from saphira.computesvc.caller import Caller
from saphira.computesvc.lookup import Located, cell_session
from saphira.db.cell import instances
from saphira.db.cell import models as cell_models
from saphira.domain import transitions
from saphira.domain.table import Action
from saphira.exception import Conflict


def record_action(session: Session, caller: Caller, uuid: str, action: str) -> None:
    """The instance action os-instance-actions lists, keyed by the request id."""
    context = caller.context
    session.add(cell_models.InstanceAction(
        action=action, instance_uuid=uuid, request_id=context.request_id,
        user_id=context.user_id or "", project_id=context.project_id or "",
    ))  # fmt: skip
    session.flush()


def _placed_or_conflict(found: Located, recorded_as: str) -> None:
    if found.cell is None:
        raise Conflict(f"Cannot '{recorded_as}' instance {found.instance.uuid} while it is in "
                       f"vm_state building")  # fmt: skip


def run(
    caller: Caller, found: Located, action: Action, *, record: str | None = None, **changes: Any
) -> None:
    """Check, compare-and-swap and record ``action`` (as ``record`` if given: a cold
    migrate is the resize row recorded as ``migrate``, as Nova does); ``found.instance``
    is then the new row."""
    instance = found.instance
    rule = transitions.rule(action)
    _placed_or_conflict(found, rule.recorded_as)
    transitions.check(action, instance.vm_state, instance.task_state,
                      launched=instance.launched, instance_uuid=instance.uuid,
                      locked=instance.locked, is_admin=caller.context.is_admin)  # fmt: skip
    with cell_session(caller, found) as session:
        move = transitions.begin(action, instance.vm_state, instance.task_state)
        instances.apply(session, instance.uuid, move, method=rule.recorded_as)
        if changes:
            instances.update(session, instance.uuid, **changes)
        record_action(session, caller, instance.uuid, record or rule.recorded_as)
        found.instance = instances.get(session, instance.uuid)


def set_lock(caller: Caller, found: Located, key: str, sysmeta: dict[str, str],
             values: dict[str, Any]) -> None:  # fmt: skip
    """Lock or unlock (``key``): the new columns and system metadata, recorded."""
    _placed_or_conflict(found, key)
    uuid = found.instance.uuid
    with cell_session(caller, found) as session:
        instances.update(session, uuid, system_metadata=json.dumps(sysmeta), **values)
        record_action(session, caller, uuid, key)
