"""What the scheduler needs to place one build request (or a batch of them)."""

from __future__ import annotations

import dataclasses

from saphira.objects.base import SaphiraObject
from saphira.objects.flavor import Flavor


@dataclasses.dataclass
class RequestSpec(SaphiraObject):
    VERSION = "1.0"

    instance_uuid: str
    project_id: str
    user_id: str
    flavor: Flavor
    image_ref: str = ""
    image_properties: dict[str, str] = dataclasses.field(default_factory=dict)
    availability_zone: str | None = None
    num_instances: int = 1
    is_bfv: bool = False
    scheduler_hints: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    # Hosts already tried for this build (reschedules skip them).
    ignore_hosts: list[str] = dataclasses.field(default_factory=list)
    force_hosts: list[str] = dataclasses.field(default_factory=list)
    force_nodes: list[str] = dataclasses.field(default_factory=list)
    instance_group_uuid: str | None = None
    instance_group_policy: str | None = None  # affinity, anti-affinity, soft-*
    instance_group_hosts: list[str] = dataclasses.field(default_factory=list)

    def resources(self) -> dict[str, int]:
        return self.flavor.resources(boot_from_volume=self.is_bfv)
