"""RabbitMQ restarts under a process deployment: heartbeats back, builds meanwhile.

A cloud of separate processes (``saphira-api``, ``-conductor``,
``-scheduler`` and ``--hosts`` compute agents on the fake driver, run as the
saphira user exactly as ``tests/integration/deploy`` runs them) on
PostgreSQL (``SAPHIRA_TEST_POSTGRESQL`` or ``--database``) and a private
RabbitMQ node of the script's own (``tests/integration/broker.py``: its own
node name, ports and data; the shared broker is never touched). Each of
``--restarts`` rounds posts ``--builds`` server creates, stops the broker
(``rabbitmqctl shutdown``), keeps it down ``--down`` seconds and starts it
again; then it prints

* heartbeats back: from the broker's start (the node answering) until every
  service in ``os-services`` is up with a heartbeat after that moment
  (openstacksdk polling every 0.2 s; the compute agents heartbeat through
  the conductor over the bus, every 1 s here);
* the round's builds: how many ended ACTIVE, ERROR (each with a fault) and
  how many were still in BUILD after ``--settle`` seconds (stuck).

The p50 of "heartbeats back" over the rounds closes the report, with every
process that died (none should). ``--rabbit KEY=VALUE`` tries another
[oslo_messaging_rabbit] setting (e.g. the library's own defaults).
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import tempfile
import time
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa
from openstack.config.loader import OpenStackConfig
from openstack.connection import Connection
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.integration
from tests.integration.broker import PrivateBroker, private_broker
from tests.integration.deploy.deployment import Deployment
from tests.integration.up.test_up_on_servers import DATABASE_GROUPS
from tests.scratch import traversable_dir

from saphira.devtools.benchreport.figures import Figure, emit

POLL = 0.2


@contextmanager
def fresh_databases(base: str) -> Iterator[dict[str, str]]:
    """A database per group (and the cell's _cell0) on the server of ``base``, dropped after."""
    url = make_url(base)
    admin = url.set(database="postgres") if url.get_backend_name() == "postgresql" else url
    engine = sa.create_engine(admin, isolation_level="AUTOCOMMIT")
    quote = engine.dialect.identifier_preparer.quote_identifier
    prefix = f"saphira_{uuid.uuid4().hex[:10]}"
    names = {group: f"{prefix}_{group}" for group in DATABASE_GROUPS}
    names["database"] = prefix
    made = [*names.values(), f"{prefix}_cell0"]
    with engine.connect() as conn:
        for name in made:
            conn.execute(sa.text(f"CREATE DATABASE {quote(name)}"))
    try:
        yield {
            kind: url.set(database=name).render_as_string(hide_password=False)
            for kind, name in names.items()
        }
    finally:
        force = " WITH (FORCE)" if engine.dialect.name == "postgresql" else ""
        with engine.connect() as conn:
            for name in made:
                conn.execute(sa.text(f"DROP DATABASE IF EXISTS {quote(name)}{force}"))
        engine.dispose()


def connect(deploy: Deployment) -> Connection:
    config = OpenStackConfig(config_files=[str(deploy.state / "clouds.yaml")])
    return Connection(config=config.get_one(cloud="admin"))


def _stamp(value: str | None) -> datetime.datetime:
    if not value:
        return datetime.datetime.min
    return datetime.datetime.fromisoformat(value).replace(tzinfo=None)


def heartbeats_back(conn: Connection, since: float, limit: float) -> float | None:
    """Seconds from ``since`` until every service is up with a beat after it (None: never)."""
    floor = datetime.datetime.fromtimestamp(int(since), datetime.UTC).replace(tzinfo=None)
    while time.time() - since < limit:
        try:
            services = list(conn.compute.services())
        except Exception:  # the API reads the databases only; keep polling
            services = []
        if services and all(s.state == "up" and _stamp(s.updated_at) >= floor for s in services):
            return time.time() - since
        time.sleep(POLL)
    return None


def settle(conn: Connection, ids: list[str], limit: float) -> dict[str, object]:
    """How the builds ended, once none runs or at ``limit``."""
    end = time.time() + limit
    while True:
        servers = [conn.compute.get_server(i) for i in ids]
        building = [s for s in servers if s.status == "BUILD"]
        if not building or time.time() > end:
            break
        time.sleep(1.0)
    counts = {"ACTIVE": 0, "ERROR with a fault": 0, "ERROR without": 0, "stuck in BUILD": 0}
    faults: set[str] = set()
    for server in servers:
        if server.status == "ACTIVE":
            counts["ACTIVE"] += 1
        elif server.status == "ERROR":
            counts["ERROR with a fault" if server.fault else "ERROR without"] += 1
            faults.add(str((server.fault or {}).get("message")))
        else:
            counts["stuck in BUILD"] += 1
    return {**counts, "faults": sorted(faults)}


def round_once(
    deploy: Deployment, broker: PrivateBroker, conn: Connection, args: argparse.Namespace, n: int
) -> float | None:
    image, flavor = conn.image.find_image("tiny-image"), conn.compute.find_flavor("tiny")
    assert image is not None and flavor is not None
    ids = [
        conn.compute.create_server(
            name=f"r{n}-{i}", image_id=image.id, flavor_id=flavor.id, networks="none"
        ).id
        for i in range(args.builds)
    ]
    broker.stop()
    time.sleep(args.down)
    broker.start()
    started = time.time()
    back = heartbeats_back(conn, started, args.settle)
    counts = settle(conn, ids, args.settle)
    shown = "never" if back is None else f"{back:.1f} s"
    print(f"restart {n + 1}: heartbeats back {shown}; builds: {counts}", flush=True)
    for server_id in ids:
        conn.compute.delete_server(server_id, ignore_missing=True)
    return back


def run(args: argparse.Namespace) -> None:
    with (
        tempfile.TemporaryDirectory(prefix="saphira-bench-rabbit-") as scratch,
        private_broker(Path(scratch) / "rabbit") as broker,
        fresh_databases(args.database) as databases,
        traversable_dir("saphira-bench-rabbit-") as root,
    ):
        rabbit = dict(pair.split("=", 1) for pair in args.rabbit)
        extra: dict[str, dict[str, object]] = {
            "fake_driver": {"delay": args.delay}, "oslo_messaging_rabbit": rabbit,
        }  # fmt: skip
        deploy = Deployment(root, databases, broker.url, extra)
        try:
            deploy.prepare()
            for label in ("api", "conductor", "scheduler"):
                deploy.start(label, label)
            for n in range(args.hosts):
                deploy.start(f"compute-{n}", "compute", host=f"compute-{n}")
            deploy.discover_hosts()
            deploy.openstack(
                "flavor", "create", "--vcpus", "1", "--ram", "64", "--disk", "1", "tiny"
            )
            disk = Path(scratch) / "disk.raw"
            disk.write_bytes(b"\0" * 4096)
            deploy.openstack(
                "image", "create", "--disk-format", "raw", "--container-format", "bare",
                "--file", str(disk), "tiny-image",
            )  # fmt: skip
            conn = connect(deploy)
            print(
                f"{args.hosts} compute hosts, {args.builds} builds per round (each guest "
                f"operation {args.delay} s), broker down {args.down} s per restart, "
                f"[oslo_messaging_rabbit] {rabbit or 'defaults'}",
                flush=True,
            )
            backs = [round_once(deploy, broker, conn, args, n) for n in range(args.restarts)]
            measured = [b for b in backs if b is not None]
            if measured:
                print(f"heartbeats back p50 {statistics.median(measured):.1f} s "
                      f"(min {min(measured):.1f}, max {max(measured):.1f}; "
                      f"{len(backs) - len(measured)} rounds never)")  # fmt: skip
                emit(
                    Figure(
                        "rabbit_restart.back_p50",
                        f"RabbitMQ down {args.down:g} s, restarted -> every heartbeat back, p50",
                        statistics.median(measured),
                        "s",
                    )
                )
            emit(
                Figure(
                    "rabbit_restart.never",
                    "RabbitMQ restarts whose heartbeats never came back",
                    len(backs) - len(measured),
                    "rounds",
                )
            )
            dead = {k: p.proc.poll() for k, p in deploy.processes.items() if p.proc is not None}
            print(f"processes that died: {[k for k, code in dead.items() if code is not None]}")
        finally:
            deploy.stop_all()


def main() -> None:
    warnings.simplefilter("ignore")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--restarts", type=int, default=3)
    parser.add_argument("--builds", type=int, default=4)
    parser.add_argument("--hosts", type=int, default=2)
    parser.add_argument("--down", type=float, default=5.0, help="seconds the broker stays down")
    parser.add_argument("--delay", type=float, default=2.0, help="seconds per guest operation")
    parser.add_argument("--settle", type=float, default=120.0)
    parser.add_argument(
        "--rabbit", action="append", default=[], metavar="KEY=VALUE",
        help="an [oslo_messaging_rabbit] setting to try (repeatable)",
    )  # fmt: skip
    parser.add_argument("--database", default=os.environ.get("SAPHIRA_TEST_POSTGRESQL", ""))
    args = parser.parse_args()
    if not args.database:
        parser.error("--database (or SAPHIRA_TEST_POSTGRESQL) is required")
    run(args)


if __name__ == "__main__":
    main()
