"""Server bodies, exactly as Nova's views build them per microversion."""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from saphira.api.compute.addresses import server_addresses
from saphira.api.compute.app import Call
from saphira.domain import direct_boot
from saphira.domain.states import TaskState, VmState
from saphira.domain.status import status_from_state
from saphira.exception import Forbidden
from saphira.objects import Instance, InstanceFault

_PROGRESS = {"ACTIVE", "BUILD", "REBUILD", "RESIZE", "VERIFY_RESIZE", "MIGRATING"}


@dataclass
class Shown:
    """An instance and what the view needs besides it (from the cell or API DB)."""

    instance: Instance
    fault: InstanceFault | None = None
    host_status: str = ""
    groups: tuple[str, ...] = ()
    pinned_az: str | None = None
    hints: dict[str, Any] = field(default_factory=dict)
    security_groups: list[dict[str, str]] = field(default_factory=list)  # its ports' groups


def timestamp(value: dt.datetime | None) -> str | None:
    return None if value is None else value.isoformat(timespec="seconds") + "Z"


def usage_time(value: dt.datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:  # the same text as strftime's, at a fraction of its cost
        return value.isoformat(timespec="microseconds")
    return value.strftime("%Y-%m-%dT%H:%M:%S.%f")


def host_id(instance: Instance) -> str:
    if not instance.host:
        return ""
    return _host_id(instance.project_id, instance.host)


@functools.lru_cache(maxsize=1024)  # a listing's servers share a few (project, host) pairs
def _host_id(project_id: str, host: str) -> str:
    return hashlib.sha224((project_id + host).encode()).hexdigest()


@functools.lru_cache(maxsize=1024)  # (vm_state, task_state) pairs are few
def _status(vm_state: VmState, task_state: TaskState | None) -> str:
    return status_from_state(vm_state, task_state)


def status(instance: Instance) -> str:
    """``instance.status``, each pair of states mapped once per process."""
    return _status(instance.vm_state, instance.task_state)


def brief(call: Call, instance: Instance) -> dict[str, Any]:
    return {
        "id": instance.uuid,
        "name": instance.display_name,
        "links": call.links("servers", instance.uuid),
    }


def allowed(call: Call, rule: str, instance: Instance | None = None) -> bool:
    target = {"project_id": instance.project_id, "user_id": instance.user_id} if instance else {}
    try:
        call.enforce(rule, target)
    except Forbidden:
        return False
    return True


def _image(call: Call, instance: Instance, rights: Rights) -> dict[str, Any] | str:
    """The image reference, one body per image and request: a listing's servers share a
    few images."""
    ref = instance.image_ref
    if not ref:
        return ""
    found = rights.images.get(ref)
    if found is None:
        _, bookmark = call.link_base()
        href = f"{bookmark}/images/{ref}"
        found = rights.images[ref] = {"id": ref, "links": [{"rel": "bookmark", "href": href}]}
    return found


def _flavor(call: Call, instance: Instance, rights: Rights) -> dict[str, Any]:
    flavor = instance.flavor
    if not rights.gates.v2_47:
        _, bookmark = call.link_base()
        href = f"{bookmark}/flavors/{flavor.flavorid}"
        return {"id": flavor.flavorid, "links": [{"rel": "bookmark", "href": href}]}
    view: dict[str, Any] = {
        "vcpus": flavor.vcpus, "ram": flavor.memory_mb, "disk": flavor.root_gb,
        "ephemeral": flavor.ephemeral_gb, "swap": flavor.swap, "original_name": flavor.name,
    }  # fmt: skip
    if rights.specs:
        view["extra_specs"] = dict(flavor.extra_specs)
    return view


def _fault(call: Call, shown: Shown, status: str) -> dict[str, Any] | None:
    fault = shown.fault
    if fault is None or status not in ("ERROR", "DELETED"):
        return None
    body: dict[str, Any] = {
        "code": fault.code, "created": timestamp(fault.created_at), "message": fault.message,
    }  # fmt: skip
    if call.context.is_admin or fault.code != 500:
        body["details"] = fault.details
    return body


def security_groups(instance: Instance) -> list[dict[str, str]]:
    """The groups a create asked for (its answer shows them; later bodies show
    the ports')."""
    names = json.loads(instance.system_metadata.get("security_groups", '["default"]'))
    return [{"name": name} for name in names]


def _admin_attrs(instance: Instance, gates: Gates) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        "OS-EXT-SRV-ATTR:host": instance.host,
        "OS-EXT-SRV-ATTR:instance_name": instance.name if instance.id is not None else "",
        "OS-EXT-SRV-ATTR:hypervisor_hostname": instance.node,
    }
    if gates.v2_3:
        sysmeta = instance.system_metadata
        attrs.update({
            "OS-EXT-SRV-ATTR:reservation_id": instance.reservation_id,
            "OS-EXT-SRV-ATTR:launch_index": instance.launch_index,
            "OS-EXT-SRV-ATTR:kernel_id": sysmeta.get(direct_boot.KERNEL_KEY, ""),
            "OS-EXT-SRV-ATTR:ramdisk_id": sysmeta.get(direct_boot.RAMDISK_KEY, ""),
            "OS-EXT-SRV-ATTR:hostname": instance.hostname,
            "OS-EXT-SRV-ATTR:root_device_name": None,
            "OS-EXT-SRV-ATTR:user_data": instance.user_data,
        })  # fmt: skip
    return attrs


def _common(call: Call, shown: Shown, rights: Rights, extend_address: bool) -> dict[str, Any]:
    instance, gates = shown.instance, rights.gates
    status = _status(instance.vm_state, instance.task_state)
    body: dict[str, Any] = {
        "id": instance.uuid, "name": instance.display_name, "status": status,
        "tenant_id": instance.project_id, "user_id": instance.user_id,
        "metadata": dict(instance.metadata), "hostId": host_id(instance),
        "image": _image(call, instance, rights), "flavor": _flavor(call, instance, rights),
        "created": timestamp(instance.created_at),
        "updated": timestamp(instance.updated_at or instance.created_at),
        "addresses": server_addresses(instance, extend_address),
        "accessIPv4": instance.access_ip_v4 or "",
        "accessIPv6": instance.access_ip_v6 or "",
        "links": call.links("servers", instance.uuid), "OS-DCF:diskConfig": "MANUAL",
    }  # fmt: skip
    if status in _PROGRESS:
        body["progress"] = instance.progress
    fault = _fault(call, shown, status)
    if fault is not None:
        body["fault"] = fault
    if gates.v2_9:
        body["locked"] = instance.locked
    if gates.v2_19:
        body["description"] = instance.display_description
    if gates.v2_26:
        body["tags"] = list(instance.tags)
    if gates.v2_63:
        body["trusted_image_certificates"] = None
    if gates.v2_73:
        body["locked_reason"] = instance.system_metadata.get("locked_reason")
    return body


def _spec_fields(shown: Shown, gates: Gates) -> dict[str, Any]:
    """What the request spec adds to a shown server: 2.96's zone, 2.100's hints."""
    body: dict[str, Any] = {}
    if gates.v2_96:
        body["pinned_availability_zone"] = shown.pinned_az
    if gates.v2_100:
        body["scheduler_hints"] = {
            key: value[0] if isinstance(value, list) and len(value) == 1 else value
            for key, value in shown.hints.items()
        }
    return body


@dataclass(frozen=True)
class Gates:
    """The microversions a server body changes at, answered once per request: a
    listing asked each of them once per server."""

    v2_3: bool
    v2_9: bool
    v2_16: bool
    v2_19: bool
    v2_26: bool
    v2_47: bool
    v2_63: bool
    v2_71: bool
    v2_73: bool
    v2_90: bool
    v2_96: bool
    v2_100: bool

    @classmethod
    def of(cls, call: Call) -> Gates:
        names = [f.name for f in dataclasses.fields(cls)]
        return cls(**{name: call.at_least(name[1:].replace("_", ".")) for name in names})


@dataclass(frozen=True)
class Rights:
    """The caller's view rights and the request's gates, decided once per request
    rather than per server."""

    admin_attrs: bool
    host_status: bool
    specs: bool
    gates: Gates
    # The image bodies written so far, by image id (shared by the servers of a listing).
    images: dict[str, dict[str, Any]] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, call: Call) -> Rights:
        return cls(
            allowed(call, "os_compute_api:os-extended-server-attributes"),
            allowed(call, "os_compute_api:servers:show:host_status"),
            allowed(call, "os_compute_api:os-flavor-extra-specs:index"),
            Gates.of(call),
        )


def detail(call: Call, shown: Shown, rights: Rights | None = None, *,
           listing: bool = False, user_data: bool = True) -> dict[str, Any]:  # fmt: skip
    """Show's body; a listing leaves out 2.71's server groups, rebuild the user data."""
    rights = rights or Rights.of(call)
    instance, gates = shown.instance, rights.gates
    body = _common(call, shown, rights, extend_address=True)
    body.update({
        "key_name": instance.key_name,
        "OS-SRV-USG:launched_at": usage_time(instance.launched_at),
        "OS-SRV-USG:terminated_at": usage_time(instance.terminated_at),
        "OS-EXT-AZ:availability_zone": instance.availability_zone or "",
        "OS-EXT-STS:task_state": None if instance.task_state is None else str(instance.task_state),
        "OS-EXT-STS:vm_state": str(instance.vm_state),
        "OS-EXT-STS:power_state": int(instance.power_state),
        "os-extended-volumes:volumes_attached": [],
        "config_drive": instance.config_drive,
    })  # fmt: skip
    if shown.security_groups:  # as Nova: only a server whose ports have groups
        body["security_groups"] = shown.security_groups
    if rights.admin_attrs:
        body.update(_admin_attrs(instance, gates))
        if not user_data:
            body.pop("OS-EXT-SRV-ATTR:user_data", None)
    elif gates.v2_90:
        body["OS-EXT-SRV-ATTR:hostname"] = instance.hostname
    if gates.v2_16 and rights.host_status:
        body["host_status"] = shown.host_status
    if gates.v2_71 and not listing:
        body["server_groups"] = list(shown.groups)
    body.update(_spec_fields(shown, gates))
    return body


def update_view(call: Call, shown: Shown) -> dict[str, Any]:
    """PUT answers with the common view (and 2.71's groups), the full one from 2.75."""
    if call.at_least("2.75"):
        return detail(call, shown)
    body = _common(call, shown, Rights.of(call), extend_address=False)
    if call.at_least("2.71"):
        body["server_groups"] = list(shown.groups)
    return body


def rebuild_view(call: Call, shown: Shown) -> dict[str, Any]:
    """Rebuild's answer: update's, plus 2.54's key name and 2.57's user data."""
    instance = shown.instance
    if call.at_least("2.75"):
        body = detail(call, shown, user_data=False)
    else:
        body = update_view(call, shown)
        if call.at_least("2.54"):
            body["key_name"] = instance.key_name
    if call.at_least("2.57"):
        body["user_data"] = instance.user_data
    return body
