"""A private RabbitMQ node for tests and benches that restart the broker.

Its own node name, data directory, ports (AMQP and Erlang distribution),
configuration and cookie (HOME) under a tmp dir, so stopping it never
touches the broker the test command started (epmd is shared, which is fine).
``private_broker`` is the context manager behind the fixtures: the node is
stopped (``rabbitmqctl shutdown``, else SIGKILL by its PID) at the end.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.sockets import free_port

SERVER = "/usr/lib/rabbitmq/bin/rabbitmq-server"
CTL = "/usr/lib/rabbitmq/bin/rabbitmqctl"


def available() -> bool:
    return os.path.exists(SERVER) and shutil.which("erl") is not None


class PrivateBroker:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.node = f"saphira-{uuid.uuid4().hex[:8]}@localhost"
        self.port = free_port()
        (base / "home").mkdir(parents=True)
        (base / "enabled_plugins").write_text("[].\n")
        (base / "env.conf").write_text("")
        self.env = {
            **os.environ,
            "HOME": str(base / "home"),
            "RABBITMQ_NODENAME": self.node,
            "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1",
            "RABBITMQ_NODE_PORT": str(self.port),
            "RABBITMQ_DIST_PORT": str(free_port()),
            "RABBITMQ_MNESIA_BASE": str(base / "mnesia"),
            "RABBITMQ_LOG_BASE": str(base / "log"),
            "RABBITMQ_PID_FILE": str(base / "rabbit.pid"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(base / "enabled_plugins"),
            "RABBITMQ_CONF_ENV_FILE": str(base / "env.conf"),
            "RABBITMQ_CONFIG_FILE": str(base / "rabbitmq"),
        }
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"rabbit://guest:guest@127.0.0.1:{self.port}/"

    @property
    def ctl(self) -> tuple[str, ...]:
        """``rabbitmqctl`` for this node, as a command (its cookie is in the node's HOME)."""
        return ("env", f"HOME={self.base / 'home'}", CTL, "-n", self.node)

    def _ctl(self, *args: str) -> None:
        subprocess.run([*self.ctl, *args], env=self.env, check=True, capture_output=True)

    def start(self) -> None:
        with open(self.base / "server.log", "ab") as log:
            self.process = subprocess.Popen(
                [SERVER], env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        self._ctl("wait", "--timeout", "120", str(self.base / "rabbit.pid"))
        self._ctl("await_startup")

    def stop(self) -> None:
        if self.process is None:
            return
        try:
            self._ctl("shutdown")
        except subprocess.CalledProcessError:  # not up (a failed start): no goodbye
            self.process.kill()
        finally:
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None

    def restart(self, pause: float = 0.0) -> None:
        """Stop, stay down ``pause`` seconds, start again (same data: queues survive)."""
        self.stop()
        time.sleep(pause)
        self.start()


@contextmanager
def broker_for_test(base: Path) -> Iterator[PrivateBroker]:
    """``private_broker`` for a test, which fails (never skips) where RabbitMQ is missing."""
    if not available():
        pytest.fail("rabbitmq-server (and erl) not installed (tools/dev setup installs them)")
    with private_broker(base) as broker:
        yield broker


@contextmanager
def private_broker(base: Path) -> Iterator[PrivateBroker]:
    """A running private node in the directory ``base``, stopped afterwards."""
    broker = PrivateBroker(base)
    try:
        broker.start()
        yield broker
    finally:
        broker.stop()
