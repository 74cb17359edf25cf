"""A server's own fields: save (build request or cell row) and delete."""

from __future__ import annotations

from typing import Any

from saphira.computesvc.actions import record_action
from saphira.computesvc.caller import Caller
from saphira.computesvc.lookup import Located, cell_session, locate
from saphira.db.api import build_requests
from saphira.db.api.models import InstanceGroupMember, InstanceMapping
from saphira.db.api.models import RequestSpec as SpecRow
from saphira.db.cell import instances
from saphira.domain import transitions
from saphira.domain.table import Action
from saphira.objects import Instance


def save(caller: Caller, found: Located, **values: Any) -> Instance:
    """Write ``values`` where the server lives; ``found.instance`` is then the saved one."""
    instance = found.instance
    if found.cell is None:
        for key, value in values.items():
            setattr(instance, key, value)
        build_requests.delete(caller.api, instance.uuid)
        build_requests.create(caller.api, instance)
        return instance
    if values:
        with cell_session(caller, found) as session:
            found.instance = instances.update(session, instance.uuid, **values)
    return found.instance


def _forget(caller: Caller, server_id: str) -> None:
    """Drop the API-DB records that make the server count against quota."""
    for model in (InstanceMapping, SpecRow, InstanceGroupMember):
        for row in caller.api.query(model).filter_by(instance_uuid=server_id):
            caller.api.delete(row)


def delete(caller: Caller, found: Located) -> Instance | None:
    """Delete the server; returns the instance its host must terminate, if any.

    A build request, or an instance that never reached a host (cell0, a failed
    build), goes at once; otherwise the table's delete begins (a 409 if the
    state forbids it) and the host is told by the caller.
    """
    instance, uuid = found.instance, found.instance.uuid
    if found.cell is None:
        if not build_requests.delete(caller.api, uuid):
            caller.api.expire_all()  # the conductor placed it meanwhile: delete it there
            return delete(caller, locate(caller, uuid))
        _forget(caller, uuid)
        return None
    with cell_session(caller, found) as session:
        if not instance.host:
            instances.soft_delete(session, uuid)
            _forget(caller, uuid)
            return None
        transitions.check(Action.DELETE, instance.vm_state, instance.task_state, launched=True,
                          instance_uuid=uuid)  # fmt: skip
        move = transitions.begin(Action.DELETE, instance.vm_state, instance.task_state)
        instances.apply(session, uuid, move, method="delete")
        record_action(session, caller, uuid, "delete")
    return instance
