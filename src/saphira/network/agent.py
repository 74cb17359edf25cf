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
from saphira.objects.network import AgentChange
from saphira.rpc import server as rpc_server
from saphira.rpc.rpcapi.network import AGENT_TOPIC, NetworkAgentAPI, NetworkPluginAPI
from saphira.rpc.server import endpoint_target

LOG = logging.getLogger(__name__)


class _Wake:
    """The fanout endpoint: a change that concerns this agent wakes its loop.

    Every agent hears every change; one that names neither its host nor a
    physical network it maps is counted in ``skipped`` and costs nothing more.
    A change from a 1.0 sender names nothing and wakes every agent.
    """

    target = endpoint_target(NetworkAgentAPI.RPC_API_VERSION)

    def __init__(self, loop: Periodic, concerns: Callable[[AgentChange], bool]) -> None:
        self.loop, self.concerns = loop, concerns
        self.skipped = 0

    def changed(
        self, ctxt: RequestContext, network_ids: list[str], change: AgentChange | None = None
    ) -> None:
        if change is None or change.everything or self.concerns(change):
            self.loop.wake.set()
        else:
            self.skipped += 1


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
        self.wake: _Wake | None = None

    @abc.abstractmethod
    def configurations(self) -> dict[str, Any]: ...

    @abc.abstractmethod
    def reconcile(self) -> None: ...

    def concerns(self, change: AgentChange) -> bool:
        """Whether ``change`` may alter what this agent wires (L2: a port on its host)."""
        return self.host in change.hosts

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
        self.wake = _Wake(loop, self.concerns)
        self._server = rpc_server.start_server(
            self.conf, AGENT_TOPIC, self.host, [self.wake], transport=self._transport
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
