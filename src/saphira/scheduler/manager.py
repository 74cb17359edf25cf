"""The scheduler's RPC endpoint (topic ``scheduler``, interface 1.0)."""

from __future__ import annotations

import logging
from typing import Any

from oslo_config import cfg

from saphira.context import RequestContext
from saphira.objects.request_spec import RequestSpec
from saphira.objects.selection import Selection
from saphira.rpc.server import endpoint_target
from saphira.scheduler.host_manager import HostManager
from saphira.scheduler.selector import HostSource, Placement, Selector

LOG = logging.getLogger(__name__)


class SchedulerManager:
    target = endpoint_target("1.0")

    def __init__(
        self, conf: cfg.ConfigOpts, placement: Placement, hosts: HostSource | None = None
    ) -> None:
        self.host_manager = hosts if hosts is not None else HostManager(conf)
        self.selector = Selector(conf, placement, self.host_manager)

    def select_destinations(
        self,
        ctxt: RequestContext,
        spec: RequestSpec,
        instance_uuids: list[str],
        return_alternates: bool = True,
    ) -> list[list[Selection]]:
        """See saphira.rpc.rpcapi.scheduler.SchedulerAPI.select_destinations."""
        chosen = self.selector.select(spec, instance_uuids, return_alternates)
        LOG.info(
            "scheduled %s on %s",
            ", ".join(instance_uuids),
            ", ".join(selections[0].host for selections in chosen),
        )
        return chosen

    def close(self) -> None:
        close: Any = getattr(self.host_manager, "close", None)
        if close is not None:
            close()
