"""An instance action (one API request) and its events (the steps services
took), as ``os-instance-actions`` lists them."""

from __future__ import annotations

import dataclasses
import datetime as dt

from saphira.objects.base import SaphiraObject


@dataclasses.dataclass
class InstanceActionEvent(SaphiraObject):
    VERSION = "1.0"

    event: str  # e.g. "compute_start_instance"
    start_time: dt.datetime
    finish_time: dt.datetime | None = None
    result: str | None = None  # "Success" or "Error"
    traceback: str | None = None
    host: str | None = None
    details: str | None = None


@dataclasses.dataclass
class InstanceAction(SaphiraObject):
    VERSION = "1.0"

    request_id: str
    instance_uuid: str
    action: str  # Nova's names: create, stop, reboot, confirmResize, ...
    project_id: str
    user_id: str
    start_time: dt.datetime
    finish_time: dt.datetime | None = None
    message: str | None = None
    updated_at: dt.datetime | None = None
    events: list[InstanceActionEvent] = dataclasses.field(default_factory=list)
