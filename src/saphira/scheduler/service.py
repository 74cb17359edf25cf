"""Run the scheduler in a process: its RPC server and, as Nova's scheduler
does, the periodic ``discover_hosts`` when [scheduler]
discover_hosts_in_cells_interval is positive."""

from __future__ import annotations

import gc
import logging
import threading
from typing import Any

from oslo_config import cfg

from saphira.db import cells
from saphira.exception import SaphiraError
from saphira.rpc.rpcapi.scheduler import TOPIC
from saphira.rpc.server import Server, start_server
from saphira.scheduler.heartbeat import Heartbeat
from saphira.scheduler.host_manager import HostManager
from saphira.scheduler.manager import SchedulerManager
from saphira.scheduler.selector import Placement

LOG = logging.getLogger(__name__)


class HostDiscovery(threading.Thread):
    """Maps new compute hosts every ``interval`` seconds until stopped."""

    def __init__(self, conf: cfg.ConfigOpts, interval: float, hosts: HostManager | None) -> None:
        super().__init__(name="scheduler-discover-hosts", daemon=True)
        self.conf, self.interval, self.hosts = conf, interval, hosts
        self.stopping = threading.Event()

    def run_once(self) -> int:
        try:
            found = cells.discover_hosts(self.conf, status=LOG.debug)
        except SaphiraError as error:  # a cell DB down must not end the loop
            LOG.warning("host discovery failed: %s", error.message)
            return 0
        for info in found:
            LOG.info("mapped compute host %s to cell %s", info.host, info.cell_uuid)
        if found and self.hosts is not None:
            self.hosts.invalidate()
        return len(found)

    def run(self) -> None:
        while not self.stopping.wait(self.interval):
            self.run_once()

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=10)


class SchedulerService:
    def __init__(
        self,
        manager: SchedulerManager,
        server: Server,
        discovery: HostDiscovery | None,
        heartbeat: Heartbeat | None = None,
    ) -> None:
        self.manager, self.server, self.discovery = manager, server, discovery
        self.heartbeat = heartbeat

    def stop(self) -> None:
        if self.heartbeat is not None:
            self.heartbeat.stop()
        if self.discovery is not None:
            self.discovery.stop()
        self.server.stop()
        self.server.wait()
        self.manager.close()


def start(
    conf: cfg.ConfigOpts, placement: Placement, *, host: str | None = None, transport: Any = None
) -> SchedulerService:
    """Serve topic ``scheduler`` as server ``host`` ([DEFAULT] host by default)."""
    manager = SchedulerManager(conf, placement)
    manager.host_manager.hosts()  # the first full read, before any request waits for it
    # Start-up objects (modules, the first host states) leave the cyclic GC's
    # view: a full collection over them was the decision's p99 tail (bench/scheduler.py).
    gc.freeze()
    server = start_server(conf, TOPIC, host or conf.host, [manager], transport=transport)
    heartbeat = Heartbeat(conf, host or conf.host)
    heartbeat.start()
    interval = conf.scheduler.discover_hosts_in_cells_interval
    discovery = None
    if interval > 0:
        hosts = manager.host_manager if isinstance(manager.host_manager, HostManager) else None
        discovery = HostDiscovery(conf, float(interval), hosts)
        discovery.start()
    return SchedulerService(manager, server, discovery, heartbeat)
