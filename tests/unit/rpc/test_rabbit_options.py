"""RabbitMQ as oslo.messaging recommends it, for rabbit:// only (no broker needed:
the driver connects on first use)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from oslo_concurrency import lockutils
from oslo_config import cfg

from saphira.conf import make_conf
from saphira.rpc.inproc import InProcDriver
from saphira.rpc.transport import get_rpc_transport
from tests.polling import wait_for

# Nothing listens there; building a transport does not connect.
URL = "rabbit://u:p@127.0.0.1:9/vhost"
RECOMMENDED = {
    "rabbit_quorum_queue": True,
    "rabbit_transient_quorum_queue": True,
    "use_queue_manager": True,
    "heartbeat_timeout_threshold": 20,
    "heartbeat_rate": 3,
    "kombu_reconnect_delay": 0.5,
    "rabbit_retry_backoff": 1,
    "rabbit_interval_max": 5,
    "rabbit_stream_fanout": False,
    "amqp_durable_queues": True,
}


@pytest.fixture
def conf(tmp_path: Any) -> cfg.ConfigOpts:
    conf = make_conf()
    conf([])
    conf.set_override("host", "node-7")
    conf.set_override("state_path", str(tmp_path))
    return conf


@pytest.fixture
def library_lock_path() -> Iterator[None]:
    """lockutils' global lock_path, put back as it was."""
    before = lockutils.CONF.oslo_concurrency.lock_path
    lockutils.CONF.set_default("lock_path", None, group="oslo_concurrency")
    yield
    lockutils.CONF.set_default("lock_path", before, group="oslo_concurrency")


def _driver(conf: cfg.ConfigOpts, url: str = URL) -> Any:
    transport = get_rpc_transport(conf, url=url)
    transport.cleanup()
    return transport._driver


def test_rabbit_gets_quorum_queues_stable_names_and_quick_heartbeats(
    conf: cfg.ConfigOpts, library_lock_path: None
) -> None:
    driver = _driver(conf)
    options = driver.conf.oslo_messaging_rabbit
    assert {name: options[name] for name in RECOMMENDED} == RECOMMENDED
    # Reply and fanout queues are named after [DEFAULT] host, not the machine.
    assert driver._q_manager.hostname == "node-7"
    assert lockutils.CONF.oslo_concurrency.lock_path == f"{conf.state_path}/tmp"


def test_each_default_gives_way_to_the_operator(
    conf: cfg.ConfigOpts, library_lock_path: None
) -> None:
    group = "oslo_messaging_rabbit"
    conf.set_override("rabbit_quorum_queue", False, group=group)
    conf.set_override("use_queue_manager", False, group=group)
    conf.set_override("hostname", "chosen", group=group)
    driver = _driver(conf, url=f"{URL}?heartbeat_timeout_threshold=60")
    options = driver.conf.oslo_messaging_rabbit
    assert (options.rabbit_quorum_queue, options.heartbeat_timeout_threshold) == (False, 60)
    assert (driver._q_manager, options.hostname) == (None, "chosen")
    assert lockutils.CONF.oslo_concurrency.lock_path is None


def test_the_in_process_bus_is_left_alone(conf: cfg.ConfigOpts, library_lock_path: None) -> None:
    driver = _driver(conf, url="inproc:///options")
    assert isinstance(driver, InProcDriver)
    assert conf.oslo_messaging_rabbit.hostname != "node-7"
    assert lockutils.CONF.oslo_concurrency.lock_path is None


# A leader that starts a child in its group and exits (reaped by the test); the child,
# left in a group with no leader, builds a transport with the queue manager, then
# writes whether it leads a group of its own whose identity the library can read.
ORPHAN = """
import os, subprocess, sys, time
out = os.path.join(sys.argv[3], "answer")
if sys.argv[1] == "leader":
    with open(out + ".log", "w") as log:
        subprocess.Popen([sys.executable, "-c", sys.argv[2], "child", *sys.argv[2:]],
                         stdout=log, stderr=log)
    os._exit(0)
leader = os.getpgrp()
while os.path.exists(f"/proc/{leader}"):
    time.sleep(0.01)
from saphira.conf import make_conf
from saphira.rpc.transport import get_rpc_transport
conf = make_conf()
conf([])
conf.set_override("lock_path", sys.argv[3], group="oslo_concurrency")
get_rpc_transport(conf, "rabbit://u:p@127.0.0.1:9/vhost")
with open(out + ".tmp", "w") as answer:
    answer.write(f"{os.getpgrp() == os.getpid()} {os.path.exists(f'/proc/{os.getpgrp()}/stat')}")
os.rename(out + ".tmp", out)
"""


def test_a_service_whose_groups_leader_is_gone_leads_its_own(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-c", ORPHAN, "leader", ORPHAN, str(tmp_path)],
                   start_new_session=True, timeout=60, check=True)  # fmt: skip
    answer = tmp_path / "answer"
    wait_for("the orphaned child's answer", answer.exists, timeout=60, interval=0.05)
    assert answer.read_text() == "True True", (tmp_path / "answer.log").read_text()
