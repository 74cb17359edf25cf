"""The nudge to every L2 and DHCP agent after the API changed something.

Agents also reconcile every ``[agent] polling_interval``; the nudge makes a
new rule, port or subnet take effect at once instead of at the next tick. It
is one fanout cast with no payload to trust: each agent asks the service for
its whole desired state anyway. A bus that is down must not fail the API
request that changed the database, so a failed cast is logged and the agents'
next poll catches up.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from oslo_config import cfg

from saphira.context import RequestContext

LOG = logging.getLogger(__name__)


class AgentNotifier:
    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf
        self._lock = threading.Lock()
        self._api: Any = None

    def _client(self) -> Any:
        """Made on first use: `saphira up` starts the bus after building the apps."""
        with self._lock:
            if self._api is None:
                from saphira.rpc.rpcapi.network import NetworkAgentAPI
                from saphira.rpc.transport import get_rpc_transport

                self._api = NetworkAgentAPI(get_rpc_transport(self.conf))
            return self._api

    def changed(self, context: RequestContext) -> None:
        try:
            self._client().changed(context, [])
        except Exception:
            LOG.warning("could not nudge the network agents; they catch up when they next poll",
                        exc_info=True)  # fmt: skip
