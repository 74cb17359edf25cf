"""What the L2 and DHCP agents share: a heartbeat, a reconcile loop the
network service can wake, and the RPC server that hears it.

Each agent supplies ``configurations`` (shown by ``openstack network agent
show``) and ``reconcile`` (one idempotent pass: ask the service what this host
should have, make it so, tell the service what is now up).
"""

from __future__ import annotations

import abc
import logging
from collections.abc import Callable
from typing import Any, Protocol

from oslo_config import cfg

from saphira.common.periodic import Periodic
from saphira.context import RequestContext
from saphira.rpc import server as rpc_server
from saphira.rpc.rpcapi.network import AGENT_TOPIC, NetworkAgentAPI, NetworkPluginAPI
from saphira.rpc.server import endpoint_target

LOG = logging.getLogger(__name__)


class _Wake:
    """The fanout endpoint: any change on the service side wakes the loop."""

    target = endpoint_target(NetworkAgentAPI.RPC_API_VERSION)

    def __init__(self, loop: Periodic) -> None:
        self.loop = loop

    def changed(self, ctxt: RequestContext, network_ids: list[str]) -> None:
        self.loop.wake.set()


class Watcher(Protocol):
    """Something on the host that wakes the reconcile loop when it sees a change."""

    def start(self) -> None: ...

    def stop(self) -> None: ...


class AgentService(abc.ABC):
    AGENT_TYPE: str
    BINARY: str

    def __init__(self, conf: cfg.ConfigOpts, host: str, transport: Any) -> None:
        self.conf, self.host, self._transport = conf, host, transport
        self.plugin = NetworkPluginAPI(transport)
        self._timers: list[Periodic] = []
        self._watchers: list[Watcher] = []
        self._server: rpc_server.Server | None = None

    @abc.abstractmethod
    def configurations(self) -> dict[str, Any]: ...

    @abc.abstractmethod
    def reconcile(self) -> None: ...

    def watchers(self, wake: Callable[[], None]) -> list[Watcher]:
        """What, besides the service's nudge and the poll, should wake the loop."""
        return []

    def report(self) -> None:
        self.plugin.report_state(
            RequestContext(), self.AGENT_TYPE, self.BINARY, self.host, self.configurations()
        )

    def start(self) -> None:
        """Heartbeat first (the agent shows up at once), then reconcile and listen."""
        self.report()
        loop = Periodic(f"{self.BINARY}-{self.host}", self.conf.agent.polling_interval,
                        self.reconcile)  # fmt: skip
        beat = Periodic(f"{self.BINARY}-report-{self.host}", self.conf.agent.report_interval,
                        self.report)  # fmt: skip
        self._timers = [loop, beat]
        self._server = rpc_server.start_server(
            self.conf, AGENT_TOPIC, self.host, [_Wake(loop)], transport=self._transport
        )
        self._watchers = self.watchers(loop.wake.set)
        for started in (*self._watchers, *self._timers):
            started.start()

    def stop(self) -> None:
        for watcher in self._watchers:
            watcher.stop()
        self._watchers = []
        for timer in self._timers:
            timer.stop()
        if self._server is not None:
            rpc_server.stop_all([self._server])
            self._server = None
