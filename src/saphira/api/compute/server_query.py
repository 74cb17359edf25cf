"""Which query parameters GET /servers and /servers/detail know (Nova's query schemas).

Before 2.75 an unknown parameter is ignored; from 2.75 it is a 400, as is a
sort key Nova used to ignore silently.
"""

from __future__ import annotations

from saphira.api.compute.app import Call
from saphira.exception import BadRequest

_V21 = frozenset({
    "user_id", "project_id", "tenant_id", "launch_index", "image_ref", "image", "kernel_id",
    "ramdisk_id", "hostname", "key_name", "power_state", "vm_state", "task_state", "host",
    "node", "flavor", "reservation_id", "launched_at", "terminated_at", "availability_zone",
    "name", "display_name", "description", "display_description", "locked_by", "uuid",
    "root_device_name", "config_drive", "access_ip_v4", "access_ip_v6", "auto_disk_config",
    "progress", "sort_key", "sort_dir", "all_tenants", "soft_deleted", "deleted", "status",
    "changes-since", "ip", "ip6", "created_at", "limit", "marker",
    # joined tables: known so that they are refused by name rather than as unknown
    "block_device_mapping", "services", "metadata", "system_metadata", "info_cache",
    "security_groups", "pci_devices",
})  # fmt: skip
_ADDED = (
    ("2.26", {"tags", "tags-any", "not-tags", "not-tags-any"}),
    ("2.66", {"changes-before"}),
    ("2.73", {"locked"}),
)
# Sort keys Nova ignored before 2.75 and refuses from then on.
IGNORED_SORT_KEYS = frozenset({
    "architecture", "cell_name", "cleaned", "default_ephemeral_device", "default_swap_device",
    "deleted", "deleted_at", "disable_terminate", "ephemeral_gb", "ephemeral_key_uuid", "id",
    "key_data", "launched_on", "memory_mb", "os_type", "reservation_id", "root_gb",
    "shutdown_terminate", "user_data", "vcpus", "vm_mode",
})  # fmt: skip


def newest() -> frozenset[str]:
    """Every parameter the newest microversion knows (the API's description lists them)."""
    return _V21.union(*(added for _, added in _ADDED))


def known(call: Call) -> set[str]:
    names = set(_V21)
    for version, added in _ADDED:
        if call.at_least(version):
            names |= added
    return names


def check(call: Call) -> None:
    """From 2.75: BadRequest for an unknown parameter or a formerly ignored sort key."""
    if not call.at_least("2.75"):
        return
    allowed = known(call)
    for name in call.request.args:
        if name not in allowed and not name.startswith("_"):
            raise BadRequest(f"Invalid input for query parameters {name}. Additional "
                             f"properties are not allowed ('{name}' was unexpected)")  # fmt: skip
    for key in call.request.args.getlist("sort_key"):
        if key in IGNORED_SORT_KEYS:
            raise BadRequest(f"Invalid input for query parameters sort_key. Value: {key}. "
                             f"'{key}' is not one of the valid sort keys")  # fmt: skip
