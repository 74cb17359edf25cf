"""The bed's controller: its services on the management address, over RabbitMQ and
PostgreSQL, reached from inside the nodes; ``down`` drops what it made on the servers."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from saphira.devtools.testbed.bed import Bed
from saphira.devtools.testbed.layout import Addresses
from tests.environment import server_url
from tests.functional.cloud import OPENSTACK
from tests.functional.process import clean_env

pytestmark = pytest.mark.integration
FETCH = "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).status)"
# Send AMQP 0-9-1's protocol header; a broker answers with a method frame (type 1).
AMQP = (
    "import socket, sys; s = socket.create_connection((sys.argv[1], 5672), timeout=10); "
    "s.sendall(b'AMQP\\x00\\x00\\x09\\x01'); print(s.recv(1)[0])"
)


def _controller(bed: Bed) -> str:
    assert bed.state is not None
    return Addresses(bed.state.octet).controller


def test_each_node_reaches_the_controllers_identity_api_and_rabbitmq(controlled_bed: Bed) -> None:
    address = _controller(controlled_bed)
    for name in controlled_bed.layout.nodes:
        node = controlled_bed.node(name)
        assert node.run([sys.executable, "-c", FETCH, f"http://{address}:5000/v3"]).strip() == "200"
        assert node.run([sys.executable, "-c", AMQP, address]).strip() == "1"


def test_the_controller_runs_the_conductor_and_the_scheduler(controlled_bed: Bed) -> None:
    clouds = controlled_bed.layout.bed_dir / "controller" / "state" / "clouds.yaml"
    env = clean_env(OS_CLIENT_CONFIG_FILE=str(clouds))
    listed = subprocess.run(
        [OPENSTACK, "--os-cloud", "admin", "compute", "service", "list", "-f", "json"],
        capture_output=True, text=True, env=env, timeout=120, check=True,
    )  # fmt: skip
    services = {(row["Binary"], row["State"]) for row in json.loads(listed.stdout)}
    assert {("nova-conductor", "up"), ("nova-scheduler", "up")} <= services


def _databases(base: str) -> list[str]:
    import sqlalchemy as sa
    from sqlalchemy.engine import make_url

    engine = sa.create_engine(make_url(base).set(database="postgres"))
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT datname FROM pg_database"))
            return [str(row[0]) for row in rows]
    finally:
        engine.dispose()


def test_down_drops_the_beds_databases_and_virtual_host(controlled_bed: Bed) -> None:
    """Runs last: the module's bed is down afterwards (the fixture's down then finds nothing)."""
    prefix = f"saphira_tb_{controlled_bed.layout.bed}"
    base = server_url("SAPHIRA_TEST_POSTGRESQL")
    assert any(name.startswith(prefix) for name in _databases(base))
    assert controlled_bed.down() == []
    assert [name for name in _databases(base) if name.startswith(prefix)] == []
    vhosts = subprocess.run(["rabbitmqctl", "-q", "list_vhosts", "name"],
                            capture_output=True, text=True, check=True, timeout=60)  # fmt: skip
    assert prefix not in vhosts.stdout.split()
