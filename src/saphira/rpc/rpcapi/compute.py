"""ComputeAPI: what the API and the conductor ask of one compute host's agent.

Every method goes to ``server=host`` (the agent's [DEFAULT] host). Casts are
fire-and-forget: the caller has already moved the instance into the action's
first task_state (``saphira.domain.transitions.begin`` + CAS), and the agent
walks the rest of the steps through the conductor, landing in the table's
success or failure state. The two console methods are calls because the API
returns their answer.

Resize bookkeeping travels in ``instance.system_metadata`` (Nova kept it
there before instance_extra): ``resize_migration`` (JSON: uuid, source_host,
source_node, dest_host, dest_node, old_flavor, new_flavor primitives) and
``old_vm_state``; ``confirm_resize``/``revert_resize`` read it to find the
host to talk to, so the API only passes the instance.

Version history:
* 1.0 - initial interface.
* 1.1 - get_host_uptime (os-hypervisors uptime).
* 1.2 - attach_interface (call) and detach_interface (cast): os-interface.
* 1.3 - build_and_run_instance(instance, node, order): one BuildOrder instead
  of the image, spec, host list, admin password, networks and tried hosts.
* 1.4 - get_console_endpoint(instance, console_type): a typed ConsoleEndpoint for
  any console type, instead of get_vnc_console's dict (still served for 1.0-1.3).
* 1.5 - evacuate_instance(instance, migration): rebuild on the destination a
  server whose host is down.
"""

from __future__ import annotations

import json
from typing import Any

from saphira.context import RequestContext
from saphira.objects import (
    BuildOrder,
    ConsoleEndpoint,
    ConsoleType,
    Flavor,
    Instance,
    InstanceVIF,
    RequestSpec,
    Selection,
)
from saphira.rpc.client import RPCAPI

RESIZE_KEY = "resize_migration"
# An evacuation (JSON: uuid, source_host, source_node, dest_host, dest_node): kept
# until the source's agent comes back, removes its guest and frees the source claim.
EVACUATE_KEY = "evacuated_from"
OLD_VM_STATE_KEY = "old_vm_state"


def resize_migration(instance: Instance) -> dict[str, Any]:
    """The resize in flight on ``instance`` (raises KeyError when there is none)."""
    return dict(json.loads(instance.system_metadata[RESIZE_KEY]))


class ComputeAPI(RPCAPI):
    TOPIC = "compute"
    RPC_API_VERSION = "1.5"

    # -- build / delete -----------------------------------------------------
    def build_and_run_instance(
        self, ctxt: RequestContext, instance: Instance, node: str, order: BuildOrder
    ) -> None:
        """Spawn on (``order.host_list[0]``'s host, ``node``); 1.3. The scheduler's
        placement claim is already made.

        ``order.host_list`` is the chosen Selection followed by the alternates;
        the agent hands the order back to ConductorAPI.build_instances on
        failure, its attempt appended, so the conductor can reschedule without
        asking the scheduler again.
        """
        self.cast(
            ctxt, "build_and_run_instance", version="1.3", server=order.host_list[0].host,
            instance=instance, node=node, order=order,
        )  # fmt: skip

    def evacuate_instance(
        self, ctxt: RequestContext, instance: Instance, migration: dict[str, Any]
    ) -> None:
        """1.5: spawn ``instance`` (its host is down) on ``migration["dest_host"]``
        from its image; the scheduler's claim for it is made."""
        self.cast(
            ctxt, "evacuate_instance", version="1.5", server=migration["dest_host"],
            instance=instance, migration=migration,
        )  # fmt: skip

    def terminate_instance(self, ctxt: RequestContext, instance: Instance) -> None:
        """Destroy the guest, release its placement allocations, soft-delete the row."""
        self.cast(ctxt, "terminate_instance", server=_host(instance), instance=instance)

    # -- power --------------------------------------------------------------
    def stop_instance(
        self, ctxt: RequestContext, instance: Instance, *, clean_shutdown: bool = True
    ) -> None:
        self.cast(
            ctxt, "stop_instance", server=_host(instance), instance=instance,
            clean_shutdown=clean_shutdown,
        )  # fmt: skip

    def start_instance(self, ctxt: RequestContext, instance: Instance) -> None:
        self.cast(ctxt, "start_instance", server=_host(instance), instance=instance)

    def reboot_instance(self, ctxt: RequestContext, instance: Instance, reboot_type: str) -> None:
        """``reboot_type`` is "SOFT" or "HARD" (the API chose the matching table row)."""
        self.cast(
            ctxt, "reboot_instance", server=_host(instance), instance=instance,
            reboot_type=reboot_type,
        )  # fmt: skip

    def rebuild_instance(
        self,
        ctxt: RequestContext,
        instance: Instance,
        image_ref: str,
        image: dict[str, Any],
        *,
        admin_password: str | None = None,
        preserve_ephemeral: bool = False,
    ) -> None:
        """Rebuild on the same host from ``image_ref`` (the API already wrote it)."""
        self.cast(
            ctxt, "rebuild_instance", server=_host(instance), instance=instance,
            image_ref=image_ref, image=image, admin_password=admin_password,
            preserve_ephemeral=preserve_ephemeral,
        )  # fmt: skip

    def pause_instance(self, ctxt: RequestContext, instance: Instance) -> None:
        self.cast(ctxt, "pause_instance", server=_host(instance), instance=instance)

    def unpause_instance(self, ctxt: RequestContext, instance: Instance) -> None:
        self.cast(ctxt, "unpause_instance", server=_host(instance), instance=instance)

    def suspend_instance(self, ctxt: RequestContext, instance: Instance) -> None:
        self.cast(ctxt, "suspend_instance", server=_host(instance), instance=instance)

    def resume_instance(self, ctxt: RequestContext, instance: Instance) -> None:
        self.cast(ctxt, "resume_instance", server=_host(instance), instance=instance)

    # -- resize (prep on the destination, resize on the source, finish on the
    # destination; confirm on the source; revert on the destination, then
    # finish_revert on the source), as Nova's hops go ----------------------------
    def prep_resize(
        self,
        ctxt: RequestContext,
        instance: Instance,
        flavor: Flavor,
        image: dict[str, Any],
        request_spec: RequestSpec,
        selection: Selection,
        *,
        clean_shutdown: bool = True,
    ) -> None:
        """Sent by the conductor to the destination the scheduler chose."""
        self.cast(
            ctxt, "prep_resize", server=selection.host, instance=instance, flavor=flavor,
            image=image, request_spec=request_spec, selection=selection,
            clean_shutdown=clean_shutdown,
        )  # fmt: skip

    def resize_instance(
        self,
        ctxt: RequestContext,
        instance: Instance,
        flavor: Flavor,
        image: dict[str, Any],
        migration: dict[str, Any],
        *,
        clean_shutdown: bool = True,
    ) -> None:
        """Destination -> source: power off and hand the disks over."""
        self.cast(
            ctxt, "resize_instance", server=migration["source_host"], instance=instance,
            flavor=flavor, image=image, migration=migration, clean_shutdown=clean_shutdown,
        )  # fmt: skip

    def finish_resize(
        self,
        ctxt: RequestContext,
        instance: Instance,
        flavor: Flavor,
        image: dict[str, Any],
        migration: dict[str, Any],
    ) -> None:
        """Source -> destination: start the guest there; the instance becomes RESIZED."""
        self.cast(
            ctxt, "finish_resize", server=migration["dest_host"], instance=instance,
            flavor=flavor, image=image, migration=migration,
        )  # fmt: skip

    def confirm_resize(self, ctxt: RequestContext, instance: Instance) -> None:
        """API -> source host: drop the old guest and the source allocation."""
        migration = resize_migration(instance)
        self.cast(
            ctxt, "confirm_resize", server=migration["source_host"], instance=instance,
            migration=migration,
        )  # fmt: skip

    def revert_resize(self, ctxt: RequestContext, instance: Instance) -> None:
        """API -> destination host: destroy the new guest, then finish_revert on the source."""
        migration = resize_migration(instance)
        self.cast(
            ctxt, "revert_resize", server=migration["dest_host"], instance=instance,
            migration=migration,
        )  # fmt: skip

    def finish_revert_resize(
        self, ctxt: RequestContext, instance: Instance, migration: dict[str, Any]
    ) -> None:
        """Destination -> source: restart the old guest with the old flavor."""
        self.cast(
            ctxt, "finish_revert_resize", server=migration["source_host"], instance=instance,
            migration=migration,
        )  # fmt: skip

    # -- images and consoles ------------------------------------------------
    def snapshot_instance(self, ctxt: RequestContext, instance: Instance, image_id: str) -> None:
        """Upload the guest's disk into the queued image ``image_id`` (the API created it)."""
        self.cast(
            ctxt, "snapshot_instance", server=_host(instance), instance=instance,
            image_id=image_id,
        )  # fmt: skip

    def get_console_output(
        self, ctxt: RequestContext, instance: Instance, tail_length: int | None = None
    ) -> str:
        """The guest's console log, the last ``tail_length`` lines if given."""
        return str(
            self.call(
                ctxt, "get_console_output", server=_host(instance), instance=instance,
                tail_length=tail_length,
            )
        )  # fmt: skip

    def get_console_endpoint(
        self, ctxt: RequestContext, instance: Instance, console_type: ConsoleType
    ) -> ConsoleEndpoint:
        """Where the guest's console of ``console_type`` listens, for the proxy; 1.4.
        ConsoleTypeUnavailable (400) or ConsoleNotAvailable (409) from the host."""
        result: ConsoleEndpoint = self.call(
            ctxt, "get_console_endpoint", version="1.4", server=_host(instance),
            instance=instance, console_type=console_type.value,
        )  # fmt: skip
        return result

    # -- NICs (os-interface) -------------------------------------------------
    def attach_interface(
        self,
        ctxt: RequestContext,
        instance: Instance,
        network_id: str | None = None,
        port_id: str | None = None,
        requested_ip: str | None = None,
        tag: str | None = None,
        *,
        timeout: float | None = None,
    ) -> InstanceVIF:
        """Plug a NIC for ``port_id``, or a new port on ``network_id`` (at
        ``requested_ip``), or on the project's one network; the new info-cache
        entry once the guest has it. A call, as in Nova: the API answers with the
        port. ``timeout`` should cover the wait for the port to come up."""
        result: InstanceVIF = self.call(
            ctxt, "attach_interface", version="1.2", server=_host(instance), timeout=timeout,
            instance=instance, network_id=network_id, port_id=port_id,
            requested_ip=requested_ip, tag=tag,
        )  # fmt: skip
        return result

    def detach_interface(self, ctxt: RequestContext, instance: Instance, port_id: str) -> None:
        """Unplug the NIC of ``port_id``, then delete the port (or unbind the user's)."""
        self.cast(
            ctxt, "detach_interface", version="1.2", server=_host(instance), instance=instance,
            port_id=port_id,
        )  # fmt: skip

    # -- host ----------------------------------------------------------------
    def get_host_uptime(self, ctxt: RequestContext, host: str) -> str:
        """The host's uptime line from its driver; a driver without one raises
        NotImplementedError (remotely: the API answers 501)."""
        return str(self.call(ctxt, "get_host_uptime", version="1.1", server=host))

    # -- events ------------------------------------------------------------
    def external_instance_event(
        self, ctxt: RequestContext, host: str, events: list[dict[str, Any]]
    ) -> None:
        """os-server-external-events for the instances on ``host``: each event is
        {"name", "server_uuid", "tag", "status"}; the agent wakes waiters and, for
        "power-update", reconciles the power state."""
        self.cast(ctxt, "external_instance_event", server=host, events=events)


def _host(instance: Instance) -> str:
    if not instance.host:
        raise ValueError(f"instance {instance.uuid} has no host to send to")
    return instance.host
