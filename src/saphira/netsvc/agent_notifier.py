"""The nudge to the L2 and DHCP agents after the API changed something.

Agents also reconcile every ``[agent] polling_interval``; the nudge makes a
new rule, port or subnet take effect at once instead of at the next tick. It
is one fanout cast naming what the write concerns (``agent_changes``: the
hosts and physical networks); an agent it does not concern ignores it, and
one it does asks the service for its whole desired state, so the payload only
decides who looks, never what they wire. A write that touched nothing an agent
wires (a quota, an agent's row) sends nothing. A bus that is down must not
fail the API request that changed the database, so a failed cast is logged
and the agents' next poll catches up.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from oslo_config import cfg

from saphira.context import RequestContext
from saphira.netsvc import agent_changes

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
        """Call inside ``agent_changes.watching`` after the write committed."""
        change = agent_changes.pending()
        if change is None:
            return
        try:
            self._client().changed(context, change)
        except Exception:
            LOG.warning("could not nudge the network agents; they catch up when they next poll",
                        exc_info=True)  # fmt: skip
