"""The scheduler's RPC interface (topic ``scheduler``).

Version history:

* 1.0 -- select_destinations(spec, instance_uuids, return_alternates)
"""

from __future__ import annotations

from typing import ClassVar

from saphira.context import RequestContext
from saphira.objects.request_spec import RequestSpec
from saphira.objects.selection import Selection
from saphira.rpc.client import RPCAPI

TOPIC = "scheduler"


class SchedulerAPI(RPCAPI):
    TOPIC: ClassVar[str] = TOPIC
    RPC_API_VERSION: ClassVar[str] = "1.0"

    def select_destinations(
        self,
        ctxt: RequestContext,
        spec: RequestSpec,
        instance_uuids: list[str],
        *,
        return_alternates: bool = True,
    ) -> list[list[Selection]]:
        """Pick and claim a host for each instance (a call).

        Returns one list per instance uuid, in order: the claimed host first
        (its placement allocation is made, with the instance uuid as the
        consumer), then up to ``[scheduler] max_attempts - 1`` unclaimed
        alternates in the same cell for reschedules. When any instance of the
        batch fits nowhere, the claims made for the others are released and
        ``saphira.exception.NoValidHost`` is raised; its message says, per
        host, which filter or which resource refused.
        """
        result: list[list[Selection]] = self.call(
            ctxt,
            "select_destinations",
            version="1.0",
            spec=spec,
            instance_uuids=list(instance_uuids),
            return_alternates=return_alternates,
        )
        return result
