"""What the compute API answers on success for the cloud's own resources: hypervisors,
services, aggregates, availability zones, quotas, limits, migrations and external
events (Nova's members at every microversion required, later ones allowed, as in
compute_answers)."""

from __future__ import annotations

from typing import Any

from saphira.api.openapi.model import (
    FLAG,
    INTEGER,
    JSON,
    LINKS,
    MAYBE_INTEGER,
    MAYBE_TEXT,
    TEXT,
    TEXTS,
    Schema,
    listing,
    ok,
    record,
    wrapped,
)
from saphira.computesvc import quota

_ID: Schema = {"type": ["integer", "string"]}  # an integer before 2.53, a UUID from 2.53

# Hypervisors: the brief view, and the detail (whose usage figures 2.88 dropped).
_BRIEF_KEYS = ["id", "hypervisor_hostname", "state", "status"]
_BRIEF = {"id": _ID, "hypervisor_hostname": TEXT, "state": TEXT, "status": TEXT}
_ON_IT = {"type": "array", "items": record(["name", "uuid"], {"name": TEXT, "uuid": TEXT})}
_FIGURES = ("current_workload", "free_disk_gb", "free_ram_mb", "local_gb", "local_gb_used",
            "memory_mb", "memory_mb_used", "running_vms", "vcpus", "vcpus_used")  # fmt: skip
_HOST_SERVICE = record(["host", "id", "disabled_reason"], {
    "host": TEXT, "id": {"type": ["integer", "string", "null"]},
    "disabled_reason": MAYBE_TEXT})  # fmt: skip
_HYPERVISOR = record(
    [*_BRIEF_KEYS, "host_ip", "hypervisor_type", "hypervisor_version", "service"],
    {**_BRIEF, **dict.fromkeys(_FIGURES, INTEGER), "disk_available_least": MAYBE_INTEGER,
     "cpu_info": {"type": ["string", "object"]},  # an object from 2.28
     "host_ip": MAYBE_TEXT, "hypervisor_type": TEXT, "hypervisor_version": INTEGER,
     "service": _HOST_SERVICE, "uptime": MAYBE_TEXT, "servers": _ON_IT},
)  # fmt: skip
_STATISTICS = record(["count", *_FIGURES, "disk_available_least"], {
    "count": INTEGER, **dict.fromkeys(_FIGURES, INTEGER),
    "disk_available_least": MAYBE_INTEGER})  # fmt: skip
_UPTIME = record([*_BRIEF_KEYS, "uptime"], {**_BRIEF, "uptime": TEXT})
_BRIEF_HYPERVISORS = listing("hypervisors", record(_BRIEF_KEYS, {**_BRIEF, "servers": _ON_IT}))

_SERVICE = record(
    ["id", "binary", "host", "zone", "status", "state", "updated_at", "disabled_reason"],
    {"id": _ID, "binary": TEXT, "host": TEXT, "zone": TEXT, "status": TEXT, "state": TEXT,
     "updated_at": MAYBE_TEXT, "disabled_reason": MAYBE_TEXT, "forced_down": FLAG},
)  # fmt: skip
# Before 2.53 an update answers host and binary with what it changed (status, its
# reason, or forced_down); from 2.53 the whole service.
_UPDATED_SERVICE = record(["host", "binary"], _SERVICE["properties"])

# Aggregates are never made yet (the list is empty); Nova's members, should one come.
_AGGREGATE = record(
    ["id", "name", "availability_zone", "hosts", "metadata", "created_at", "updated_at",
     "deleted_at", "deleted"],
    {"id": INTEGER, "name": TEXT, "availability_zone": MAYBE_TEXT, "hosts": TEXTS,
     "metadata": {"type": "object"}, "created_at": TEXT, "updated_at": MAYBE_TEXT,
     "deleted_at": MAYBE_TEXT, "deleted": FLAG, "uuid": TEXT},
)  # fmt: skip


def _zones(hosts: Schema) -> Schema:
    """The availability zones, each with its ``hosts`` (null in the list)."""
    zone = record(["zoneName", "zoneState", "hosts"], {
        "zoneName": TEXT, "zoneState": record(["available"], {"available": FLAG}),
        "hosts": hosts})  # fmt: skip
    return listing("availabilityZoneInfo", zone)


_BINARY = record(["available", "active", "updated_at"],
                 {"available": FLAG, "active": FLAG, "updated_at": MAYBE_TEXT})  # fmt: skip
# host -> binary -> its state; null for a zone listed without a service (the default one)
_ZONE_HOSTS = {
    "type": ["object", "null"],
    "additionalProperties": {"type": "object", "additionalProperties": _BINARY},
}

# Quotas: every resource a microversion shows is an integer (-1: unlimited); those shown
# at every one are required. A class hides the server group ones before 2.50.
_RESOURCES = (*quota.RESOURCES, *quota.LEGACY_NETWORK)
_ALWAYS = ["instances", "cores", "ram", "metadata_items", "key_pairs"]
_PROJECT_ALWAYS = [*_ALWAYS, "server_groups", "server_group_members"]
_LIMITS = dict.fromkeys(_RESOURCES, INTEGER)
_USAGE = record(["limit", "in_use", "reserved"], dict.fromkeys(["limit", "in_use", "reserved"],
                                                              INTEGER))  # fmt: skip
_QUOTA_SET = wrapped("quota_set", record(["id", *_PROJECT_ALWAYS], {"id": TEXT, **_LIMITS}))
_QUOTA_USAGE = wrapped("quota_set", record(
    ["id", *_PROJECT_ALWAYS], {"id": TEXT, **dict.fromkeys(_RESOURCES, _USAGE)}))  # fmt: skip
_QUOTA_CLASS = wrapped("quota_class_set", record(["id", *_ALWAYS], {"id": TEXT, **_LIMITS}))
# What /limits shows at every microversion (2.36, 2.39 and 2.57 drop others).
_ABSOLUTE = ["maxServerMeta", "maxTotalCores", "maxTotalInstances", "maxTotalKeypairs",
             "maxTotalRAMSize", "maxServerGroups", "maxServerGroupMembers", "totalCoresUsed",
             "totalInstancesUsed", "totalRAMUsed", "totalServerGroupsUsed"]  # fmt: skip
_DROPPED = ["maxImageMeta", "maxPersonality", "maxPersonalitySize", "maxSecurityGroupRules",
            "maxSecurityGroups", "maxTotalFloatingIps", "totalFloatingIpsUsed",
            "totalSecurityGroupsUsed"]  # fmt: skip
_LIMITS_BODY = wrapped("limits", record(["absolute", "rate"], {
    "absolute": record(_ABSOLUTE, dict.fromkeys([*_ABSOLUTE, *_DROPPED], INTEGER)),
    "rate": {"type": "array"}}))  # fmt: skip

# migration_type comes at 2.23, uuid at 2.59, user_id and project_id at 2.80.
_NODES = ["source_node", "source_compute", "dest_node", "dest_compute", "dest_host"]
_MIGRATION = record(
    ["id", "status", "instance_uuid", *_NODES, "old_instance_type_id", "new_instance_type_id",
     "created_at", "updated_at"],
    {"id": INTEGER, "status": TEXT, "instance_uuid": TEXT, **dict.fromkeys(_NODES, MAYBE_TEXT),
     "old_instance_type_id": MAYBE_INTEGER, "new_instance_type_id": MAYBE_INTEGER,
     "created_at": TEXT, "updated_at": MAYBE_TEXT, "migration_type": TEXT, "uuid": TEXT,
     "user_id": MAYBE_TEXT, "project_id": MAYBE_TEXT, "links": LINKS},
)  # fmt: skip

# An external event batch: each event with its code (404, 422 or 200); the status only
# when the caller gave one (Nova echoes the events it was sent). 404 when no event's
# server exists.
_EVENTS = listing(
    "events",
    record(
        ["name", "server_uuid", "code"],
        {"name": TEXT, "server_uuid": TEXT, "code": INTEGER, "status": TEXT, "tag": TEXT},
    ),
)
_NO_SERVER = {"description": "No event's server exists", "content": {JSON: {"schema": _EVENTS}}}

_HYPERVISORS = "/v2.1/os-hypervisors"
_QUOTAS = "/v2.1/os-quota-sets/<tenant_id>"
_CLASSES = "/v2.1/os-quota-class-sets/<class_name>"
ANSWERS: dict[tuple[str, str], dict[str, Any]] = {
    ("GET", _HYPERVISORS): ok(_BRIEF_HYPERVISORS),
    ("GET", f"{_HYPERVISORS}/detail"): ok(listing("hypervisors", _HYPERVISOR)),
    ("GET", f"{_HYPERVISORS}/statistics"): ok(wrapped("hypervisor_statistics", _STATISTICS)),
    ("GET", f"{_HYPERVISORS}/<pattern>/search"): ok(_BRIEF_HYPERVISORS),
    ("GET", f"{_HYPERVISORS}/<pattern>/servers"): ok(_BRIEF_HYPERVISORS),
    ("GET", f"{_HYPERVISORS}/<hypervisor_id>/uptime"): ok(wrapped("hypervisor", _UPTIME)),
    ("GET", f"{_HYPERVISORS}/<hypervisor_id>"): ok(wrapped("hypervisor", _HYPERVISOR)),
    ("GET", "/v2.1/os-services"): ok(listing("services", _SERVICE)),
    ("PUT", "/v2.1/os-services/<service_id>"): ok(wrapped("service", _UPDATED_SERVICE)),
    ("GET", "/v2.1/os-aggregates"): ok(listing("aggregates", _AGGREGATE)),
    ("GET", "/v2.1/os-availability-zone"): ok(_zones({"type": "null"})),
    ("GET", "/v2.1/os-availability-zone/detail"): ok(_zones(_ZONE_HOSTS)),
    ("GET", _QUOTAS): ok(_QUOTA_SET),
    ("PUT", _QUOTAS): ok(wrapped("quota_set", record(_PROJECT_ALWAYS, _LIMITS))),
    ("GET", f"{_QUOTAS}/detail"): ok(_QUOTA_USAGE),
    ("GET", f"{_QUOTAS}/defaults"): ok(_QUOTA_SET),
    ("GET", _CLASSES): ok(_QUOTA_CLASS),
    ("PUT", _CLASSES): ok(wrapped("quota_class_set", record(_ALWAYS, _LIMITS))),
    ("GET", "/v2.1/limits"): ok(_LIMITS_BODY),
    ("GET", "/v2.1/os-migrations"): ok(listing("migrations", _MIGRATION)),
    ("POST", "/v2.1/os-server-external-events"): {**ok(_EVENTS), "404": _NO_SERVER},
}
