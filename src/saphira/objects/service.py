"""A service record (``os-services``): who runs where and whether it is alive."""

from __future__ import annotations

import dataclasses
import datetime as dt

from saphira.objects.base import SaphiraObject


@dataclasses.dataclass
class Service(SaphiraObject):
    VERSION = "1.0"

    uuid: str
    host: str
    binary: str  # nova-compute, nova-scheduler, nova-conductor (Nova's names)
    topic: str | None = None
    disabled: bool = False
    disabled_reason: str | None = None
    forced_down: bool = False
    last_seen_up: dt.datetime | None = None
    report_count: int = 0
    version: int = 0
    availability_zone: str | None = None
    id: int | None = None
