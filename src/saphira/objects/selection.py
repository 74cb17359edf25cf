"""One scheduler answer: a host/node and the placement claim that reserves it.

A build gets a list of these: the first to try and the alternates the
conductor reschedules to when a spawn fails.
"""

from __future__ import annotations

import dataclasses

from saphira.objects.base import SaphiraObject


@dataclasses.dataclass
class Selection(SaphiraObject):
    VERSION = "1.0"

    host: str
    node: str
    compute_node_uuid: str
    cell_uuid: str
    # Placement's allocation request: resource provider uuid -> {class: amount}.
    allocation_request: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)
    allocation_request_version: str = "1.36"
    availability_zone: str | None = None
