"""ConductorAPI: the build and resize workflows, and every database write an
agent needs (the compute agent has no database access).

Two halves, as Nova's ComputeTaskAPI and ConductorAPI:

* tasks, sent by the API and by agents: ``schedule_and_build_instances``
  (cast; cells v2 flow), ``build_instances`` (cast; the reschedule after a
  failed spawn), ``migrate_server`` (call; resize — NoValidHost comes back to
  the caller as ``saphira.exception.NoValidHost``);
* agent-facing database methods (calls): instance state transitions by
  table action or system event (the conductor computes the compare-and-swap
  with ``saphira.domain.transitions``, so a stale agent loses with
  InstanceInvalidState; no method writes a state the caller chose), faults,
  instance action events, service heartbeats and compute node records.

Instance action events attach to the action whose request_id is the
context's (the API recorded it); an event without one is dropped quietly.

Version history:
* 1.0 - initial interface.
* 1.1 - instance_finish(event=) and instance_fail(event=).
* 2.0 - schedule_and_build_instances and build_instances carry a BuildOrder
  per server (the loose image, admin_password, requested_networks and tried
  arguments are gone); the agent's build reports: build_started,
  build_networked, build_failed (each one transaction with its event).
  instance_event, a system event of the transition table
  (``saphira.domain.table.SYSTEM``: power sync, guest stopped, move error),
  replaces instance_save_state, the raw compare-and-swap, which is gone:
  every state change is an action or an event of the table. Methods changed
  their arguments or went, so this is a new major version; a 1.x caller is
  refused.
* 2.1 - evacuate_server (call): rebuild a server of a dead host elsewhere;
  migration_status (call): an agent's step of a move, for os-migrations.
"""

from __future__ import annotations

from typing import Any

from saphira.context import RequestContext
from saphira.domain.states import PowerState, VmState
from saphira.domain.table import Event
from saphira.objects import (
    BuildOrder,
    ComputeNode,
    Flavor,
    Instance,
    InstanceFault,
    InstanceVIF,
    RequestSpec,
    Service,
)
from saphira.rpc.client import RPCAPI


class ConductorAPI(RPCAPI):
    """See the version history above."""

    TOPIC = "conductor"
    RPC_API_VERSION = "2.1"
    BASE_VERSION = "2.0"

    # -- tasks ----------------------------------------------------------------
    def schedule_and_build_instances(
        self, ctxt: RequestContext, instances: list[Instance], orders: list[BuildOrder]
    ) -> None:
        """Build the servers the API queued (build requests + request specs +
        instance mappings with no cell); 2.0.

        ``instances[i]`` is build request i's Instance (vm_state building,
        task_state scheduling, no host) and ``orders[i]`` its build order (its
        request spec, image, networks, admin password). The conductor
        schedules them all at once, creates each row in the chosen cell (or in
        cell0 in ERROR with a fault saying why no host fit), points the
        instance mapping at the cell, deletes the build request and casts
        ComputeAPI.build_and_run_instance with the order, its ``host_list``
        filled in. A build request the API deleted meanwhile (server deleted
        while scheduling) is skipped and its allocation released.
        """
        self.cast(
            ctxt, "schedule_and_build_instances", version="2.0", instances=instances,
            orders=orders,
        )  # fmt: skip

    def build_instances(self, ctxt: RequestContext, instance: Instance, order: BuildOrder) -> None:
        """Reschedule a build whose spawn failed; 2.0.

        ``order.host_list`` is what the agent received (the failed selection
        first, then the alternates); ``order.attempts`` every attempt so far,
        the failed one last. The conductor closes the agent's build event as
        "Error" with that attempt's reason, clears the info cache, releases the
        failed host's allocation, then tries the next alternate whose claim it
        can make, up to [scheduler] max_attempts; when none is left the
        instance goes to ERROR with a fault naming every host tried and why.
        """
        self.cast(ctxt, "build_instances", version="2.0", instance=instance, order=order)

    def migrate_server(
        self,
        ctxt: RequestContext,
        instance: Instance,
        flavor: Flavor,
        request_spec: RequestSpec,
        *,
        clean_shutdown: bool = True,
    ) -> None:
        """Resize: the API has moved the instance to resize_prep. The conductor
        moves the source allocation to the migration, asks the scheduler for a
        host that fits ``flavor`` and casts ComputeAPI.prep_resize to it.
        NoValidHost puts the instance back (task_state None, fault recorded,
        allocation restored) and is raised to the caller."""
        self.call(
            ctxt, "migrate_server", instance=instance, flavor=flavor,
            request_spec=request_spec, clean_shutdown=clean_shutdown,
        )  # fmt: skip

    def evacuate_server(
        self, ctxt: RequestContext, instance: Instance, request_spec: RequestSpec
    ) -> None:
        """Evacuate (2.1): the API has checked the host is down and moved the instance
        to rebuilding. The conductor moves the source allocation to a migration
        consumer (freed when the dead host comes back and removes its guest), asks
        the scheduler for another host and casts ComputeAPI.evacuate_instance to it.
        NoValidHost sends the instance to ERROR with the fault and is raised."""
        self.call(
            ctxt, "evacuate_server", version="2.1", instance=instance, request_spec=request_spec
        )

    def migration_status(
        self, ctxt: RequestContext, instance_uuid: str, migration_uuid: str, status: str
    ) -> None:
        """2.1: the move's status as os-migrations shows it (Nova's words: migrating,
        post-migrating, finished, confirmed, reverting, reverted, done, error...)."""
        self.call(
            ctxt, "migration_status", version="2.1", instance_uuid=instance_uuid,
            migration_uuid=migration_uuid, status=status,
        )  # fmt: skip

    # -- instances (agent-facing) ---------------------------------------------
    def instance_get(self, ctxt: RequestContext, instance_uuid: str) -> Instance:
        """Raises InstanceNotFound (also once deleted)."""
        result: Instance = self.call(ctxt, "instance_get", instance_uuid=instance_uuid)
        return result

    def instances_on_host(
        self, ctxt: RequestContext, host: str, node: str | None = None
    ) -> list[Instance]:
        """Live instances the database places on ``host`` (and ``node``): reconcile's input."""
        result: list[Instance] = self.call(ctxt, "instances_on_host", host=host, node=node)
        return result

    def instance_advance(
        self, ctxt: RequestContext, instance_uuid: str, action: str, step: str
    ) -> Instance:
        """CAS from task_state ``step`` to the next step of table ``action``."""
        result: Instance = self.call(
            ctxt, "instance_advance", instance_uuid=instance_uuid, action=action, step=step
        )
        return result

    def instance_finish(
        self,
        ctxt: RequestContext,
        instance_uuid: str,
        action: str,
        updates: dict[str, Any] | None = None,
        *,
        event: str | None = None,
    ) -> Instance:
        """CAS from any step of ``action`` to its success state, writing ``updates``
        (plain columns: host, node, launched_at, flavor, system_metadata...) in the
        same transaction; ``updates["power_state"]`` overrides the table's.

        ``event`` is closed as "Success" in that transaction too, so whoever
        sees the end state also sees the action's event finished.
        """
        result: Instance = self.call(
            ctxt, "instance_finish", instance_uuid=instance_uuid, action=action,
            updates=updates or {}, event=event,
        )  # fmt: skip
        return result

    def instance_fail(
        self,
        ctxt: RequestContext,
        instance_uuid: str,
        action: str,
        fault: InstanceFault | None = None,
        *,
        event: str | None = None,
    ) -> Instance:
        """CAS from any step of ``action`` to its failure state; record ``fault`` if given.

        ``event`` is closed as "Error" with the fault's message, in the same
        transaction (see instance_finish).
        """
        result: Instance = self.call(
            ctxt, "instance_fail", instance_uuid=instance_uuid, action=action, fault=fault,
            event=event,
        )  # fmt: skip
        return result

    def instance_event(
        self,
        ctxt: RequestContext,
        instance_uuid: str,
        event: Event,
        seen: VmState,
        *,
        power: PowerState | None = None,
        fault: InstanceFault | None = None,
        failed_event: str | None = None,
    ) -> Instance:
        """System ``event`` (2.0) on an instance the caller saw in vm_state ``seen``:
        the conductor makes the table's compare-and-swap (``power``: what the driver
        reports, for the power events), records ``fault`` and closes the action event
        ``failed_event`` as "Error", all in one transaction. An instance that moved on
        meanwhile loses with InstanceInvalidState, and nothing is written."""
        result: Instance = self.call(
            ctxt, "instance_event", instance_uuid=instance_uuid, event=str(event),
            seen=str(seen), power=None if power is None else int(power), fault=fault,
            failed_event=failed_event,
        )  # fmt: skip
        return result

    def instance_update(
        self, ctxt: RequestContext, instance_uuid: str, updates: dict[str, Any]
    ) -> Instance:
        """Plain columns only (never vm_state/task_state/power_state)."""
        result: Instance = self.call(
            ctxt, "instance_update", instance_uuid=instance_uuid, updates=updates
        )
        return result

    def instance_destroy(self, ctxt: RequestContext, instance_uuid: str) -> None:
        """The end of a delete: vm_state deleted, the row soft-deleted, the
        instance mapping marked queued_for_delete (quota stops counting it)."""
        self.call(ctxt, "instance_destroy", instance_uuid=instance_uuid)

    def instance_fault_create(self, ctxt: RequestContext, fault: InstanceFault) -> None:
        self.call(ctxt, "instance_fault_create", fault=fault)

    # -- the agent's build reports (2.0): one transaction each -------------------
    def build_started(self, ctxt: RequestContext, instance_uuid: str, host: str) -> Instance:
        """Open compute_build_and_run_instance on ``host`` and walk the build's
        steps up to networking (the block-device step has no work without a
        volume service); InstanceInvalidState when the server is no longer
        building (deleted meanwhile)."""
        result: Instance = self.call(
            ctxt, "build_started", version="2.0", instance_uuid=instance_uuid, host=host
        )
        return result

    def build_networked(
        self, ctxt: RequestContext, instance_uuid: str, network_info: list[InstanceVIF]
    ) -> Instance:
        """Record the bound ports in the info cache and step to spawning."""
        result: Instance = self.call(
            ctxt, "build_networked", version="2.0", instance_uuid=instance_uuid,
            network_info=network_info,
        )  # fmt: skip
        return result

    def build_failed(self, ctxt: RequestContext, fault: InstanceFault) -> Instance:
        """Abort: ERROR with ``fault``, the build event closed as "Error" with its
        message and the info cache emptied (the ports are gone)."""
        result: Instance = self.call(ctxt, "build_failed", version="2.0", fault=fault)
        return result

    # -- instance action events -----------------------------------------------
    def action_event_start(
        self, ctxt: RequestContext, instance_uuid: str, event: str, host: str | None = None
    ) -> None:
        """Open ``event`` (Nova's names: compute_build_and_run_instance, ...)."""
        self.call(ctxt, "action_event_start", instance_uuid=instance_uuid, event=event, host=host)

    def action_event_finish(
        self,
        ctxt: RequestContext,
        instance_uuid: str,
        event: str,
        result: str,
        *,
        details: str | None = None,
        traceback: str | None = None,
    ) -> None:
        """Close ``event`` with "Success" or "Error" (details: the one-line reason)."""
        self.call(
            ctxt, "action_event_finish", instance_uuid=instance_uuid, event=event,
            result=result, details=details, traceback=traceback,
        )  # fmt: skip

    # -- services and compute nodes ---------------------------------------------
    def service_heartbeat(
        self, ctxt: RequestContext, host: str, binary: str, topic: str | None = None
    ) -> Service:
        """Create the service record on the first beat, then bump last_seen_up
        and report_count (os-services reads up/down from it)."""
        result: Service = self.call(
            ctxt, "service_heartbeat", host=host, binary=binary, topic=topic
        )
        return result

    def compute_node_update(self, ctxt: RequestContext, node: ComputeNode) -> ComputeNode:
        """Create or update the compute_nodes row for (node.host, node.hypervisor_hostname)."""
        result: ComputeNode = self.call(ctxt, "compute_node_update", node=node)
        return result
