"""What a compute agent does on start with the instances a killed agent left in
the middle of a task (Nova's ``ComputeManager._init_instance``), before it
takes any request: nothing else would ever move them on, since the conductor's
watchdog only judges hosts that stay down and a restarted agent is up again.

* a delete (task_state ``deleting``) is finished: guest, ports, claim, row;
* a build (vm_state ``building``) is abandoned: its guest, ports and claim go
  and it lands in ERROR with the fault "... the compute service restarted
  during the build" (a retry elsewhere could run twice, as Nova's does not);
* any other task (a stop, a reboot, a resize step...) fails as the table's row
  says, with the same kind of fault, so the instance takes requests again.

One instance's failure is logged and the others still go.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from saphira import exception
from saphira.compute.tracked import TrackedAction
from saphira.context import RequestContext
from saphira.domain.states import TaskState, VmState
from saphira.domain.table import OWNER

if TYPE_CHECKING:
    from saphira.compute.manager import ComputeManager
    from saphira.objects import Instance

LOG = logging.getLogger(__name__)
REASON = "the compute service restarted during the %(what)s"
EVENT = "compute_init_instance"


class Interrupted(exception.SaphiraError):
    msg_fmt = "Interrupted: " + REASON


def recover_interrupted(manager: ComputeManager, ctxt: RequestContext | None = None) -> list[str]:
    """Every instance on the manager's host left mid-task: the uuids it moved on."""
    ctxt = ctxt or RequestContext()
    moved: list[str] = []
    for instance in manager.conductor.instances_on_host(ctxt, manager.host):
        if instance.task_state is None and instance.vm_state != VmState.BUILDING:
            continue  # idle: nothing was interrupted
        try:
            _recover(manager, ctxt, instance)
        except Exception:
            LOG.exception("could not recover %s on %s", instance.uuid, manager.host)
            continue
        moved.append(instance.uuid)
    return moved


def _recover(manager: ComputeManager, ctxt: RequestContext, instance: Instance) -> None:
    task = instance.task_state
    LOG.warning("instance %s was left %s/%s: recovering", instance.uuid, instance.vm_state, task)
    if task == TaskState.DELETING:
        manager.terminate_instance(ctxt, instance)
    elif instance.vm_state == VmState.BUILDING:
        manager.abandon_build(ctxt, instance, REASON % {"what": "build"})
    elif task is not None and TaskState(task) in OWNER:
        action = OWNER[TaskState(task)]
        track = TrackedAction(manager.conductor, ctxt, instance, action, EVENT, manager.host)
        track.run(lambda: _raise(Interrupted(what=str(action).replace("_", " "))))
    else:
        LOG.warning("instance %s: task %s has no owner to fail it", instance.uuid, task)


def _raise(error: Exception) -> None:
    raise error
