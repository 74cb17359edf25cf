"""Power-state reconcile (Nova's _sync_power_states): compare what each
driver reports with what the database holds, and act on the difference as
``saphira.domain.power.sync_power_state`` decides; the table's power_sync or
guest_stopped event writes it."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from saphira import exception
from saphira.context import RequestContext
from saphira.domain.power import sync_power_state
from saphira.domain.states import PowerState
from saphira.virt.errors import GuestNotFound

if TYPE_CHECKING:
    from saphira.compute.manager import ComputeManager

LOG = logging.getLogger(__name__)


def reconcile_once(manager: ComputeManager, ctxt: RequestContext | None = None) -> int:
    """One pass over this host's instances; how many rows it changed."""
    ctxt = ctxt or RequestContext()
    changed = 0
    for instance in manager.conductor.instances_on_host(ctxt, manager.host):
        driver = manager.driver_for(instance)
        try:
            actual = driver.get_info(instance).state
        except GuestNotFound:
            actual = PowerState.NOSTATE
        except Exception:
            LOG.exception("reconcile: %s", instance.uuid)
            continue
        decision = sync_power_state(
            instance.vm_state, instance.task_state, instance.power_state, actual
        )
        if decision.noop:
            continue
        if decision.power_off_guest:
            if not _still_off(manager, ctxt, instance.uuid):
                continue
            driver.power_off(instance)
        if decision.event is None:
            continue
        try:
            manager.conductor.instance_event(
                ctxt, instance.uuid, decision.event, instance.vm_state, power=actual
            )
            changed += 1
        except exception.SaphiraError as error:  # an action started meanwhile: it owns it
            LOG.debug("reconcile of %s skipped: %s", instance.uuid, error)
    return changed


def _still_off(manager: ComputeManager, ctxt: RequestContext, uuid: str) -> bool:
    """Whether the instance is still to be off by its row now: the pass's list is read
    once, and a user may have started the guest since (powering it off would undo it)."""
    try:
        fresh = manager.conductor.instance_get(ctxt, uuid)
        actual = manager.driver_for(fresh).get_info(fresh).state
    except (exception.SaphiraError, GuestNotFound):
        return False
    decision = sync_power_state(fresh.vm_state, fresh.task_state, fresh.power_state, actual)
    return decision.power_off_guest
