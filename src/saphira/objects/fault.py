"""Why an instance went to ERROR, as ``server show`` returns it in ``fault``."""

from __future__ import annotations

import dataclasses
import datetime as dt

from saphira.objects.base import SaphiraObject


@dataclasses.dataclass
class InstanceFault(SaphiraObject):
    VERSION = "1.0"

    instance_uuid: str
    code: int
    message: str
    details: str = ""
    host: str | None = None
    created_at: dt.datetime | None = None
