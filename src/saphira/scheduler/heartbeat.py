"""The scheduler's own service record (``nova-scheduler``) and its heartbeat.

Nova's scheduler reports like every service, into the cell database of its
[database] connection, so ``os-services`` lists it up or down. Unlike a
compute host it has database access, so it writes the record itself.
"""

from __future__ import annotations

from oslo_config import cfg

from saphira.common.periodic import Periodic
from saphira.db.api.connect import cell_url
from saphira.db.cell import services
from saphira.db.engine import make_engine
from saphira.db.transactions import Database

BINARY = "nova-scheduler"
TOPIC = "scheduler"


class Heartbeat:
    """One beat per [DEFAULT] report_interval on its own pooled engine."""

    def __init__(self, conf: cfg.ConfigOpts, host: str) -> None:
        self.host = host
        self.database = Database(
            make_engine(cell_url(conf), connect_timeout=conf.database.connect_timeout)
        )
        self.timer = Periodic("scheduler-heartbeat", float(conf.report_interval), self.beat)

    def beat(self) -> None:
        with self.database.session() as session:
            services.heartbeat(session, self.host, BINARY, TOPIC)

    def start(self) -> None:
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()
        self.database.engine.dispose()
