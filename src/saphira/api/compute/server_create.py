"""POST /servers: Nova's checks, the quota claim, then the conductor's cast.

The service layer (``saphira.computesvc.create``) reads the flavor and key
pair and records the servers inside the quota's locked transaction, so
concurrent creates never pass the limit.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import re
import secrets
import uuid
from dataclasses import dataclass, field
from typing import Any

from saphira.api.compute import hosts, network_checks, server_groups, server_schemas
from saphira.api.compute.app import Call
from saphira.api.compute.common import canonical_ip
from saphira.api.compute.network_proxy import is_uuid
from saphira.computesvc import create as store
from saphira.computesvc import quota
from saphira.computesvc.quota import Scope
from saphira.computesvc.server_groups import InstanceGroup
from saphira.domain import direct_boot
from saphira.domain.quota import server_deltas
from saphira.exception import BadRequest, NotFound
from saphira.objects import Flavor, Instance, RequestSpec
from saphira.objects.build_order import BuildImage, BuildOrder, NetworkMode, NetworkRequest

GIB = 1024**3


@dataclass
class Plan:
    """A validated create request: everything but the uuids."""

    name: str
    flavor: Flavor
    image_ref: str
    image: dict[str, Any]
    min_count: int
    max_count: int
    fields: dict[str, Any] = field(default_factory=dict)
    system_metadata: dict[str, str] = field(default_factory=dict)
    group: InstanceGroup | None = None
    hints: dict[str, list[str]] = field(default_factory=dict)
    admin_pass: str = ""
    network_mode: NetworkMode = NetworkMode.AUTO
    networks: list[NetworkRequest] = field(default_factory=list)
    force_hosts: list[str] = field(default_factory=list)  # an admin's destination, if any
    force_nodes: list[str] = field(default_factory=list)

    def orders(self, specs: list[RequestSpec]) -> list[BuildOrder]:
        """What the conductor is sent: one build order per server, with its spec."""
        image = BuildImage.of(self.image)
        return [
            BuildOrder(spec, image, self.network_mode, list(self.networks), self.admin_pass)
            for spec in specs
        ]


def _flavor(call: Call, ref: object) -> Flavor:
    try:
        found = store.flavor(call.svc, str(ref))
    except NotFound:
        raise BadRequest(f"Flavor {ref} could not be found.") from None
    if found.disabled:
        raise BadRequest("Flavor is disabled.")
    return found


def check_image(call: Call, image_ref: str, flavor: Flavor) -> dict[str, Any]:
    """The image as the caller sees it; active, and fitting the flavor (Nova's words).
    The kernel and ramdisk it names must be images the caller sees too."""
    if not image_ref:
        raise BadRequest("Missing imageRef attribute")
    token = call.context.auth_token or call.request.headers.get("X-Auth-Token", "")
    image = call.state.image_service.get(token, image_ref)
    if image.get("status") != "active":
        raise BadRequest(f"Image {image_ref} is not active.")
    size = int(image.get("size") or 0)
    min_disk, min_ram = int(image.get("min_disk") or 0), int(image.get("min_ram") or 0)
    if flavor.root_gb:
        if size > flavor.root_gb * GIB:
            raise BadRequest(f"Flavor's disk is too small for requested image. Flavor disk is "
                             f"{flavor.root_gb * GIB} bytes, image is {size} bytes.")  # fmt: skip
        if min_disk > flavor.root_gb:
            raise BadRequest(f"Flavor's disk is too small for requested image. Flavor disk is "
                             f"{flavor.root_gb * GIB} bytes, minimum requested disk is "
                             f"{min_disk * GIB} bytes.")  # fmt: skip
    if min_ram > flavor.memory_mb:
        raise BadRequest("Flavor's memory is too small for requested image.")
    for part in direct_boot.referenced(image):  # Nova's _handle_kernel_and_ramdisk
        if call.state.image_service.get(token, part).get("status") != "active":
            raise BadRequest(f"Image {part} is not active.")
    return image


def _user_data(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise BadRequest("User data needs to be valid base 64.") from None
    return value


def _zone(call: Call, zone: str | None) -> str | None:
    if zone is None:
        return None
    zone, _, _ = zone.partition(":")  # "az:host[:node]" is an admin's forced host
    known = {hosts.zone(call, entry.service) for entry in hosts.services(call)}
    known.add(str(call.state.conf.default_availability_zone))
    known.discard(str(call.state.conf.internal_service_availability_zone))
    if zone not in known:
        raise BadRequest("The requested availability zone is not available")
    return zone


def _destination(call: Call, server: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The host and node an admin sent the server to: ``az:host[:node]`` (Nova's forced
    host) or, from 2.74, ``host`` and ``hypervisor_hostname``, which must name a compute
    host and node the cloud has (400, as Nova's ComputeHostNotFound)."""
    _, _, forced = str(server.get("availability_zone", "")).partition(":")
    host, _, node = forced.partition(":")
    if "host" in server:
        host = server["host"]
        if host not in {e.service.host for e in hosts.services(call)
                        if e.service.binary == hosts.COMPUTE_BINARY}:  # fmt: skip
            raise BadRequest(f"Compute host {host} could not be found.")
    if "hypervisor_hostname" in server:
        node = server["hypervisor_hostname"]
        if not any(n.node.hypervisor_hostname == node and host in ("", n.node.host)
                   for n in hosts.nodes(call)):  # fmt: skip
            raise BadRequest(f"Compute host {node} could not be found.")
    return ([host] if host else []), ([node] if node else [])


def _key(call: Call, name: str | None) -> tuple[str | None, str | None]:
    if name is None:
        return None, None
    key = store.public_key(call.svc, name)
    if key is None:
        raise BadRequest("Invalid key_name provided.")
    return name, key


def _group(call: Call, hints: dict[str, Any]) -> InstanceGroup | None:
    group_id = hints.get("group")
    if group_id is None:
        return None
    group = server_groups.visible(call, str(group_id))
    if group is None:
        raise BadRequest(f"Invalid server group: Instance group {group_id} could not be found.")
    return group


def _networks(call: Call, value: Any) -> tuple[NetworkMode, list[NetworkRequest]]:
    if value is None and call.at_least("2.37"):
        raise BadRequest("networks is required")  # the schema says so first
    if isinstance(value, list):
        for net in value:
            if net.get("port"):
                continue
            if not is_uuid(net.get("uuid") or ""):
                raise BadRequest(
                    "Bad networks format: network uuid is not in proper format "
                    f"({net.get('uuid') or ''})"
                )
    if isinstance(value, list):
        return NetworkMode.LISTED, [NetworkRequest.of(net) for net in value]
    return NetworkMode(value or "auto"), []


def hostname_of(name: str) -> str:
    """Nova's sanitize_hostname: what a guest may call itself."""
    text = re.sub(r"[ _]", "-", name.lower())
    text = re.sub(r"[^\w.-]+", "", text, flags=re.ASCII).strip(".-")[:63]
    return text or "server"


def _boot_image(server: dict[str, Any]) -> str:
    """imageRef; a mapping that only says "boot from that image, local disk" (what the
    openstack CLI sends along) is the same request, any other needs the volume service."""
    image_ref = str(server.get("imageRef", ""))
    for bdm in server.get("block_device_mapping_v2") or []:
        local_image = (
            bdm.get("source_type") == "image"
            and bdm.get("destination_type", "local") == "local"
            and str(bdm.get("boot_index", "")) == "0"
            and bdm.get("uuid") in (image_ref, None)
        )
        if not (local_image and image_ref):
            raise BadRequest(
                "Block device mappings need the volume service, which is not deployed."
            )
    return image_ref


def _counts(call: Call, server: dict[str, Any]) -> tuple[int, int]:
    """min_count and max_count, max_count lowered to [api] multi_create_max_count."""
    min_count = int(server.get("min_count", 1))
    max_count = int(server.get("max_count", min_count))
    if min_count > max_count:
        raise BadRequest("min_count must be <= max_count")
    cap = int(call.state.conf.api.multi_create_max_count)
    if min_count > cap:
        raise BadRequest(f"min_count {min_count} is more than the {cap} servers one request "
                         "may create.")  # fmt: skip
    return min_count, min(max_count, cap)


def _config_drive(call: Call, server: dict[str, Any], image: dict[str, Any]) -> str:
    """Nova's ``config_drive`` field: "True" when the server gets a drive (asked for,
    forced by ``[DEFAULT] force_config_drive`` or mandatory for the image: the rule
    the driver applies), else empty."""
    asked = str(server.get("config_drive", "")).lower() == "true"
    mandatory = image.get("img_config_drive") == "mandatory"
    return "True" if asked or mandatory or call.state.conf.force_config_drive else ""


def plan(call: Call) -> Plan:
    data = call.body(server_schemas.server_create(call.at_least))
    server = data["server"]
    hints = data.get("os:scheduler_hints") or data.get("OS-SCH-HNT:scheduler_hints") or {}
    min_count, max_count = _counts(call, server)
    if ("host" in server or "hypervisor_hostname" in server) or (
        ":" in server.get("availability_zone", "")
    ):
        call.enforce("os_compute_api:servers:create:forced_host")
    flavor = _flavor(call, server["flavorRef"])
    image_ref = _boot_image(server)
    image = check_image(call, image_ref, flavor)
    metadata = server.get("metadata", {})
    quota.check_metadata(call.state.quota, call.svc, call.context.project_id or "", len(metadata))
    key_name, key_data = _key(call, server.get("key_name"))
    group = _group(call, hints)
    found = Plan(server["name"], flavor, image_ref, image, min_count, max_count, group=group)
    found.hints = {k: v if isinstance(v, list) else [str(v)] for k, v in hints.items()}
    found.force_hosts, found.force_nodes = _destination(call, server)
    found.fields = {
        "display_description": server.get("description"),
        "key_name": key_name, "key_data": key_data,
        "user_data": _user_data(server.get("user_data")),
        "availability_zone": _zone(call, server.get("availability_zone")),
        "access_ip_v4": canonical_ip(server.get("accessIPv4")),
        "access_ip_v6": canonical_ip(server.get("accessIPv6")),
        "metadata": dict(metadata), "tags": sorted(set(server.get("tags", []))),
        "config_drive": _config_drive(call, server, image),
    }  # fmt: skip
    groups = [sg.get("name", "default") for sg in server.get("security_groups", [])]
    found.system_metadata = {
        "security_groups": json.dumps(groups or ["default"]),
        "image_min_disk": str(image.get("min_disk") or 0),
        "image_min_ram": str(image.get("min_ram") or 0),
        "image_disk_format": str(image.get("disk_format") or ""),
        "image_container_format": str(image.get("container_format") or ""),
        "return_reservation_id": str(server.get("return_reservation_id", "false")).lower(),
        **direct_boot.system_metadata(image),
    }  # fmt: skip
    found.network_mode, found.networks = _networks(call, server.get("networks"))
    network_checks.check_create(call, server.get("networks"), groups, max_count)
    found.admin_pass = server.get("adminPass") or secrets.token_urlsafe(9)
    return found


def _instances(call: Call, plan: Plan, count: int) -> list[Instance]:
    context = call.context
    reservation = f"r-{secrets.token_hex(4)}"
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0)
    made = []
    for index in range(count):
        name = plan.name if count == 1 else f"{plan.name}-{index + 1}"
        made.append(Instance(
            str(uuid.uuid4()), context.project_id or "", context.user_id or "", plan.flavor,
            display_name=name, hostname=hostname_of(name), image_ref=plan.image_ref,
            launch_index=index, reservation_id=reservation, created_at=now, updated_at=now,
            system_metadata=dict(plan.system_metadata), **plan.fields,
        ))  # fmt: skip
    return made


def _spec(plan: Plan, instance: Instance, count: int) -> RequestSpec:
    props = plan.image.get("properties") or {
        k: str(v) for k, v in plan.image.items() if k.startswith(("hw_", "img_", "os_"))
    }
    group = plan.group
    return RequestSpec(
        instance.uuid, instance.project_id, instance.user_id, plan.flavor,
        image_ref=plan.image_ref, image_properties={k: str(v) for k, v in props.items()},
        availability_zone=instance.availability_zone, num_instances=count,
        scheduler_hints=plan.hints,
        force_hosts=list(plan.force_hosts), force_nodes=list(plan.force_nodes),
        instance_group_uuid=group.uuid if group else None,
        instance_group_policy=group.policy if group else None,
    )  # fmt: skip


def claim(call: Call, plan: Plan) -> tuple[list[Instance], list[RequestSpec]]:
    """As many servers (max_count down to min_count) as the quota's headroom allows,
    computed once under the project's quota lock, and recorded in the same transaction."""
    context = call.context
    scope = Scope(context.project_id or "", context.user_id,
                  plan.group.uuid if plan.group else None)  # fmt: skip
    each = server_deltas(plan.flavor.vcpus, plan.flavor.memory_mb)
    if plan.group is not None:
        each["server_group_members"] = 1

    def make(count: int) -> list[tuple[Instance, RequestSpec]]:
        return [(i, _spec(plan, i, count)) for i in _instances(call, plan, count)]

    made = store.claim(call.state.quota, call.svc, scope, each, (plan.min_count, plan.max_count),
                       plan.group.id if plan.group else None, make)  # fmt: skip
    return [instance for instance, _ in made], [spec for _, spec in made]
