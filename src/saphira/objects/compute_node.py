"""A hypervisor as the compute agent reports it (``os-hypervisors``)."""

from __future__ import annotations

import dataclasses

from saphira.objects.base import SaphiraObject


@dataclasses.dataclass
class ComputeNode(SaphiraObject):
    VERSION = "1.0"

    uuid: str
    host: str
    hypervisor_hostname: str
    hypervisor_type: str = "fake"
    hypervisor_version: int = 0
    host_ip: str | None = None
    vcpus: int = 0
    memory_mb: int = 0
    local_gb: int = 0
    vcpus_used: int = 0
    memory_mb_used: int = 0
    local_gb_used: int = 0
    cpu_allocation_ratio: float = 4.0
    ram_allocation_ratio: float = 1.0
    disk_allocation_ratio: float = 1.0
    cpu_info: str = "{}"
    service_id: int | None = None
    mapped: bool = False
    id: int | None = None
