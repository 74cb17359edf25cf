from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from oslo_config import cfg

from saphira.conf import make_conf
from tests.environment import server_url
from tests.integration.broker import PrivateBroker, broker_for_test

ROOT = Path(__file__).resolve().parents[3]


def _ctl(*args: str) -> None:
    subprocess.run(["rabbitmqctl", "-q", *args], check=True, capture_output=True, timeout=60)


@pytest.fixture
def rabbit_url() -> Iterator[str]:
    """SAPHIRA_TEST_RABBIT's broker and user on a virtual host of the test's own.

    Topic and server queues are durable quorum queues without an expiry:
    deleting the virtual host afterwards is what keeps them from piling up
    on the shared broker.
    """
    parsed = urlsplit(server_url("SAPHIRA_TEST_RABBIT"))
    vhost = f"saphira_{uuid.uuid4().hex[:10]}"
    try:
        _ctl("add_vhost", vhost)
        _ctl("set_permissions", "-p", vhost, str(parsed.username), ".*", ".*", ".*")
    except (OSError, subprocess.SubprocessError) as error:
        pytest.fail(f"cannot create a RabbitMQ virtual host: {getattr(error, 'stderr', error)!r}")
    try:
        yield urlunsplit(parsed._replace(path=f"/{vhost}"))
    finally:
        _ctl("delete_vhost", vhost)


@pytest.fixture(name="private_broker", scope="module")
def _private_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivateBroker]:
    with broker_for_test(tmp_path_factory.mktemp("rabbit")) as broker:
        yield broker


@pytest.fixture
def topic() -> str:
    """A topic of our own, so tests sharing a broker never see each other's messages."""
    return f"ping-{uuid.uuid4().hex[:12]}"


def rabbit_conf(url: str) -> cfg.ConfigOpts:
    conf = make_conf()
    conf([])
    conf.set_override("transport_url", url)
    # Reconnect quickly after a broker restart.
    conf.set_override("rabbit_retry_interval", 1, group="oslo_messaging_rabbit")
    conf.set_override("rabbit_interval_max", 2, group="oslo_messaging_rabbit")
    return conf


class PingProcess:
    """``python -m tests.rpc_ping`` in its own OS process; casts land in ``outfile``."""

    def __init__(self, url: str, topic: str, server: str, outfile: Path) -> None:
        self.args = [sys.executable, "-m", "tests.rpc_ping", url, topic, server, str(outfile)]
        self.outfile = outfile
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}:{ROOT}"}
        self.process = subprocess.Popen(
            self.args, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None
        assert self.process.stdout.readline().strip() == "ready"

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=60)
            if self.process.stdout is not None:
                self.process.stdout.close()
            self.process = None

    def lines(self) -> list[str]:
        return self.outfile.read_text().splitlines() if self.outfile.exists() else []


@pytest.fixture
def ping_process(tmp_path: Path) -> Iterator[Callable[[str, str, str], PingProcess]]:
    started: list[PingProcess] = []

    def make(url: str, topic: str, server: str) -> PingProcess:
        process = PingProcess(url, topic, server, tmp_path / f"{server}.log")
        process.start()
        started.append(process)
        return process

    yield make
    for process in started:
        process.stop()
