"""The scheduler's own service record (``nova-scheduler``) and its heartbeat.

Nova's scheduler reports like every service, into the cell database of its
[database] connection, so ``os-services`` lists it up or down. Unlike a
compute host it has database access, so it writes the record itself.
"""

from __future__ import annotations

from oslo_config import cfg

from saphira.common.periodic import Periodic
from saphira.db.cell import services
from saphira.db.directory import CellDirectory

BINARY = "nova-scheduler"
TOPIC = "scheduler"


class Heartbeat:
    """One beat per [DEFAULT] report_interval, in the local cell of the process's directory."""

    def __init__(self, conf: cfg.ConfigOpts, host: str) -> None:
        self.host = host
        self.directory = CellDirectory.shared(conf)
        self.timer = Periodic("scheduler-heartbeat", float(conf.report_interval), self.beat)

    def beat(self) -> None:
        with self.directory.local_cell() as session:
            services.heartbeat(session, self.host, BINARY, TOPIC)

    def start(self) -> None:
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()
        self.directory.dispose()
